package postgres_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/gatehouse/gatehouse"
	"github.com/gatehouse/gatehouse/internal/testenv"
)

// TestNarrowIndexMigration: 0032 gives every month the narrow indexes,
// and a month retention had detached before it (not dropped yet) gets
// them when it is attached again, with none of the old ones left beside
// them.
func TestNarrowIndexMigration(t *testing.T) {
	ctx := context.Background()
	now := time.Date(2026, 3, 15, 12, 0, 0, 0, time.UTC)
	db := open(t, testenv.PostgresDSN(t))
	if err := db.MigrateThroughForTest(ctx, 31); err != nil {
		t.Fatal(err)
	}
	p := &partitioned{db: db, now: now}
	db.Now = func() time.Time { return p.now }
	p.org, p.door = p.place(t, "Acme")
	jan := time.Date(2026, 1, 10, 0, 0, 0, 0, time.UTC)
	if err := db.ExecForTest(ctx, "SELECT events_add_months($1)", []time.Time{jan, now}); err != nil {
		t.Fatal(err)
	}
	for _, at := range []time.Time{jan, now.Add(-time.Hour)} { // in the row before 0033
		ev := gatehouse.NewEvent{ID: gatehouse.NewID(), Type: gatehouse.EventAccessDenied, Allowed: new(gatehouse.Denied),
			AccessPointID: p.door.ID, OccurredAt: at}
		if _, err := db.IngestBeforePartitionsForTest(ctx, p.org.ID, []gatehouse.NewEvent{ev}); err != nil {
			t.Fatal(err)
		}
	}
	if err := db.ExecForTest(ctx, "ALTER TABLE events DETACH PARTITION events_2026_01"); err != nil {
		t.Fatal(err)
	}
	if err := db.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	if !p.ingest(t, p.org, p.door, gatehouse.NewID(), jan.Add(time.Hour)) { // attaches January again
		t.Fatal("January's event not stored")
	}
	want := []string{ // as 0033 to 0035 leave them, on their columns
		"(org, access_point, occurred_at) WITH (fillfactor='100')",
		"(org, id, occurred_at) WITH (fillfactor='100')",
		"(org, location, occurred_at) WITH (fillfactor='100')",
		"(org, occurred_at) WITH (fillfactor='100')",
		"(org, platform_user_id, occurred_at) WITH (fillfactor='100')",
		"(org, reason, occurred_at) WITH (fillfactor='100') WHERE (reason IS NOT NULL)",
		"(org, scope, occurred_at) WITH (fillfactor='100') WHERE (scope IS NOT NULL)",
		"(org, server_job_id, occurred_at) WITH (fillfactor='100') WHERE (server_job_id IS NOT NULL)",
		"(org, type, occurred_at) WITH (fillfactor='100') WHERE (type <> 'g'::\"char\")",
		"(org, xid, ((seq >> 5))) WITH (fillfactor='100')",
	}
	for _, month := range []string{"events_2026_01", "events_2026_03"} {
		got, err := db.StringsForTest(ctx, `SELECT regexp_replace(pg_get_indexdef(i.indexrelid), '^.* USING btree ', '')
				|| CASE WHEN EXISTS (SELECT 1 FROM pg_inherits h WHERE h.inhrelid = i.indexrelid) THEN '' ELSE ' (no parent)' END
			FROM pg_index i WHERE i.indrelid = $1::regclass ORDER BY 1`, month)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Errorf("%s's indexes:\n%s\nwant:\n%s", month, strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
	}
	// March, past by the database's clock, was built packed: marked as
	// rebuilt. January was no partition then: its next rebuild packs it.
	marks, err := db.StringsForTest(ctx, `SELECT coalesce(obj_description(c.oid, 'pg_class'), '-') FROM pg_class c
		WHERE c.relname IN ('events_2026_01', 'events_2026_03') ORDER BY c.relname`)
	if err != nil || strings.Join(marks, ", ") != "-, gatehouse: indexes rebuilt packed" {
		t.Errorf("marks of January and March: %q, %v", marks, err)
	}
	if ids := p.ids(t, p.org); len(ids) != 3 {
		t.Errorf("%d events, want 3", len(ids))
	}
}
