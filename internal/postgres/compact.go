package postgres

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"time"

	"github.com/gatehouse/gatehouse"
	"github.com/gatehouse/gatehouse/internal/sqlstore"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// A month's partition of events, once it takes no more events, has its
// indexes rebuilt packed (docs/decisions.md, "Bytes per event", step 5):
// B-tree indexes that grow by inserts in the middle of their key order
// split their pages in halves and stay about half empty, and most of an
// event's bytes are its indexes.

// compactAfter is how long after its month ended a partition is rebuilt:
// events arrive late (a server's buffer, an import) mostly within days,
// and one that arrives after the rebuild still lands, splitting a page.
const compactAfter = 7 * 24 * time.Hour

// compactedMark is the comment a rebuilt month's table carries.
const compactedMark = "gatehouse: indexes rebuilt packed"

// CompactPartitions implements gatehouse.EventPartitioner: it rebuilds,
// with fillfactor 100, the indexes of every month's partition that ended
// compactAfter before now and has not been rebuilt, and returns how many
// months it rebuilt. REINDEX CONCURRENTLY lets reads and writes go on.
// Each month is rebuilt under MoveLock, which one instance takes at a
// time and which retention's dropping of months and a shard move into or
// out of the database hold too: while it is taken, the pass stops, with
// gatehouse.ErrConflict, and the next does the rest. A month that fails
// does not stop the others.
func (db *DB) CompactPartitions(ctx context.Context, now time.Time) (_ int, err error) {
	defer sqlstore.Label(&err, "Store.CompactPartitions")
	parts, err := db.monthTables(ctx, `i.inhrelid IS NOT NULL AND NOT i.inhdetachpending
		AND obj_description(c.oid, 'pg_class') IS DISTINCT FROM '`+compactedMark+`'`)
	if err != nil {
		return 0, err
	}
	parts = slices.DeleteFunc(parts, func(p monthPartition) bool { return now.Sub(p.end) < compactAfter })
	if len(parts) == 0 {
		return 0, nil
	}
	conn, err := db.pool.Acquire(ctx)
	if err != nil {
		return 0, wrap(err)
	}
	defer conn.Release()
	// A rebuild reads the whole month: no statement timeout, but it waits
	// a minute at most for a lock or an older transaction (a rebuild cut
	// short leaves an invalid copy, dropped by the next pass).
	restore, err := setFor(ctx, conn, "statement_timeout = 0", "lock_timeout = '1min'")
	if err != nil {
		return 0, err
	}
	defer restore()
	done := 0
	var errs []error
	for _, p := range parts {
		unlock, err := tryUpkeep(ctx, conn)
		if err != nil {
			return done, err
		}
		if unlock == nil {
			return done, errors.Join(append(errs, fmt.Errorf("%w: retention or a shard move holds the database's partitions; "+
				"%d months are left for the next pass", gatehouse.ErrConflict, len(parts)-done-len(errs)))...)
		}
		err = compactMonth(ctx, conn, p)
		unlock()
		if err != nil {
			errs = append(errs, err)
			continue
		}
		done++
	}
	return done, errors.Join(errs...)
}

// leftByRebuild matches the names REINDEX CONCURRENTLY gives the copies
// it makes, which it leaves invalid when it is cut short.
var leftByRebuild = regexp.MustCompile(`_cc(new|old)[0-9]*"?$`)

// compactMonth rebuilds the indexes of p one at a time, then marks it.
// A rebuild cut short leaves an invalid copy of its index (…_ccnew),
// which is dropped before the next try.
func compactMonth(ctx context.Context, conn *pgxpool.Conn, p monthPartition) error {
	rows, _ := conn.Query(ctx, `SELECT i.indexrelid::regclass::text, i.indisvalid FROM pg_index i
		WHERE i.indrelid = $1::regclass ORDER BY 2, 1`, p.name)
	var (
		names []string
		valid []bool
		name  string
		ok    bool
	)
	if _, err := pgx.ForEachRow(rows, []any{&name, &ok}, func() error {
		names, valid = append(names, name), append(valid, ok)
		return nil
	}); err != nil {
		return wrap(err)
	}
	// The copies a rebuild cut short left first (indisvalid false sorts
	// first), then the indexes.
	for i, name := range names {
		sql := []string{"ALTER INDEX " + name + " SET (fillfactor = 100)", "REINDEX INDEX CONCURRENTLY " + name}
		if !valid[i] {
			if !leftByRebuild.MatchString(name) {
				return fmt.Errorf("partition %s: index %s is invalid: rebuild or drop it by hand", p.name, name)
			}
			sql = []string{"DROP INDEX CONCURRENTLY " + name}
		}
		for _, q := range sql {
			if _, err := conn.Exec(ctx, q); err != nil {
				return fmt.Errorf("partition %s: %w", p.name, wrap(err))
			}
		}
	}
	_, err := conn.Exec(ctx, "COMMENT ON TABLE "+p.ident()+" IS '"+compactedMark+"'")
	return wrap(err)
}
