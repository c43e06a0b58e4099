package postgres_test

import (
	"context"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gatehouse/gatehouse"
	"github.com/gatehouse/gatehouse/internal/testenv"
)

// TestFeedIndexRuns: 0035 keys the feed's index by runs of 32 events of
// a transaction, deduplicated, so that a transaction of a thousand
// events takes a few pages where an entry an event took ten; a month
// retention detached before it loses its old index, and attached again
// gets the new one alone; the feed reads every event once, in order,
// across runs and transactions.
func TestFeedIndexRuns(t *testing.T) {
	ctx := context.Background()
	now := time.Date(2026, 3, 15, 12, 0, 0, 0, time.UTC)
	db := open(t, testenv.PostgresDSN(t))
	if err := db.MigrateThroughForTest(ctx, 34); err != nil {
		t.Fatal(err)
	}
	p := &partitioned{db: db, now: now}
	db.Now = func() time.Time { return p.now }
	p.org, p.door = p.place(t, "Acme")
	jan := time.Date(2026, 1, 10, 0, 0, 0, 0, time.UTC)
	if !p.ingest(t, p.org, p.door, gatehouse.NewID(), jan) {
		t.Fatal("January's event not stored")
	}
	if err := db.ExecForTest(ctx, "ALTER TABLE events DETACH PARTITION events_2026_01"); err != nil {
		t.Fatal(err)
	}
	if err := db.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	feedIndexes := func(month string) []string {
		t.Helper()
		got, err := db.StringsForTest(ctx, `SELECT regexp_replace(pg_get_indexdef(i.indexrelid), '^.* USING btree ', '')
			FROM pg_index i WHERE i.indrelid = $1::regclass AND pg_get_indexdef(i.indexrelid) LIKE '%xid%' ORDER BY 1`, month)
		if err != nil {
			t.Fatal(err)
		}
		return got
	}
	if got := feedIndexes("events_2026_01"); len(got) != 0 {
		t.Errorf("the detached month keeps %q", got)
	}
	if !p.ingest(t, p.org, p.door, gatehouse.NewID(), jan.Add(time.Hour)) { // attaches January again
		t.Fatal("January's second event not stored")
	}
	want := "(org, xid, ((seq >> 5))) WITH (fillfactor='100')"
	if got := feedIndexes("events_2026_01"); strings.Join(got, "; ") != want {
		t.Errorf("January's feed index: %q, want %s", got, want)
	}

	// Two transactions of 1,000 events in March. One entry an event would
	// take ten leaf pages of 8 kB (36 bytes each); runs take two or three.
	var batch []gatehouse.NewEvent
	for i := range 2000 {
		batch = append(batch, gatehouse.NewEvent{ID: gatehouse.NewID(), Type: gatehouse.EventAccessGranted, Allowed: new(gatehouse.Granted),
			AccessPointID: p.door.ID, OccurredAt: now.Add(-time.Duration(i) * time.Second)})
	}
	for _, b := range [][]gatehouse.NewEvent{batch[:1000], batch[1000:]} {
		if res, err := db.IngestEvents(ctx, p.org.ID, b); err != nil || res.Accepted != 1000 {
			t.Fatalf("ingest: %+v, %v", res, err)
		}
	}
	size, err := db.StringsForTest(ctx, `SELECT (pg_relation_size(i.indexrelid) / 8192)::text FROM pg_index i
		WHERE i.indrelid = 'events_2026_03'::regclass AND pg_get_indexdef(i.indexrelid) LIKE '%xid%'`)
	if err != nil || len(size) != 1 {
		t.Fatalf("March's feed index: %v, %v", size, err)
	}
	if pages, _ := strconv.Atoi(size[0]); pages > 5 { // a meta page, a root, leaves
		t.Errorf("March's feed index takes %d pages for 2,000 events, want at most 5", pages)
	}

	// The feed, a page of 45 at a time (pages end inside runs), reads
	// every event once, in order. (Its horizon is the cluster's: a page
	// comes back empty while another test's transaction runs.)
	seen := make(map[string]bool)
	after := gatehouse.FeedPosition{}
	for deadline := time.Now().Add(time.Minute); len(seen) < 2002 && time.Now().Before(deadline); {
		page, err := db.ReadFeed(ctx, p.org.ID, gatehouse.EventFilter{Limit: 45}, after)
		if err != nil {
			t.Fatal(err)
		}
		if len(page.Events) == 0 {
			time.Sleep(20 * time.Millisecond)
		}
		for i, ev := range page.Events {
			pos := page.Positions[i]
			if pos.Txn < after.Txn || pos.Txn == after.Txn && pos.Seq <= after.Seq {
				t.Fatalf("position %+v after %+v", pos, after)
			}
			if seen[ev.ID.String()] {
				t.Fatalf("event %s twice", ev.ID)
			}
			seen[ev.ID.String()], after = true, pos
		}
	}
	if len(seen) != 2002 {
		t.Errorf("the feed read %d events, want 2,002", len(seen))
	}
}
