package postgres_test

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/gatehouse/gatehouse"
	"github.com/gatehouse/gatehouse/internal/postgres"
	"github.com/jackc/pgx/v5"
)

// TestCompactPartitions: a month that ended more than a week ago has every
// index of its partition rebuilt with fillfactor 100, once, and its events
// read as before; the current month and one that ended days ago are left;
// while a shard move into the database holds its lock, nothing is done;
// an invalid copy a rebuild cut short left is dropped.
func TestCompactPartitions(t *testing.T) {
	ctx := context.Background()
	now := time.Date(2026, 11, 5, 12, 0, 0, 0, time.UTC)
	p := newPartitioned(t, now)
	old, recent := now.AddDate(0, -3, 0), now.AddDate(0, 0, -10) // August; October, which ended 4.5 days before now
	for _, at := range []time.Time{old, old.Add(time.Hour), recent, now.Add(-time.Hour)} {
		p.ingest(t, p.org, p.door, gatehouse.NewID(), at)
	}
	before := p.ids(t, p.org)
	conn, err := pgx.Connect(ctx, p.dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)

	if _, err := conn.Exec(ctx, "SELECT pg_advisory_lock_shared($1)", postgres.MoveLock); err != nil {
		t.Fatal(err)
	}
	if n, err := p.db.CompactPartitions(ctx, now); !errors.Is(err, gatehouse.ErrConflict) || n != 0 {
		t.Errorf("during a move into the database: %d months, %v; want none, and a conflict", n, err)
	}
	if _, err := conn.Exec(ctx, "SELECT pg_advisory_unlock_all()"); err != nil {
		t.Fatal(err)
	}
	// A rebuild cut short left an invalid copy of an index of August's:
	// the pass drops it.
	if _, err := conn.Exec(ctx, `CREATE INDEX events_2026_08_by_time_ccnew ON events_2026_08 (org);
		UPDATE pg_index SET indisvalid = false WHERE indexrelid = 'events_2026_08_by_time_ccnew'::regclass`); err != nil {
		t.Fatal(err)
	}
	n, err := p.db.CompactPartitions(ctx, now)
	if err != nil {
		t.Fatal(err)
	}
	var left bool
	if err := conn.QueryRow(ctx, "SELECT to_regclass('events_2026_08_by_time_ccnew') IS NOT NULL").Scan(&left); err != nil || left {
		t.Errorf("the invalid copy is left (%v)", err)
	}
	var packed []string
	rows, _ := conn.Query(ctx, `SELECT c.relname FROM pg_class c WHERE c.relname ~ '^events_[0-9]{4}_[0-9]{2}$'
		AND obj_description(c.oid, 'pg_class') IS NOT NULL
		AND NOT EXISTS (SELECT 1 FROM pg_index i JOIN pg_class ic ON ic.oid = i.indexrelid
			WHERE i.indrelid = c.oid AND NOT coalesce(ic.reloptions, '{}') @> '{fillfactor=100}')
		AND c.relnamespace = (SELECT relnamespace FROM pg_class WHERE oid = 'events'::regclass) ORDER BY 1`)
	if packed, err = pgx.CollectRows(rows, pgx.RowTo[string]); err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(packed, "events_2026_08") || slices.Contains(packed, "events_2026_10") || slices.Contains(packed, "events_2026_11") {
		t.Errorf("months rebuilt: %v; want August (and the empty months before it), not October or November", packed)
	}
	if n != len(packed) {
		t.Errorf("CompactPartitions said %d months, %d are marked", n, len(packed))
	}
	if again, err := p.db.CompactPartitions(ctx, now); err != nil || again != 0 {
		t.Errorf("a second pass: %d months, %v; want none", again, err)
	}
	if after := p.ids(t, p.org); !slices.Equal(after, before) {
		t.Errorf("events after the rebuild %v, before %v", after, before)
	}
}
