package sqlite_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/gatehouse/gatehouse"
	"github.com/google/uuid"
)

// TestRefreshStatisticsWaitsForALull: the statistics round analyzes only
// when this process's writer has been idle a while, since ANALYZE holds
// the one writer for a time that grows with the table; an import's
// forced refresh analyzes at once.
func TestRefreshStatisticsWaitsForALull(t *testing.T) {
	ctx := context.Background()
	db, org, _, ap := oneDoor(t)
	var mu sync.Mutex
	now := time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC)
	db.Now = func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	wait := func(d time.Duration) { mu.Lock(); now = now.Add(d); mu.Unlock() }
	ingest := func() {
		t.Helper()
		events := make([]gatehouse.NewEvent, 500)
		for i := range events {
			user := fmt.Sprint(i % 50)
			events[i] = gatehouse.NewEvent{ID: uuid.New(), Type: gatehouse.EventAccessGranted, Allowed: ptr(gatehouse.Granted),
				OccurredAt: now.Add(-time.Duration(i) * time.Second), AccessPointID: ap.ID, PlatformUserID: &user}
		}
		if _, err := db.IngestEvents(ctx, org.ID, events); err != nil {
			t.Fatal(err)
		}
	}
	analyzed := func() int {
		t.Helper()
		n, err := db.IntForTest(ctx, "SELECT count(*) FROM sqlite_master WHERE name = 'sqlite_stat1'")
		if err == nil && n > 0 {
			n, err = db.IntForTest(ctx, "SELECT count(*) FROM sqlite_stat1 WHERE tbl = 'events'")
		}
		if err != nil {
			t.Fatal(err)
		}
		return n
	}

	ingest()
	if did, err := db.RefreshStatistics(ctx, false); err != nil || did {
		t.Fatalf("right after a write: RefreshStatistics = %v, %v; want it to wait", did, err)
	}
	wait(500 * time.Millisecond)
	if did, err := db.RefreshStatistics(ctx, false); err != nil || did {
		t.Fatalf("half a second after a write: RefreshStatistics = %v, %v; want it to wait", did, err)
	}
	if n := analyzed(); n != 0 {
		t.Fatalf("%d statistics of events gathered while writes went on", n)
	}
	wait(time.Second)
	if did, err := db.RefreshStatistics(ctx, false); err != nil || !did {
		t.Fatalf("after a lull: RefreshStatistics = %v, %v; want it done", did, err)
	}

	ingest()
	if did, err := db.RefreshStatistics(ctx, true); err != nil || !did {
		t.Fatalf("forced: RefreshStatistics = %v, %v; want it done", did, err)
	}
	if n := analyzed(); n == 0 {
		t.Fatal("forced: no statistics of events gathered")
	}
}
