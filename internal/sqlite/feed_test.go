package sqlite_test

import (
	"context"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/gatehouse/gatehouse"
	"github.com/gatehouse/gatehouse/internal/sqlite"
	"github.com/gatehouse/gatehouse/internal/teststore"
	"github.com/google/uuid"
)

// A filtered feed reads the same events in the same order whether it
// walks the feed's index (a common filter) or reads the filter's own index
// and sorts (a rare one).
func TestFilteredFeedPlansAgree(t *testing.T) {
	ctx := context.Background()
	db := teststore.OpenSQLite(t, filepath.Join(t.TempDir(), "gatehouse.db"))
	org, err := db.CreateOrganization(ctx, gatehouse.SystemEntry(gatehouse.AuditOrganizationCreated), "Acme")
	if err != nil {
		t.Fatal(err)
	}
	loc, _ := db.CreateLocation(ctx, gatehouse.SystemEntry(gatehouse.AuditLocationCreated), org.ID, "HQ")
	gate, _ := db.CreateAccessPoint(ctx, gatehouse.SystemEntry(gatehouse.AuditAccessPointCreated), org.ID, loc.ID, "Gate")
	vault, _ := db.CreateAccessPoint(ctx, gatehouse.SystemEntry(gatehouse.AuditAccessPointCreated), org.ID, loc.ID, "Vault")
	var want []uuid.UUID
	for i := range 40 {
		ap := gate
		if i%3 == 0 {
			ap = vault
		}
		ev := gatehouse.NewEvent{ID: gatehouse.NewID(), Type: gatehouse.EventAccessGranted, AccessPointID: ap.ID,
			OccurredAt: time.Now().Add(-time.Duration(i) * time.Hour)}
		if _, err := db.IngestEvents(ctx, org.ID, []gatehouse.NewEvent{ev}); err != nil {
			t.Fatal(err)
		}
		if ap == vault {
			want = append(want, ev.ID)
		}
	}
	read := func() []uuid.UUID {
		var got []uuid.UUID
		var at gatehouse.FeedPosition
		for {
			page, err := db.ReadFeed(ctx, org.ID, gatehouse.EventFilter{AccessPointID: &vault.ID, Limit: 4}, at)
			if err != nil {
				t.Fatal(err)
			}
			for _, ev := range page.Events {
				got = append(got, ev.ID)
			}
			at = page.Next
			if len(page.Events) < 4 {
				return got
			}
		}
	}
	if got := read(); !slices.Equal(got, want) {
		t.Errorf("rare filter (the filter's index): %v, want %v", got, want)
	}
	defer sqlite.SetFeedRareForTest(1)()
	if got := read(); !slices.Equal(got, want) {
		t.Errorf("common filter (the feed's index): %v, want %v", got, want)
	}
}
