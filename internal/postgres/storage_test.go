package postgres_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/gatehouse/gatehouse"
	"github.com/google/uuid"
)

// TestMeasureStorageSumsPartitions: events is a partitioned table (by
// month), and the report counts what its partitions and their indexes
// hold, not the empty parent.
func TestMeasureStorageSumsPartitions(t *testing.T) {
	ctx := context.Background()
	d := newDoor(t)
	db, org, ap := d.db, d.org, d.ap
	var events []gatehouse.NewEvent
	granted := gatehouse.Granted
	for i := range 400 {
		events = append(events, gatehouse.NewEvent{ID: gatehouse.NewID(), Type: gatehouse.EventAccessGranted, Allowed: &granted,
			AccessPointID: ap.ID, OccurredAt: time.Date(2026, 10, 20, 12, 0, 0, 0, time.UTC).Add(time.Duration(i) * time.Hour)})
	}
	if _, err := db.IngestEvents(ctx, org.ID, events); err != nil {
		t.Fatal(err)
	}
	size := func(query string) int64 {
		n, err := db.FloatForTest(ctx, query)
		if err != nil {
			t.Fatal(err)
		}
		return int64(n)
	}
	// Every month's, the empty ones ahead included.
	heap := size(`SELECT sum(pg_relation_size(r, 'main') + pg_relation_size(r, 'fsm') + pg_relation_size(r, 'vm'))
		FROM (SELECT inhrelid AS r FROM pg_inherits WHERE inhparent = 'events'::regclass) p`)
	byTime := size(`SELECT sum(pg_relation_size(inhrelid)) FROM pg_inherits WHERE inhparent = 'events_by_time'::regclass`)
	if n := size(`SELECT count(*) FROM pg_inherits WHERE inhparent = 'events'::regclass AND inhrelid IN ('events_2026_10'::regclass, 'events_2026_11'::regclass)`); n != 2 {
		t.Fatalf("the partitions of October and November: %d", n)
	}

	rep, err := db.MeasureStorage(ctx, org.ID, 40)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]gatehouse.StorageRelation{}
	for _, r := range rep.Relations {
		got[r.Name] = r
	}
	if rep.Events != 400 || rep.OrgEvents == nil || *rep.OrgEvents != 400 || rep.SampledRows == 0 || rep.RowBytes <= 0 {
		t.Errorf("%d events, the organization's %v, %d sampled, row %.1f bytes", rep.Events, rep.OrgEvents, rep.SampledRows, rep.RowBytes)
	}
	if heap <= 0 || got["events"].Bytes != heap || got["events"].Rows != 400 {
		t.Errorf("events: %+v, want the partitions' %d bytes", got["events"], heap)
	}
	if byTime <= 0 || got["events_by_time"].Bytes != byTime || got["events_by_time"].Definition != "(org, occurred_at) WITH (fillfactor='100')" {
		t.Errorf("events_by_time: %+v, want the partitions' %d bytes", got["events_by_time"], byTime)
	}
	if tot := rep.Totals(); tot.Events < heap+byTime || rep.AllBytes < tot.WithSide {
		t.Errorf("totals %+v, all %d", tot, rep.AllBytes)
	}
	if _, err := db.MeasureStorage(ctx, uuid.New(), 40); !errors.Is(err, gatehouse.ErrNotFound) {
		t.Errorf("an unknown organization: %v, want ErrNotFound", err)
	}
}
