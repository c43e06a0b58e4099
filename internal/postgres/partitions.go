package postgres

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/gatehouse/gatehouse"
	"github.com/gatehouse/gatehouse/internal/sqlstore"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// Events are partitioned by the UTC month they occurred in (migration
// 0029, docs/decisions.md "Partitioning events by time"): the months
// ahead are made by every instance (AddEventPartitions), a month a write
// needs by the instance that writes, before it writes (withMonths; both
// in months.go), and a month past every organization's retention is
// dropped whole (DropExpiredPartitions).

// MoveLock is the advisory lock of the partitions' upkeep: a shard move
// into or out of the database holds it (shared) from its bulk copy to its
// end, and retention's dropping of months and the rebuild of each month
// (CompactPartitions) try it (exclusive). The months a move made look
// empty until it commits, and a rebuild running on its source would hold
// the move's freeze (internal/shards).
const MoveLock = 7165536403245901588

// partitionsLock is the advisory lock of events_add_months (migration
// 0029): a month's partition is made, attached again or dropped by one
// transaction at a time.
const partitionsLock = 7165536403245901587

// DropExpiredPartitions implements gatehouse.EventPartitioner: it drops
// each month's partition that ended before the shortest retention allowed
// and holds no event of an organization whose retention
// (gatehouse.RetentionCutoff at now) still keeps some of the month, with
// the month's rows of the insight rollups, and returns how many it
// dropped. Retention then deletes by rows only at the edge.
//
// A month is detached first (DETACH … CONCURRENTLY, which waits for every
// transaction that could still see it), then checked again and dropped in
// one transaction; an event that arrived before the detach puts the
// month back, and an ingest that meets the month detached attaches it
// again (events_add_months).
func (db *DB) DropExpiredPartitions(ctx context.Context, now time.Time) (_ int, err error) {
	defer sqlstore.Label(&err, "Store.DropExpiredPartitions")
	// A shard move into this database holds MoveLock while its copy is
	// uncommitted (the months it made look empty until then), and a
	// rebuild of a month holds it too: the pass waits for the next one.
	conn, err := db.pool.Acquire(ctx)
	if err != nil {
		return 0, wrap(err)
	}
	defer conn.Release()
	unlock, err := tryUpkeep(ctx, conn)
	if unlock == nil {
		return 0, err
	}
	defer unlock()
	dropped := 0
	// A pass that stopped between its detach and its drop left the month
	// pending or detached.
	left, err := db.monthTables(ctx, `i.inhdetachpending OR i.inhrelid IS NULL`)
	if err != nil {
		return 0, err
	}
	for _, p := range left {
		if p.pending {
			if err := db.detach(ctx, p, "FINALIZE"); err != nil {
				return dropped, err
			}
		}
		n, err := db.dropDetached(ctx, p, now)
		if dropped += n; err != nil {
			return dropped, err
		}
	}
	parts, err := db.monthTables(ctx, `i.inhrelid IS NOT NULL AND NOT i.inhdetachpending`)
	if err != nil {
		return dropped, err
	}
	for _, p := range parts {
		if p.end.After(oldestCutoff(now)) {
			break // this month and the later ones: within every retention
		}
		keeping, err := keepers(ctx, db.pool, p, now)
		if err != nil {
			return dropped, err
		}
		if keeping {
			continue
		}
		if err := db.detach(ctx, p, "CONCURRENTLY"); err != nil {
			return dropped, err
		}
		n, err := db.dropDetached(ctx, p, now)
		if dropped += n; err != nil {
			return dropped, err
		}
	}
	return dropped, nil
}

// detach runs DETACH PARTITION … how (CONCURRENTLY, FINALIZE) on a
// connection of its own, with a statement timeout of detachTimeout
// rather than the requests': it waits for every transaction that could
// still see the month (a backup, a long report), holding only what keeps
// another attach or detach out. Cut short, it leaves the month pending,
// out of every read and write, for the next pass to finish.
func (db *DB) detach(ctx context.Context, p monthPartition, how string) error {
	conn, err := db.pool.Acquire(ctx)
	if err != nil {
		return wrap(err)
	}
	defer conn.Release()
	restore, err := setFor(ctx, conn, fmt.Sprintf("statement_timeout = %d", detachTimeout.Milliseconds()))
	if err != nil {
		return err
	}
	defer restore()
	_, err = conn.Exec(ctx, "ALTER TABLE events DETACH PARTITION "+p.ident()+" "+how)
	return wrap(err)
}

// setFor sets the settings (name = value, each) on conn, a connection of
// the pool, and returns what sets them back, or closes the connection
// when it cannot: it never goes back to the pool without the timeouts
// every request relies on.
func setFor(ctx context.Context, conn *pgxpool.Conn, settings ...string) (restore func(), err error) {
	var set, reset []string
	for _, s := range settings {
		set = append(set, "SET "+s)
		reset = append(reset, "RESET "+strings.TrimSpace(strings.SplitN(s, "=", 2)[0]))
	}
	restore = func() {
		if _, err := conn.Exec(context.WithoutCancel(ctx), strings.Join(reset, "; ")); err != nil {
			conn.Conn().Close(context.WithoutCancel(ctx))
		}
	}
	if _, err := conn.Exec(ctx, strings.Join(set, "; ")); err != nil {
		restore()
		return nil, wrap(err)
	}
	return restore, nil
}

// tryUpkeep takes MoveLock on conn if no one holds it, and returns what
// releases it; nil when it is taken (err says why when it is an error).
func tryUpkeep(ctx context.Context, conn *pgxpool.Conn) (unlock func(), err error) {
	var free bool
	if err := conn.QueryRow(ctx, "SELECT pg_try_advisory_lock($1)", MoveLock).Scan(&free); err != nil || !free {
		return nil, wrap(err)
	}
	return func() {
		if _, err := conn.Exec(context.WithoutCancel(ctx), "SELECT pg_advisory_unlock($1)", MoveLock); err != nil {
			conn.Conn().Close(context.WithoutCancel(ctx)) // a session's advisory lock ends with it
		}
	}, nil
}

// detachTimeout bounds one detach: within the retention pass's lease.
const detachTimeout = time.Minute

// monthPartition is the table of one month of events.
type monthPartition struct {
	name       string
	start, end time.Time
	pending    bool // its detach began and did not finish
}

func (p monthPartition) ident() string { return pgx.Identifier{p.name}.Sanitize() }

// monthTables lists the tables of months (events_YYYY_MM) for which cond
// holds, oldest first; i is their row of pg_inherits (NULL when
// detached). The legacy partition, which holds everything before the
// migration, is deleted by rows.
func (db *DB) monthTables(ctx context.Context, cond string) ([]monthPartition, error) {
	rows, _ := db.pool.Query(ctx, `SELECT c.relname, coalesce(i.inhdetachpending, false) FROM pg_class c
		LEFT JOIN pg_inherits i ON i.inhrelid = c.oid AND i.inhparent = 'events'::regclass
		WHERE c.relkind = 'r' AND c.relnamespace = (SELECT relnamespace FROM pg_class WHERE oid = 'events'::regclass)
			AND c.relname ~ '^events_[0-9]{4}_[0-9]{2}$' AND (`+cond+`) ORDER BY c.relname`)
	var (
		parts   []monthPartition
		name    string
		pending bool
	)
	_, err := pgx.ForEachRow(rows, []any{&name, &pending}, func() error {
		start, err := time.Parse("events_2006_01", name)
		if err != nil {
			return fmt.Errorf("partition %s: %w", name, err)
		}
		parts = append(parts, monthPartition{name: name, start: start, end: start.AddDate(0, 1, 0), pending: pending})
		return nil
	})
	return parts, wrap(err)
}

// oldestCutoff is the latest instant any organization's retention can
// have deleted through at now: a month that ends after it is kept,
// events or not (the months ahead are empty).
func oldestCutoff(now time.Time) time.Time {
	return gatehouse.RetentionCutoff(now, gatehouse.MinRetentionDays)
}

// keepers reports whether partition p holds an event of an organization
// whose retention keeps some of its month: one probe of its index for
// each organization whose cutoff is before the month's end.
func keepers(ctx context.Context, q querier, p monthPartition, now time.Time) (bool, error) {
	rows, _ := q.Query(ctx, "SELECT seq, retention_days FROM organizations")
	var (
		orgs []int64
		org  int64
		days int
	)
	if _, err := pgx.ForEachRow(rows, []any{&org, &days}, func() error {
		if gatehouse.RetentionCutoff(now, days).Before(p.end) {
			orgs = append(orgs, org)
		}
		return nil
	}); err != nil || len(orgs) == 0 {
		return false, wrap(err)
	}
	var keeping bool
	err := q.QueryRow(ctx, "SELECT EXISTS (SELECT 1 FROM unnest($1::bigint[]) o WHERE EXISTS (SELECT 1 FROM "+p.ident()+" WHERE org = o))",
		orgs).Scan(&keeping)
	return keeping, wrap(err)
}

// dropDetached drops the detached month p with its rollup rows and
// returns 1, or attaches it again and returns 0 when it holds an event
// that retention keeps (one arrived before the detach), or does nothing
// when an ingest attached it again meanwhile.
func (db *DB) dropDetached(ctx context.Context, p monthPartition, now time.Time) (int, error) {
	dropped := 0
	err := db.withTx(ctx, func(tx pgx.Tx) error {
		dropped = 0
		if _, err := tx.Exec(ctx, "SELECT pg_advisory_xact_lock($1)", int64(partitionsLock)); err != nil {
			return err
		}
		var attached bool
		if err := tx.QueryRow(ctx, "SELECT relispartition FROM pg_class WHERE oid = $1::regclass", p.name).Scan(&attached); err != nil || attached {
			return err
		}
		keeping, err := keepers(ctx, tx, p, now)
		if err != nil {
			return err
		}
		if keeping || p.end.After(oldestCutoff(now)) {
			// Attached again as ingest would (the lock is this
			// transaction's already).
			_, err := tx.Exec(ctx, "SELECT events_add_months($1)", []time.Time{p.start})
			return err
		}
		// The rollups' rows of the month, which counted only its events:
		// every rollup's bucket (an hour, a day, a month; UTC) lies in
		// one month. The player rollup's levels go by the same range, and
		// its rows without their trigger (insight_player_gone), which
		// would look for each player's levels apart: a month of 26,000
		// rows took 22 s with it, 0.12 s without (the fold waits that
		// long for the table).
		for _, r := range []struct{ table, bucket string }{
			{"insight_hour_totals", "hour"}, {"insight_hours", "hour"}, {"insight_days", "day"},
			{"insight_door_days", "day"}, {"insight_door_months", "month"}, {"insight_player_levels", "month"},
		} {
			if _, err := tx.Exec(ctx, "DELETE FROM "+r.table+" WHERE "+r.bucket+" >= $1 AND "+r.bucket+" < $2", p.start, p.end); err != nil {
				return err
			}
		}
		if _, err := tx.Exec(ctx, "ALTER TABLE insight_player_months DISABLE TRIGGER insight_player_gone"); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, "DELETE FROM insight_player_months WHERE month >= $1 AND month < $2", p.start, p.end); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, "ALTER TABLE insight_player_months ENABLE TRIGGER insight_player_gone"); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, "DROP TABLE "+p.ident()); err != nil {
			return err
		}
		dropped = 1
		return nil
	})
	if dropped == 1 {
		db.months.Delete(p.start)
	}
	return dropped, wrap(err)
}

// ForgetRecentIDs implements gatehouse.EventPartitioner, 5,000 ids a
// statement.
func (db *DB) ForgetRecentIDs(ctx context.Context, before time.Time) (_ int, err error) {
	defer sqlstore.Label(&err, "Store.ForgetRecentIDs")
	total := 0
	for {
		tag, err := db.pool.Exec(ctx, `DELETE FROM recent_event_ids WHERE (org, id) IN
			(SELECT org, id FROM recent_event_ids WHERE received_at < $1 LIMIT 5000)`, before)
		total += int(tag.RowsAffected())
		if err != nil || tag.RowsAffected() < 5000 {
			return total, wrap(err)
		}
	}
}
