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

// RollInsights implements gatehouse.Store: it folds up to
// sqlstore.RollBatch events after the player rollup's position into it,
// in one write transaction (migration 0025).
func (db *DB) RollInsights(ctx context.Context, _ time.Time) (more bool, err error) {
	defer sqlstore.Label(&err, "Store.RollInsights")
	return db.rollBatch(ctx)
}

// rollBatch folds one batch in a transaction of its own and reports
// whether more is waiting.
func (db *DB) rollBatch(ctx context.Context) (more bool, err error) {
	if db.noRollups.Load() {
		return false, nil
	}
	err = db.withTx(ctx, func(tx *sql.Tx) error {
		n, err := rollPlayers(ctx, tx, sqlstore.RollBatch)
		more = n == sqlstore.RollBatch
		return err
	})
	return more, err
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
		add, err := tx.PrepareContext(ctx, `INSERT INTO insight_player_months (org, month, platform_user_id, type, reason, scope, n)
			VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO UPDATE SET n = n + excluded.n`)
		if err != nil {
			return 0, err
		}
		defer add.Close()
		for org, d := range byOrg {
			for _, k := range d.Sorted() {
				if _, err := add.ExecContext(ctx, org, millis(k.Start), k.Player, k.Type, k.Reason, k.Scope, d[k]); err != nil {
					return 0, err
				}
			}
		}
	}
	if last != after {
		if _, err := tx.ExecContext(ctx, "UPDATE insight_player_cursor SET seq = ?", last); err != nil {
			return 0, err
		}
	}
	return n, nil
}

func nullable(s sql.NullString) *string {
	if !s.Valid {
		return nil
	}
	return &s.String
}

// catchUpPlayers folds what is pending into the player rollup in
// transactions of sqlstore.RollBatch events, until less than one batch is
// left: what a deletion then folds within its own transaction is short.
func (db *DB) catchUpPlayers(ctx context.Context) error {
	for {
		more, err := db.rollBatch(ctx)
		if err != nil || !more {
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

// rollupParts are the plan's parts read from the player rollup.
func (r *playerReader) rollupParts() []sqlstore.InsightPart {
	var parts []sqlstore.InsightPart
	for _, p := range r.plan {
		if p.Rollup() {
			parts = append(parts, p)
		}
	}
	return parts
}

func (r *playerReader) Lists(ctx context.Context) ([]sqlstore.PlayerList, error) {
	var lists []sqlstore.PlayerList
	for _, part := range r.rollupParts() {
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

// maxCompound is how many lists one statement reads, within SQLite's
// limit on the terms of a compound SELECT (500).
const maxCompound = 400

func (r *playerReader) Top(ctx context.Context, lists []sqlstore.PlayerList, offset, n int) ([][]sqlstore.PlayerRow, error) {
	out := make([][]sqlstore.PlayerRow, len(lists))
	for start := 0; start < len(lists); start += maxCompound {
		var (
			parts []string
			args  []any
		)
		for i, l := range lists[start:min(start+maxCompound, len(lists))] {
			parts = append(parts, `SELECT * FROM (SELECT ? AS i, platform_user_id, n FROM insight_player_months
				WHERE org = ? AND type = ? AND month = ? AND reason = ? AND scope = ?
				ORDER BY n DESC, platform_user_id LIMIT ? OFFSET ?)`)
			args = append(args, start+i, r.org, l.Type, millis(l.Month), l.Reason, l.Scope, n, offset)
		}
		rows, err := r.tx.QueryContext(ctx, strings.Join(parts, " UNION ALL "), args...)
		if err != nil {
			return nil, err
		}
		for rows.Next() {
			var (
				i   int
				row sqlstore.PlayerRow
			)
			if err := rows.Scan(&i, &row.Player, &row.N); err != nil {
				rows.Close()
				return nil, err
			}
			out[i] = append(out[i], row)
		}
		if err := rows.Close(); err != nil {
			return nil, err
		}
	}
	return out, nil
}

func (r *playerReader) Rolled(ctx context.Context, players []string) (map[string]sqlstore.Outcomes, error) {
	list, err := json.Marshal(players)
	if err != nil {
		return nil, err
	}
	var (
		parts []string
		args  []any
	)
	conds, condArgs := filterConditions(r.org, sqlstore.RollupFilter(r.f))
	for _, part := range r.rollupParts() {
		parts = append(parts, "SELECT e.platform_user_id AS k, e.type AS t, e.n AS n FROM insight_player_months e"+
			" WHERE e.org = ? AND e.platform_user_id IN (SELECT value FROM json_each(?)) AND e.month >= ? AND e.month < ?"+conds)
		args = append(append(args, r.org, string(list), millis(part.From), millis(part.To)), condArgs...)
	}
	return r.outcomes(ctx, parts, args)
}
