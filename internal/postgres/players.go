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
// commit an event before it), into the player rollup, and returns how
// many it read and the new position ("" when none).
const foldPlayers = `WITH batch AS MATERIALIZED (
		SELECT xid, seq, type, occurred_at, platform_user_id, reason, scope FROM events
		WHERE org = $1 AND (xid, seq) > ($2::text::xid8, $3) AND xid < pg_snapshot_xmin(pg_current_snapshot())
		ORDER BY xid, seq LIMIT $4),
	folded AS (
		INSERT INTO insight_player_months AS r (org, platform_user_id, type, month, reason, scope, n)
		SELECT $1, platform_user_id, type, date_trunc('month', occurred_at AT TIME ZONE 'UTC') AT TIME ZONE 'UTC',
			coalesce(reason, ''), coalesce(scope, ''), count(*)
		FROM batch WHERE platform_user_id IS NOT NULL GROUP BY 2, 3, 4, 5, 6 ORDER BY 2, 3, 4, 5, 6
		ON CONFLICT (org, platform_user_id, type, month, reason, scope) DO UPDATE SET n = r.n + excluded.n)
	SELECT (SELECT count(*) FROM batch)::int, coalesce((SELECT xid::text FROM batch ORDER BY xid DESC, seq DESC LIMIT 1), ''),
		coalesce((SELECT seq FROM batch ORDER BY xid DESC, seq DESC LIMIT 1), 0)`

// RollInsights implements gatehouse.Store: it takes the organization
// whose player rollup has waited longest (its cursor row, locked FOR
// UPDATE SKIP LOCKED, is the lease: every instance rolls, none twice),
// folds up to sqlstore.RollBatch of its events, and reports whether it
// took one (migration 0025).
func (db *DB) RollInsights(ctx context.Context, now time.Time) (more bool, err error) {
	defer sqlstore.Label(&err, "Store.RollInsights")
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
			more = false
			return nil
		}
		if err != nil {
			return err
		}
		more = true
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
	return more, wrap(err)
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

func (r *playerReader) Events(ctx context.Context) (map[string]sqlstore.Outcomes, error) {
	q := query{args: []any{r.org}}
	// The events not folded yet, read by position (the feed's index),
	// not through an index on time that would read the whole part.
	tail := "WITH tail AS MATERIALIZED (SELECT * FROM events WHERE org = $1 AND (xid, seq) > (" +
		q.arg(r.txn) + "::text::xid8, " + q.arg(r.seq) + "))"
	var parts []string
	for _, part := range r.plan {
		conds, _ := filterConditions(sqlstore.EventsFilter(r.f, part), q.arg)
		from := "events e WHERE e.org = $1"
		if part.Rollup() {
			from = "tail e WHERE true"
		}
		parts = append(parts, "SELECT e.platform_user_id AS k, e.type AS t, "+strconv.Itoa(part.Sign)+" AS n FROM "+from+
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
		q := query{args: []any{r.org}}
		conds, _ := filterConditions(sqlstore.RollupFilter(r.f), q.arg)
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

func (r *playerReader) Top(ctx context.Context, lists []sqlstore.PlayerList, offset, n int) ([][]sqlstore.PlayerRow, error) {
	var (
		types, reasons, scopes = make([]string, len(lists)), make([]string, len(lists)), make([]string, len(lists))
		months                 = make([]time.Time, len(lists))
	)
	for i, l := range lists {
		types[i], months[i], reasons[i], scopes[i] = l.Type, l.Month, l.Reason, l.Scope
	}
	rows, _ := r.tx.Query(ctx, `SELECT l.i::int, p.platform_user_id, p.n
		FROM unnest($2::text[], $3::timestamptz[], $4::text[], $5::text[]) WITH ORDINALITY AS l(type, month, reason, scope, i)
		CROSS JOIN LATERAL (SELECT m.platform_user_id, m.n FROM insight_player_months m
			WHERE m.org = $1 AND m.type = l.type AND m.month = l.month AND m.reason = l.reason AND m.scope = l.scope
			ORDER BY m.n DESC, m.platform_user_id COLLATE "C" LIMIT $6 OFFSET $7) p`,
		r.org, types, months, reasons, scopes, n, offset)
	out := make([][]sqlstore.PlayerRow, len(lists))
	var (
		i   int
		row sqlstore.PlayerRow
	)
	_, err := pgx.ForEachRow(rows, []any{&i, &row.Player, &row.N}, func() error {
		out[i-1] = append(out[i-1], row)
		return nil
	})
	return out, err
}

func (r *playerReader) Rolled(ctx context.Context, players []string) (map[string]sqlstore.Outcomes, error) {
	q := query{args: []any{r.org}}
	list := q.arg(players)
	var parts []string
	for _, part := range r.rollupParts() {
		conds, _ := filterConditions(sqlstore.RollupFilter(r.f), q.arg)
		conds = append(conds, "e.platform_user_id = ANY("+list+"::text[])", "e.month >= "+q.arg(part.From), "e.month < "+q.arg(part.To))
		parts = append(parts, "SELECT e.platform_user_id AS k, e.type AS t, e.n AS n FROM insight_player_months e WHERE e.org = $1 AND "+
			strings.Join(conds, " AND "))
	}
	return r.outcomes(ctx, "", parts, q.args)
}
