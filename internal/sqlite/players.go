package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"strconv"
	"strings"
	"time"

	"github.com/gatehouse/gatehouse"
	"github.com/gatehouse/gatehouse/internal/sqlstore"
)

// RollInsights implements gatehouse.Store: it folds the events after the
// player rollup's position into it, sqlstore.RollBatch at a time, each
// batch in a write transaction of its own, until less than a batch was
// waiting (migration 0025).
func (db *DB) RollInsights(ctx context.Context, _ time.Time) (err error) {
	defer sqlstore.Label(&err, "Store.RollInsights")
	return db.catchUpPlayers(ctx)
}

// rollPlayers folds up to limit events (0: all) after the position into
// the player rollup, within tx, and moves the position past them. The one
// writer commits in seq order, so no event can land behind it.
func rollPlayers(ctx context.Context, tx *sql.Tx, limit int) (int, error) {
	var after int64
	if err := tx.QueryRowContext(ctx, "SELECT seq FROM insight_player_cursor").Scan(&after); err != nil {
		return 0, err
	}
	if limit <= 0 {
		limit = -1
	}
	rows, err := tx.QueryContext(ctx, `SELECT seq, org, type, occurred_at, platform_user_id, reason, scope
		FROM events WHERE seq > ? ORDER BY seq LIMIT ?`, after, limit)
	if err != nil {
		return 0, err
	}
	defer rows.Close()
	var (
		n      int
		last   = after
		byOrg  = map[int64]sqlstore.PlayerDeltas{}
		org    int64
		typ    string
		ms     int64
		player sql.NullString
		reason sql.NullString
		scope  sql.NullString
	)
	for rows.Next() {
		if err := rows.Scan(&last, &org, &typ, &ms, &player, &reason, &scope); err != nil {
			return 0, err
		}
		n++
		// Organization 0 holds the high-water row that erasure keeps
		// (deleteEvents): for its organization it is gone.
		if org == 0 || !player.Valid {
			continue
		}
		if byOrg[org] == nil {
			byOrg[org] = sqlstore.PlayerDeltas{}
		}
		byOrg[org].Add(player.String, typ, nullable(reason), nullable(scope), fromMillis(ms))
	}
	if err := rows.Err(); err != nil {
		return 0, err
	}
	if len(byOrg) > 0 {
		if err := foldPlayers(ctx, tx, byOrg); err != nil {
			return 0, err
		}
	}
	if last != after {
		if _, err := tx.ExecContext(ctx, "UPDATE insight_player_cursor SET seq = ?", last); err != nil {
			return 0, err
		}
	}
	return n, nil
}

// foldPlayers adds the counts to the rollup in key order and writes the
// levels each count crossed (level k: the count reached 2^k), and those
// each player's total of the month crossed, every kind (migration 0026):
// a player's rows of a month are next to each other in key order.
func foldPlayers(ctx context.Context, tx *sql.Tx, byOrg map[int64]sqlstore.PlayerDeltas) error {
	add, err := tx.PrepareContext(ctx, `INSERT INTO insight_player_months (org, month, platform_user_id, type, reason, scope, n)
		VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO UPDATE SET n = n + excluded.n RETURNING n`)
	if err != nil {
		return err
	}
	defer add.Close()
	level, err := tx.PrepareContext(ctx, `INSERT INTO insight_player_levels (org, type, month, reason, scope, level, platform_user_id)
		VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING`)
	if err != nil {
		return err
	}
	defer level.Close()
	total, err := tx.PrepareContext(ctx, `SELECT sum(n) FROM insight_player_months WHERE org = ? AND month = ? AND platform_user_id = ?`)
	if err != nil {
		return err
	}
	defer total.Close()
	for org, d := range byOrg {
		keys := d.Sorted()
		added := 0
		for i, k := range keys {
			var n int
			if err := add.QueryRowContext(ctx, org, millis(k.Start), k.Player, k.Type, k.Reason, k.Scope, d[k]).Scan(&n); err != nil {
				return err
			}
			for l := range sqlstore.LevelsCrossed(n-d[k], n) {
				if _, err := level.ExecContext(ctx, org, k.Type, millis(k.Start), k.Reason, k.Scope, l, k.Player); err != nil {
					return err
				}
			}
			added += d[k]
			if i+1 < len(keys) && keys[i+1].Start.Equal(k.Start) && keys[i+1].Player == k.Player {
				continue
			}
			// The player's last row of the month: their total's levels.
			var after int
			if err := total.QueryRowContext(ctx, org, millis(k.Start), k.Player).Scan(&after); err != nil {
				return err
			}
			for l := range sqlstore.LevelsCrossed(after-added, after) {
				if _, err := level.ExecContext(ctx, org, "", millis(k.Start), "", "", l, k.Player); err != nil {
					return err
				}
			}
			added = 0
		}
	}
	return nil
}

func nullable(s sql.NullString) *string {
	if !s.Valid {
		return nil
	}
	return &s.String
}

// catchUpPlayers folds what is waiting into the player rollup in
// transactions of sqlstore.RollBatch events, until less than one batch
// was left: what a deletion then folds within its own transaction is
// short.
func (db *DB) catchUpPlayers(ctx context.Context) error {
	if db.noRollups.Load() {
		return nil
	}
	for {
		var n int
		err := db.withTx(ctx, func(tx *sql.Tx) (err error) {
			n, err = rollPlayers(ctx, tx, sqlstore.RollBatch)
			return err
		})
		if err != nil || n < sqlstore.RollBatch {
			return err
		}
	}
}

// rankPlayers ranks the players of f's window ([sqlstore.RankPlayers]) in
// one read transaction, so that the rollup and the events after its
// position are read in one snapshot.
func (db *DB) rankPlayers(ctx context.Context, org int64, f gatehouse.EventFilter, plan []sqlstore.InsightPart, limit int) ([]gatehouse.InsightCount, error) {
	tx, err := db.read.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return nil, wrap(err)
	}
	defer tx.Rollback()
	r := &playerReader{tx: tx, org: org, f: f, plan: plan}
	if err := tx.QueryRowContext(ctx, "SELECT seq FROM insight_player_cursor").Scan(&r.rolled); err != nil {
		return nil, wrap(err)
	}
	counts, err := sqlstore.RankPlayers(ctx, r, limit)
	return counts, wrap(err)
}

// playerReader implements sqlstore.PlayerReader in one read transaction.
type playerReader struct {
	tx     *sql.Tx
	org    int64
	f      gatehouse.EventFilter
	plan   []sqlstore.InsightPart
	rolled int64 // the position: events after it are not in the rollup
}

func (r *playerReader) Events(ctx context.Context) (map[string]sqlstore.Outcomes, error) {
	var (
		parts []string
		args  []any
	)
	for _, part := range r.plan {
		n := strconv.Itoa(part.Sign)
		conds, condArgs := filterConditions(r.org, sqlstore.EventsFilter(r.f, part))
		if !part.Rollup() {
			parts = append(parts, "SELECT e.platform_user_id AS k, e.type AS t, "+n+" AS n FROM events e WHERE e.org = ?"+
				conds+" AND e.platform_user_id IS NOT NULL")
			args = append(append(args, r.org), condArgs...)
			continue
		}
		// Not folded yet: read by seq (the rowid), not through an index
		// on time that would read the whole part.
		parts = append(parts, "SELECT e.platform_user_id AS k, e.type AS t, "+n+" AS n FROM events e NOT INDEXED WHERE e.seq > ? AND e.org = ?"+
			conds+" AND e.platform_user_id IS NOT NULL")
		args = append(append(args, r.rolled, r.org), condArgs...)
	}
	return r.outcomes(ctx, parts, args)
}

// outcomes counts by player and type the rows (k, t, n) of parts.
func (r *playerReader) outcomes(ctx context.Context, parts []string, args []any) (map[string]sqlstore.Outcomes, error) {
	if len(parts) == 0 {
		return nil, nil
	}
	rows, err := r.tx.QueryContext(ctx, "SELECT k, t, sum(n) FROM ("+strings.Join(parts, " UNION ALL ")+") GROUP BY k, t", args...)
	if err != nil {
		return nil, err
	}
	return scanOutcomes(rows)
}

func scanOutcomes(rows *sql.Rows) (map[string]sqlstore.Outcomes, error) {
	defer rows.Close()
	counts := map[string]sqlstore.Outcomes{}
	var (
		player, typ string
		n           int
	)
	for rows.Next() {
		if err := rows.Scan(&player, &typ, &n); err != nil {
			return nil, err
		}
		o := counts[player]
		o.Add(typ, n)
		counts[player] = o
	}
	return counts, rows.Err()
}

func (r *playerReader) Lists(ctx context.Context) ([]sqlstore.PlayerList, error) {
	if lists, ok := sqlstore.TotalLists(r.f, r.plan); ok {
		return lists, nil
	}
	var lists []sqlstore.PlayerList
	for _, part := range sqlstore.RollupParts(r.plan) {
		// The kinds of event of the window, from the daily rollup.
		conds, condArgs := filterConditions(r.org, sqlstore.RollupFilter(r.f))
		kinds, err := queryAll(ctx, r.tx, func(rows *sql.Rows, l *sqlstore.PlayerList) error {
			return rows.Scan(&l.Type, &l.Reason, &l.Scope)
		}, "SELECT DISTINCT e.type, e.reason, e.scope FROM insight_days e WHERE e.org = ? AND e.day >= ? AND e.day < ?"+conds,
			append([]any{r.org, millis(part.From), millis(part.To)}, condArgs...)...)
		if err != nil {
			return nil, err
		}
		for m := part.From; m.Before(part.To); m = m.AddDate(0, 1, 0) {
			for _, k := range kinds {
				k.Month = m
				lists = append(lists, k)
			}
		}
	}
	return lists, nil
}

// levelLists are lists as a JSON array of [type, month, reason, scope],
// which json_each joins to insight_player_levels' key.
func levelLists(lists []sqlstore.PlayerList) (string, error) {
	rows := make([][]any, len(lists))
	for i, l := range lists {
		rows[i] = []any{l.Type, millis(l.Month), l.Reason, l.Scope}
	}
	b, err := json.Marshal(rows)
	return string(b), err
}

const levelsOfLists = ` FROM json_each(?) j JOIN insight_player_levels l ON l.org = ? AND l.type = j.value->>0
	AND l.month = j.value->>1 AND l.reason = j.value->>2 AND l.scope = j.value->>3`

func (r *playerReader) TopLevel(ctx context.Context, lists []sqlstore.PlayerList) (int, error) {
	ls, err := levelLists(lists)
	if err != nil {
		return 0, err
	}
	var top int
	// Each list's highest level through the key, not every level of it.
	err = r.tx.QueryRowContext(ctx, `SELECT coalesce(max((SELECT l.level FROM insight_player_levels l
		WHERE l.org = ? AND l.type = j.value->>0 AND l.month = j.value->>1 AND l.reason = j.value->>2
		AND l.scope = j.value->>3 ORDER BY l.level DESC LIMIT 1)), 0) FROM json_each(?) j`, r.org, ls).Scan(&top)
	return top, err
}

func (r *playerReader) Level(ctx context.Context, lists []sqlstore.PlayerList, k int) ([]string, error) {
	ls, err := levelLists(lists)
	if err != nil {
		return nil, err
	}
	return queryAll(ctx, r.tx, func(rows *sql.Rows, p *string) error { return rows.Scan(p) },
		"SELECT DISTINCT l.platform_user_id"+levelsOfLists+" AND l.level = ?", ls, r.org, k)
}

func (r *playerReader) Rolled(ctx context.Context, players []string) (map[string]sqlstore.Outcomes, error) {
	var (
		parts []string
		args  []any
	)
	conds, condArgs := filterConditions(r.org, sqlstore.RollupFilter(r.f))
	for _, part := range sqlstore.RollupParts(r.plan) {
		if players == nil {
			parts = append(parts, "SELECT e.platform_user_id AS k, e.type AS t, e.n AS n FROM insight_player_months e"+
				" WHERE e.org = ? AND e.month >= ? AND e.month < ?"+conds)
			args = append(append(args, r.org, millis(part.From), millis(part.To)), condArgs...)
			continue
		}
		// Each month and player through the key.
		var months []int64
		for m := part.From; m.Before(part.To); m = m.AddDate(0, 1, 0) {
			months = append(months, millis(m))
		}
		ms, err := json.Marshal(months)
		if err != nil {
			return nil, err
		}
		ps, err := json.Marshal(players)
		if err != nil {
			return nil, err
		}
		parts = append(parts, "SELECT e.platform_user_id AS k, e.type AS t, e.n AS n FROM insight_player_months e"+
			" WHERE e.org = ? AND e.month IN (SELECT value FROM json_each(?)) AND e.platform_user_id IN (SELECT value FROM json_each(?))"+conds)
		args = append(append(args, r.org, string(ms), string(ps)), condArgs...)
	}
	return r.outcomes(ctx, parts, args)
}
