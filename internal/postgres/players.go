package postgres

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"time"

	"github.com/gatehouse/gatehouse"
	"github.com/gatehouse/gatehouse/internal/sqlstore"
	"github.com/jackc/pgx/v5"
)

// rollEvery is how long an organization whose events are all folded
// waits before the roller looks at it again.
const rollEvery = time.Second

// foldPlayers folds an organization's events after its position, up to
// the feed's horizon (0012_feed.sql: no transaction still running can
// commit an event before it; in the organization's positions, horizon),
// into the player rollup, in key order, and writes the levels each count
// crossed (level k: the count reached 2^k):
// each row returns its count and what this fold added, so that no join
// of the rows folded to their counts is planned on statistics that lag
// the batch. The levels of each player's total of the month, every kind
// (migration 0026), count from the total before the fold, which the
// statement's snapshot reads (it does not see its own writes). It returns how many events it read and the new position (""
// when none).
var foldPlayers = `WITH batch AS MATERIALIZED (
		SELECT xid, seq, event_type_name(type) AS type, occurred_at, platform_user_id, reason, event_scope_name(scope) AS scope FROM events
		WHERE org = $1 AND ` + pastPosition("", "$2::text::xid8", "$3::bigint") + ` AND xid < ` + horizon("$1") + `
		ORDER BY ` + feedOrder("", "") + ` LIMIT $4),
	folded AS (
		INSERT INTO insight_player_months AS r (org, month, platform_user_id, type, reason, scope, n, last_added, fold)
		SELECT $1, date_trunc('month', occurred_at AT TIME ZONE 'UTC') AT TIME ZONE 'UTC', platform_user_id, type,
			coalesce(reason, ''), coalesce(scope, ''), count(*), count(*), 2
		FROM batch WHERE platform_user_id IS NOT NULL GROUP BY 2, 3, 4, 5, 6 ORDER BY 2, 3, 4, 5, 6
		ON CONFLICT (org, month, platform_user_id, type, reason, scope)
		DO UPDATE SET n = r.n + excluded.n, last_added = excluded.n
		RETURNING r.month, r.platform_user_id, r.type, r.reason, r.scope, r.n, r.last_added),
	leveled AS (
		INSERT INTO insight_player_levels (org, type, month, reason, scope, level, platform_user_id)
		SELECT $1, f.type, f.month, f.reason, f.scope, k, f.platform_user_id
		FROM folded f, generate_series(1, length(ltrim(f.n::bit(64)::text, '0')) - 1) k -- k <= log2(n)
		WHERE 1::bigint << k > f.n - f.last_added
		ON CONFLICT DO NOTHING),
	totals AS (
		SELECT f.month, f.platform_user_id, sum(f.last_added)::bigint AS added FROM folded f GROUP BY 1, 2),
	leveled_totals AS (
		INSERT INTO insight_player_levels (org, type, month, reason, scope, level, platform_user_id)
		SELECT $1, '', t.month, '', '', k, t.platform_user_id
		FROM totals t
		CROSS JOIN LATERAL (SELECT coalesce(sum(m.n), 0)::bigint AS before FROM insight_player_months m
			WHERE m.org = $1 AND m.month = t.month AND m.platform_user_id = t.platform_user_id) b,
			generate_series(1, length(ltrim((b.before + t.added)::bit(64)::text, '0')) - 1) k
		WHERE 1::bigint << k > b.before
		ON CONFLICT DO NOTHING)
	SELECT (SELECT count(*) FROM batch)::int, coalesce((SELECT b.xid::text FROM batch b ORDER BY b.xid DESC, b.seq DESC LIMIT 1), ''),
		coalesce((SELECT b.seq FROM batch b ORDER BY b.xid DESC, b.seq DESC LIMIT 1), 0)`

// putOffIdle puts the organizations due at $1 with no event past their
// rollup's position off until $2: a probe of the feed's index each. The
// probe is a scalar subquery, which PostgreSQL runs for each cursor as
// it stands: written NOT EXISTS, the planner may make it an anti-join,
// and with 15 M events an organization merged every one of them with
// the cursors (9.2 s, against 0.1 s for the probes; performance.md,
// "30 M against 10 M").
var putOffIdle = `UPDATE insight_player_cursors SET next_at = $2 WHERE org IN (
		SELECT c.org FROM insight_player_cursors c WHERE c.next_at <= $1
			AND (SELECT e.seq FROM events e WHERE e.org = c.org AND ` + pastPosition("e.", "c.txn", "c.seq") + ` LIMIT 1) IS NULL
		FOR UPDATE SKIP LOCKED)`

// RollInsights implements gatehouse.Store: it folds, organization by
// organization, the one whose player rollup has waited longest, until
// none is due at now (migration 0025). An organization's cursor row,
// locked FOR UPDATE SKIP LOCKED, is its lease: every instance rolls, none
// the same organization at once. One that had a full batch stays due.
//
// The organizations due with nothing new are put off in one statement
// first (an index probe each), so that those idle cost no transaction.
func (db *DB) RollInsights(ctx context.Context, now time.Time) (err error) {
	defer sqlstore.Label(&err, "Store.RollInsights")
	if _, err := db.pool.Exec(ctx, putOffIdle, now, now.Add(rollEvery)); err != nil {
		return wrap(err)
	}
	for {
		folded, err := db.foldOne(ctx, now)
		if err != nil || !folded {
			return err
		}
	}
}

// foldOne folds a batch of the organization due first, and reports
// whether one was.
func (db *DB) foldOne(ctx context.Context, now time.Time) (folded bool, err error) {
	err = db.withTx(ctx, func(tx pgx.Tx) error {
		var (
			org  int64
			txn  string
			seq  int64
			read int
		)
		err := tx.QueryRow(ctx, `SELECT org, txn::text, seq FROM insight_player_cursors WHERE next_at <= $1
			ORDER BY next_at LIMIT 1 FOR UPDATE SKIP LOCKED`, now).Scan(&org, &txn, &seq)
		if errors.Is(err, pgx.ErrNoRows) {
			folded = false
			return nil
		}
		if err != nil {
			return err
		}
		folded = true
		var lastTxn string
		var lastSeq int64
		if err := tx.QueryRow(ctx, foldPlayers, org, txn, seq, sqlstore.RollBatch).Scan(&read, &lastTxn, &lastSeq); err != nil {
			return err
		}
		next := now.Add(rollEvery)
		if read == sqlstore.RollBatch {
			next = now // more is waiting
		}
		if lastTxn == "" {
			lastTxn, lastSeq = txn, seq
		}
		_, err = tx.Exec(ctx, `UPDATE insight_player_cursors SET txn = $2::text::xid8, seq = $3, next_at = $4 WHERE org = $1`,
			org, lastTxn, lastSeq, next)
		return err
	})
	return folded, wrap(err)
}

// rankPlayers ranks the players of f's window ([sqlstore.RankPlayers]) in
// one repeatable-read transaction, so that the rollup and the events
// after its position are read in one snapshot.
func (db *DB) rankPlayers(ctx context.Context, org int64, f gatehouse.EventFilter, plan []sqlstore.InsightPart, limit int) ([]gatehouse.InsightCount, error) {
	tx, err := db.replica.BeginTx(ctx, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly})
	if err != nil {
		return nil, wrap(err)
	}
	defer tx.Rollback(ctx)
	r := &playerReader{tx: tx, org: org, f: f, plan: plan, txn: "0"}
	err = tx.QueryRow(ctx, "SELECT txn::text, seq FROM insight_player_cursors WHERE org = $1", org).Scan(&r.txn, &r.seq)
	if err != nil && !errors.Is(err, pgx.ErrNoRows) {
		return nil, wrap(err)
	}
	counts, err := sqlstore.RankPlayers(ctx, r, limit)
	return counts, wrap(err)
}

// playerReader implements sqlstore.PlayerReader in one transaction.
type playerReader struct {
	tx   pgx.Tx
	org  int64
	f    gatehouse.EventFilter
	plan []sqlstore.InsightPart
	txn  string // the position: events after it are not in the rollup
	seq  int64
}

// query collects a statement's arguments, $1 the organization.
type query struct {
	args []any
}

func (q *query) arg(v any) string {
	q.args = append(q.args, v)
	return "$" + strconv.Itoa(len(q.args))
}

// lastPosition is the last position of the organization $1's events,
// read backwards through the feed's index.
var lastPosition = "SELECT e.xid::text, e.seq FROM events e WHERE e.org = $1 ORDER BY " + feedOrder("e.", " DESC") + " LIMIT 1"

func (r *playerReader) Events(ctx context.Context) (map[string]sqlstore.Outcomes, error) {
	// The organization's last position, through the feed's index: most
	// of the time the roller has folded it, and no event is pending.
	var lastTxn string
	var lastSeq int64
	err := r.tx.QueryRow(ctx, lastPosition, r.org).Scan(&lastTxn, &lastSeq)
	if err != nil && !errors.Is(err, pgx.ErrNoRows) {
		return nil, err
	}
	last, _ := strconv.ParseUint(lastTxn, 10, 64)
	folded, _ := strconv.ParseUint(r.txn, 10, 64)
	pending := last > folded || last == folded && lastSeq > r.seq
	q := query{args: []any{r.org}}
	// The events not folded yet, read by position through the feed's
	// index; the bound on xid lets the planner see how few they are (its
	// statistics of xid are the table's, not the organization's).
	var tail string
	if pending {
		from := q.arg(r.txn)
		tail = "WITH tail AS MATERIALIZED (SELECT * FROM events WHERE org = $1 AND xid BETWEEN " + from +
			"::text::xid8 AND " + q.arg(lastTxn) + "::text::xid8 AND " + pastPosition("", from+"::text::xid8", q.arg(r.seq)+"::bigint") + ")"
	}
	var parts []string
	for _, part := range r.plan {
		if part.Rollup() && !pending {
			continue
		}
		conds, _ := filterConditions(sqlstore.EventsFilter(r.f, part), q.arg)
		from := "events e WHERE e.org = $1"
		if part.Rollup() {
			from = "tail e WHERE true"
		}
		parts = append(parts, "SELECT e.platform_user_id AS k, event_type_name(e.type) AS t, "+strconv.Itoa(part.Sign)+" AS n FROM "+from+
			" AND e.platform_user_id IS NOT NULL AND "+strings.Join(conds, " AND "))
	}
	return r.outcomes(ctx, tail, parts, q.args)
}

// outcomes counts by player and type the rows (k, t, n) of parts.
func (r *playerReader) outcomes(ctx context.Context, with string, parts []string, args []any) (map[string]sqlstore.Outcomes, error) {
	counts := map[string]sqlstore.Outcomes{}
	if len(parts) == 0 {
		return counts, nil
	}
	rows, _ := r.tx.Query(ctx, with+" SELECT k, t, sum(n)::bigint FROM ("+strings.Join(parts, " UNION ALL ")+") u GROUP BY k, t", args...)
	var (
		player, typ string
		n           int
	)
	_, err := pgx.ForEachRow(rows, []any{&player, &typ, &n}, func() error {
		o := counts[player]
		o.Add(typ, n)
		counts[player] = o
		return nil
	})
	return counts, err
}

func (r *playerReader) Lists(ctx context.Context) ([]sqlstore.PlayerList, error) {
	if lists, ok := sqlstore.TotalLists(r.f, r.plan); ok {
		return lists, nil
	}
	var lists []sqlstore.PlayerList
	for _, part := range sqlstore.RollupParts(r.plan) {
		// The kinds of event of the window, from the daily rollup.
		q := query{args: []any{r.org}}
		conds := rollupConditions(sqlstore.RollupFilter(r.f), q.arg)
		conds = append(conds, "e.day >= "+q.arg(part.From), "e.day < "+q.arg(part.To))
		rows, _ := r.tx.Query(ctx, "SELECT DISTINCT e.type, e.reason, e.scope FROM insight_days e WHERE e.org = $1 AND "+
			strings.Join(conds, " AND "), q.args...)
		var k sqlstore.PlayerList
		var kinds []sqlstore.PlayerList
		if _, err := pgx.ForEachRow(rows, []any{&k.Type, &k.Reason, &k.Scope}, func() error {
			kinds = append(kinds, k)
			return nil
		}); err != nil {
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

// levelsOfLists joins lists ($2 to $5: types, months, reasons, scopes)
// to insight_player_levels' key.
const levelsOfLists = ` FROM unnest($2::text[], $3::timestamptz[], $4::text[], $5::text[]) AS k(type, month, reason, scope)
	JOIN insight_player_levels l ON l.org = $1 AND l.type = k.type AND l.month = k.month AND l.reason = k.reason AND l.scope = k.scope`

// listArgs are the organization and lists as levelsOfLists takes them.
func (r *playerReader) listArgs(lists []sqlstore.PlayerList) []any {
	var (
		types, reasons, scopes = make([]string, len(lists)), make([]string, len(lists)), make([]string, len(lists))
		months                 = make([]time.Time, len(lists))
	)
	for i, l := range lists {
		types[i], months[i], reasons[i], scopes[i] = l.Type, l.Month, l.Reason, l.Scope
	}
	return []any{r.org, types, months, reasons, scopes}
}

func (r *playerReader) TopLevel(ctx context.Context, lists []sqlstore.PlayerList) (int, error) {
	var top int
	// Each list's highest level through the key, not every level of it.
	err := r.tx.QueryRow(ctx, `SELECT coalesce(max(x.level), 0)::int
		FROM unnest($2::text[], $3::timestamptz[], $4::text[], $5::text[]) AS k(type, month, reason, scope)
		CROSS JOIN LATERAL (SELECT l.level FROM insight_player_levels l WHERE l.org = $1 AND l.type = k.type
			AND l.month = k.month AND l.reason = k.reason AND l.scope = k.scope ORDER BY l.level DESC LIMIT 1) x`,
		r.listArgs(lists)...).Scan(&top)
	return top, err
}

func (r *playerReader) Level(ctx context.Context, lists []sqlstore.PlayerList, k int) ([]string, error) {
	rows, _ := r.tx.Query(ctx, "SELECT DISTINCT l.platform_user_id"+levelsOfLists+" AND l.level = $6",
		append(r.listArgs(lists), k)...)
	return pgx.CollectRows(rows, pgx.RowTo[string])
}

func (r *playerReader) Rolled(ctx context.Context, players []string) (map[string]sqlstore.Outcomes, error) {
	q := query{args: []any{r.org}}
	var parts []string
	for _, part := range sqlstore.RollupParts(r.plan) {
		conds := rollupConditions(sqlstore.RollupFilter(r.f), q.arg)
		if players == nil {
			conds = append(conds, "e.month >= "+q.arg(part.From), "e.month < "+q.arg(part.To))
		} else {
			// Each month and player through the key.
			var months []time.Time
			for m := part.From; m.Before(part.To); m = m.AddDate(0, 1, 0) {
				months = append(months, m)
			}
			conds = append(conds, "e.month = ANY("+q.arg(months)+"::timestamptz[])", "e.platform_user_id = ANY("+q.arg(players)+"::text[])")
		}
		parts = append(parts, "SELECT e.platform_user_id AS k, e.type AS t, e.n AS n FROM insight_player_months e WHERE e.org = $1 AND "+
			strings.Join(conds, " AND "))
	}
	return r.outcomes(ctx, "", parts, q.args)
}
