package storetest

import (
	"testing"

	"github.com/gatehouse/gatehouse"
)

// CountFeed counts what following the feed from a position reads: the
// organization's events after it matching the filter, none of another
// organization's; a position from elsewhere is refused as ReadFeed
// refuses it.
func testCountFeed(t *testing.T, f *fixture) {
	a, b := f.org("A"), f.org("B")
	hq := f.location(a.ID, "HQ")
	gate, vault := f.accessPoint(a.ID, hq.ID, "Gate"), f.accessPoint(a.ID, hq.ID, "Vault")
	theirs := f.accessPoint(b.ID, f.location(b.ID, "HQ").ID, "Gate")
	for i := range 5 {
		f.ingest(a.ID, f.attempt(gate, gatehouse.EventAccessGranted, i))
	}
	for i := range 3 {
		f.ingest(a.ID, f.attempt(vault, gatehouse.EventAccessDenied, i))
		f.ingest(b.ID, f.attempt(theirs, gatehouse.EventAccessDenied, i))
	}
	f.settle()
	page, err := f.s.ReadFeed(ctx, a.ID, gatehouse.EventFilter{Limit: 100}, gatehouse.FeedPosition{})
	must(t, err)
	if len(page.Events) != 8 {
		t.Fatalf("the feed: %d events, want 8", len(page.Events))
	}
	count := func(what string, f2 gatehouse.EventFilter, after gatehouse.FeedPosition, want int64) {
		t.Helper()
		n, err := f.s.CountFeed(ctx, a.ID, f2, after)
		if err != nil || n != want {
			t.Errorf("%s: %d, %v; want %d", what, n, err, want)
		}
	}
	count("from the start", gatehouse.EventFilter{}, gatehouse.FeedPosition{}, 8)
	count("after the third", gatehouse.EventFilter{}, page.Positions[2], 5)
	count("after the last", gatehouse.EventFilter{}, page.Next, 0)
	count("the vault's", gatehouse.EventFilter{AccessPointID: &vault.ID}, gatehouse.FeedPosition{}, 3)
	count("denied", gatehouse.EventFilter{Types: []gatehouse.EventType{gatehouse.EventAccessDenied}}, page.Positions[5], 2)

	n, err := f.s.CountFeed(ctx, gatehouse.NewID(), gatehouse.EventFilter{}, gatehouse.FeedPosition{})
	if err != nil || n != 0 {
		t.Errorf("an unknown organization: %d, %v", n, err)
	}
	_, err = f.s.CountFeed(ctx, a.ID, gatehouse.EventFilter{}, gatehouse.FeedPosition{Txn: 1 << 62, Seq: 1})
	wantErr(t, "a position from elsewhere", err, gatehouse.ErrInvalid, "after")
}
