package postgres_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/gatehouse/gatehouse"
	"github.com/gatehouse/gatehouse/internal/testenv"
	"github.com/google/uuid"
)

// TestFeedMigration: migration 0012 gives a populated events table its
// feed positions. The events stored before it come first, in the order
// they were stored, then the events stored after it.
func TestFeedMigration(t *testing.T) {
	ctx := context.Background()
	db := open(t, testenv.PostgresDSN(t))
	if err := db.MigrateThroughForTest(ctx, 11); err != nil {
		t.Fatal(err)
	}
	now := time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)
	db.Now = func() time.Time { return now }
	org, err := db.CreateOrganization(ctx, gatehouse.SystemEntry(gatehouse.AuditOrganizationCreated), "Acme")
	if err != nil {
		t.Fatal(err)
	}
	loc, err := db.CreateLocation(ctx, gatehouse.SystemEntry(gatehouse.AuditLocationCreated), org.ID, "HQ")
	if err != nil {
		t.Fatal(err)
	}
	door, err := db.CreateAccessPoint(ctx, gatehouse.SystemEntry(gatehouse.AuditAccessPointCreated), org.ID, loc.ID, "Door")
	if err != nil {
		t.Fatal(err)
	}
	var want []uuid.UUID
	store := db.IngestBeforePartitionsForTest // the schema of 0011
	ingest := func(minutesAgo ...int) {
		t.Helper()
		for _, m := range minutesAgo {
			ev := gatehouse.NewEvent{ID: gatehouse.NewID(), Type: gatehouse.EventAccessGranted, AccessPointID: door.ID,
				OccurredAt: now.Add(-time.Duration(m) * time.Minute)}
			if _, err := store(ctx, org.ID, []gatehouse.NewEvent{ev}); err != nil {
				t.Fatal(err)
			}
			want = append(want, ev.ID)
		}
	}
	ingest(3, 60, 1) // stored in this order, whatever they occurred
	if err := db.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	store = db.IngestEvents
	ingest(500, 2)
	var got []uuid.UUID
	var at gatehouse.FeedPosition
	for deadline := time.Now().Add(10 * time.Second); len(got) < len(want) && time.Now().Before(deadline); {
		page, err := db.ReadFeed(ctx, org.ID, gatehouse.EventFilter{Limit: 2}, at)
		if err != nil {
			t.Fatal(err)
		}
		for _, ev := range page.Events {
			got = append(got, ev.ID)
		}
		at = page.Next
	}
	if !slices.Equal(got, want) {
		t.Errorf("the feed across the migration: %v, want %v", got, want)
	}
}
