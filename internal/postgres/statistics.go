package postgres

import (
	"context"

	"github.com/gatehouse/gatehouse/internal/sqlstore"
)

// Statistics are gathered again when this many events changed since the
// last time, or this share of the table, whichever is more: the planner
// needs the distribution of types, reasons and players, which a bulk
// load changes and a day's trickle does not.
const (
	analyzeMin   = 100_000
	analyzeShare = 0.2
)

// RefreshStatistics gathers the statistics of events and search_terms
// (ANALYZE, which samples some 30,000 rows whatever the table's size)
// when enough events changed since they were last gathered, by the
// server's own count of changes (pg_stat_user_tables), or when force is
// set.
func (db *DB) RefreshStatistics(ctx context.Context, force bool) (_ bool, err error) {
	defer sqlstore.Label(&err, "Store.RefreshStatistics")
	if !force {
		var changed, rows float64
		// The partitions' counts: PostgreSQL keeps none for a
		// partitioned table.
		err := db.pool.QueryRow(ctx, `SELECT coalesce(sum(s.n_mod_since_analyze), 0), coalesce(sum(greatest(c.reltuples, 0)), 0)
			FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid LEFT JOIN pg_stat_user_tables s ON s.relid = c.oid
			WHERE i.inhparent = 'events'::regclass`).Scan(&changed, &rows)
		if err != nil {
			return false, wrap(err)
		}
		if changed < max(analyzeMin, analyzeShare*rows) {
			return false, nil
		}
	}
	// The sample of every month takes longer than a request may: 15 s
	// at 10 M events on a busy machine. SKIP_LOCKED: a month whose
	// indexes are being rebuilt (CompactPartitions) is analysed next time
	// rather than waited for.
	conn, err := db.pool.Acquire(ctx)
	if err != nil {
		return false, wrap(err)
	}
	defer conn.Release()
	restore, err := setFor(ctx, conn, "statement_timeout = 0")
	if err != nil {
		return false, err
	}
	defer restore()
	if _, err := conn.Exec(ctx, "ANALYZE (SKIP_LOCKED) events, search_terms"); err != nil {
		return false, wrap(err)
	}
	return true, nil
}
