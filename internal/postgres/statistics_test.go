package postgres_test

import (
	"context"
	"testing"
	"time"

	"github.com/gatehouse/gatehouse"
)

// TestRefreshStatistics: the statistics of events are gathered when asked
// to (after an import), and not again while little changed: a round of
// the background check on a quiet table costs one read of the server's
// counters, not an ANALYZE.
func TestRefreshStatistics(t *testing.T) {
	ctx := context.Background()
	d := newDoor(t)
	db, org, ap := d.db, d.org, d.ap
	var events []gatehouse.NewEvent
	granted := gatehouse.Granted
	for i := range 50 {
		events = append(events, gatehouse.NewEvent{ID: gatehouse.NewID(), Type: gatehouse.EventAccessGranted, Allowed: &granted,
			AccessPointID: ap.ID, OccurredAt: time.Date(2026, 11, 20, 12, i, 0, 0, time.UTC)})
	}
	if _, err := db.IngestEvents(ctx, org.ID, events); err != nil {
		t.Fatal(err)
	}
	rows := func() float64 {
		n, err := db.FloatForTest(ctx, "SELECT reltuples FROM pg_class WHERE oid = 'events'::regclass")
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	if did, err := db.RefreshStatistics(ctx, false); err != nil || did || rows() > 0 {
		t.Fatalf("50 events changed: RefreshStatistics = %v, %v, %v rows known; want nothing gathered", did, err, rows())
	}
	if did, err := db.RefreshStatistics(ctx, true); err != nil || !did || rows() != 50 {
		t.Fatalf("forced: RefreshStatistics = %v, %v, %v rows known; want 50", did, err, rows())
	}
}

// TestRefreshStatisticsOutlastsRequests: gathering the statistics of
// every month is not bound by the statement timeout of requests (an
// import of 10 M events once failed at its end on it).
func TestRefreshStatisticsOutlastsRequests(t *testing.T) {
	ctx := context.Background()
	d := newDoor(t)
	var events []gatehouse.NewEvent
	for i := range 5000 {
		events = append(events, gatehouse.NewEvent{ID: gatehouse.NewID(), Type: gatehouse.EventAccessDenied,
			AccessPointID: d.ap.ID, OccurredAt: time.Date(2026, time.Month(1+i%12), 1+i%28, 12, 0, i%60, 0, time.UTC)})
	}
	if _, err := d.db.IngestEvents(ctx, d.org.ID, events); err != nil {
		t.Fatal(err)
	}
	db := open(t, d.dsn+"&statement_timeout=5")
	if did, err := db.RefreshStatistics(ctx, true); err != nil || !did {
		t.Fatalf("with requests bound to 5 ms: RefreshStatistics = %v, %v; want the statistics gathered", did, err)
	}
}
