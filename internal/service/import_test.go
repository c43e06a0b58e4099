package service_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/gatehouse/gatehouse"
	"github.com/google/uuid"
)

// TestImportCommitsBatchesTogether: an Import commits its batches
// together, once it holds enough events or when told.
//   - A batch it refuses leaves the others.
//   - An Import rolled back stores nothing since its last commit.
//   - The search finds what a committed Import stored, and what is stored
//     after a rolled-back one.
//
// On a store without bulk transactions each batch commits on its own.
func TestImportCommitsBatchesTogether(t *testing.T) {
	var bulk bool
	f := newServiceOn(t, nil, func(s gatehouse.Store) gatehouse.Store {
		_, bulk = s.(gatehouse.BulkIngester)
		return s
	})
	ctx := context.Background()
	loc, _ := f.svc.CreateLocation(ctx, f.org.ID, "HQ")
	ap, _ := f.svc.CreateAccessPoint(ctx, f.org.ID, loc.ID, "Door")
	rivalLoc, _ := f.svc.CreateLocation(ctx, f.other.ID, "HQ")
	rivalAP, _ := f.svc.CreateAccessPoint(ctx, f.other.ID, rivalLoc.ID, "Door")
	event := func(ap uuid.UUID, user string) gatehouse.NewEvent {
		return gatehouse.NewEvent{ID: gatehouse.NewID(), Type: gatehouse.EventAccessGranted, OccurredAt: f.now.Add(-time.Hour),
			AccessPointID: ap, PlatformUserID: &user}
	}
	stored := func(events ...gatehouse.NewEvent) (n int) {
		t.Helper()
		for _, ev := range events {
			if _, err := f.svc.FindEvent(ctx, f.org.ID, ev.ID); err == nil {
				n++
			} else if !errors.Is(err, gatehouse.ErrNotFound) {
				t.Fatal(err)
			}
		}
		return n
	}
	found := func(q string) int {
		t.Helper()
		page, err := f.svc.ListEvents(ctx, f.org.ID, gatehouse.EventFilter{Q: q, Limit: 10})
		if err != nil {
			t.Fatal(err)
		}
		return len(page.Events)
	}

	im := f.svc.BeginImport(f.org.ID)
	im.SetCommitEveryForTest(3)
	a, b := event(ap.ID, "4401"), event(ap.ID, "4402")
	if res, err := im.IngestEvents(ctx, []gatehouse.NewEvent{a, b}); err != nil || res.Accepted != 2 {
		t.Fatalf("first batch: %+v, %v", res, err)
	}
	if n := stored(a, b); bulk && n != 0 || !bulk && n != 2 {
		t.Errorf("before the commit, %d of 2 events readable (bulk store: %t)", n, bulk)
	}
	var ie *gatehouse.IngestError
	if _, err := im.IngestEvents(ctx, []gatehouse.NewEvent{event(rivalAP.ID, "4403")}); !errors.As(err, &ie) {
		t.Fatalf("a batch with another organization's access point: %v, want an IngestError", err)
	}
	c := event(ap.ID, "4404")
	if res, err := im.IngestEvents(ctx, []gatehouse.NewEvent{c, a}); err != nil || res.Accepted != 1 || res.Duplicates != 1 {
		t.Fatalf("third batch: %+v, %v; want 1 accepted and a duplicate", res, err)
	}
	if n := stored(a, b, c); n != 3 {
		t.Errorf("after 4 events (the commit is every 3): %d of 3 stored", n)
	}
	if found("4401") != 1 || found("4404") != 1 {
		t.Errorf("the search does not find the committed import's players")
	}

	d := event(ap.ID, "4405")
	if _, err := im.IngestEvents(ctx, []gatehouse.NewEvent{d}); err != nil {
		t.Fatal(err)
	}
	im.Rollback()
	if n := stored(d); bulk && n != 0 || !bulk && n != 1 {
		t.Errorf("after a rollback, %d of 1 event stored (bulk store: %t)", n, bulk)
	}
	// The rolled-back import's new player, stored for good now, is found.
	e := event(ap.ID, "4405")
	if _, err := f.svc.IngestEvents(ctx, f.org.ID, []gatehouse.NewEvent{e}); err != nil {
		t.Fatal(err)
	}
	if want := 1 + map[bool]int{false: 1}[bulk]; found("4405") != want {
		t.Errorf("search for the rolled-back import's player: %d events, want %d", found("4405"), want)
	}

	im = f.svc.BeginImport(f.org.ID)
	g := event(ap.ID, "4406")
	if _, err := im.IngestEvents(ctx, []gatehouse.NewEvent{g}); err != nil {
		t.Fatal(err)
	}
	if err := im.Commit(); err != nil || stored(g) != 1 {
		t.Errorf("Commit: %v, stored %d of 1", err, stored(g))
	}
	im.Rollback() // after Commit: nothing
	if stored(g) != 1 {
		t.Errorf("a rollback after the commit took the event away")
	}
}
