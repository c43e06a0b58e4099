package storetest

import (
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gatehouse/gatehouse"
	"github.com/google/uuid"
)

// commitHolder is a store whose ingest transactions can be held back just
// before they commit, for the feed's test (each store's export_test).
type commitHolder interface {
	HoldIngestCommitsForTest(hold func())
}

// Writers whose commits are held back at random, so that on PostgreSQL
// they commit in another order than they took their positions, while a
// reader follows the feed: every event is read exactly once, none of
// another organization, and a filtered feed reads exactly its own.
func testFeedExactlyOnce(t *testing.T, f *fixture) {
	holder, ok := f.s.(commitHolder)
	if !ok {
		t.Fatal("the store cannot hold its commits back (HoldIngestCommitsForTest)")
	}
	a, b := f.org("A"), f.org("B")
	hq := f.location(a.ID, "HQ")
	doors := []gatehouse.AccessPoint{f.accessPoint(a.ID, hq.ID, "Gate"), f.accessPoint(a.ID, hq.ID, "Vault")}
	theirs := f.accessPoint(b.ID, f.location(b.ID, "HQ").ID, "Gate")
	holder.HoldIngestCommitsForTest(func() { time.Sleep(time.Duration(rand.IntN(15)) * time.Millisecond) })

	const writers, batches, perBatch = 4, 15, 3
	var (
		mu      sync.Mutex
		written = map[uuid.UUID]uuid.UUID{} // event → access point
		wg      sync.WaitGroup
	)
	for w := range writers {
		wg.Go(func() {
			for i := range batches {
				org, ap := a.ID, doors[(w+i)%2]
				if w == 0 && i%3 == 0 {
					org, ap = b.ID, theirs
				}
				events := make([]gatehouse.NewEvent, perBatch)
				for j := range events {
					events[j] = f.attempt(ap, gatehouse.EventAccessGranted, rand.IntN(600))
				}
				if _, err := f.s.IngestEvents(ctx, org, events); err != nil {
					t.Error(err)
					return
				}
				if org == a.ID {
					mu.Lock()
					for _, ev := range events {
						written[ev.ID] = ap.ID
					}
					mu.Unlock()
				}
			}
		})
	}
	var stopped atomic.Bool
	go func() { wg.Wait(); stopped.Store(true) }()

	follow := func(filter gatehouse.EventFilter, want func(uuid.UUID) bool) {
		t.Helper()
		seen := map[uuid.UUID]int{}
		var at gatehouse.FeedPosition
		deadline := time.Now().Add(30 * time.Second)
		for {
			done := stopped.Load()
			filter.Limit = 1 + rand.IntN(7)
			page, err := f.s.ReadFeed(ctx, a.ID, filter, at)
			must(t, err)
			if len(page.Events) > filter.Limit {
				t.Fatalf("%d events for limit %d", len(page.Events), filter.Limit)
			}
			if len(page.Events) > 0 && !at.Less(page.Next) || len(page.Events) == 0 && page.Next != at {
				t.Fatalf("page of %d events after %+v: next %+v", len(page.Events), at, page.Next)
			}
			if len(page.Positions) != len(page.Events) {
				t.Fatalf("%d positions for %d events", len(page.Positions), len(page.Events))
			}
			for i, ev := range page.Events {
				seen[ev.ID]++
				// Each event's own position: increasing, the last the page's end.
				if prev := at; i > 0 {
					prev = page.Positions[i-1]
					if !prev.Less(page.Positions[i]) {
						t.Fatalf("positions out of order: %+v", page.Positions)
					}
				}
			}
			if n := len(page.Positions); n > 0 && page.Positions[n-1] != page.Next {
				t.Fatalf("the last position %+v is not the page's end %+v", page.Positions[n-1], page.Next)
			}
			at = page.Next
			if !done || len(page.Events) > 0 {
				if len(page.Events) == 0 {
					time.Sleep(time.Millisecond)
				}
				continue
			}
			// The writers are done (and written is theirs no more).
			wanted := 0
			for id := range written {
				if want(id) {
					wanted++
				}
			}
			if len(seen) >= wanted || time.Now().After(deadline) {
				for id, times := range seen {
					if times != 1 || !want(id) {
						t.Errorf("event %s read %d times (of the filter: %t)", id, times, want(id))
					}
				}
				if len(seen) != wanted {
					t.Errorf("read %d events of %d", len(seen), wanted)
				}
				return
			}
			time.Sleep(time.Millisecond) // a transaction older than the writers' holds the feed back
		}
	}
	follow(gatehouse.EventFilter{}, func(id uuid.UUID) bool { _, ok := written[id]; return ok })
	// The writers are done: the filtered feed reads a settled log.
	follow(gatehouse.EventFilter{AccessPointID: &doors[1].ID}, func(id uuid.UUID) bool { return written[id] == doors[1].ID })

	// A position this database cannot have made (another backend's, or
	// one from before a restore) is refused, not followed into silence.
	_, err := f.s.ReadFeed(ctx, a.ID, gatehouse.EventFilter{Limit: 10}, gatehouse.FeedPosition{Txn: 1 << 62, Seq: 1})
	wantErr(t, "a position from elsewhere", err, gatehouse.ErrInvalid, "after")

	page, err := f.s.ReadFeed(ctx, gatehouse.NewID(), gatehouse.EventFilter{Limit: 10}, gatehouse.FeedPosition{})
	must(t, err)
	if len(page.Events) != 0 || page.Next != (gatehouse.FeedPosition{}) {
		t.Errorf("an unknown organization's feed: %d events, next %+v", len(page.Events), page.Next)
	}
	if page.CompleteThrough.IsZero() || page.CompleteThrough.After(time.Now()) {
		t.Errorf("completeThrough %v: want a past instant", page.CompleteThrough)
	}
}
