package storetest

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/gatehouse/gatehouse"
	"github.com/google/go-cmp/cmp"
	"github.com/google/uuid"
)

// testInsightsRollWhileIngesting: rollers running at once (every
// instance runs one) while events are stored and erased fold each event
// exactly once: the ranking of players and the counts by door, type and
// hour after all of it, read both before and after the last fold, are
// the counts of the events stored.
func testInsightsRollWhileIngesting(t *testing.T, f *fixture) {
	org := f.org("Rolling")
	loc := f.location(org.ID, "HQ")
	door := f.accessPoint(org.ID, loc.ID, "Gate")
	var (
		wg      sync.WaitGroup
		stop    = make(chan struct{})
		rollErr = make(chan error, 3)
	)
	for r := range 3 {
		wg.Go(func() {
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				// Each roller's clock runs ahead, so every call finds an
				// organization due.
				if err := f.s.RollInsights(ctx, f.now.Add(time.Duration(i*3+r)*time.Hour)); err != nil {
					rollErr <- err
					return
				}
			}
		})
	}
	want := map[string]int{}
	var writers sync.WaitGroup
	var mu sync.Mutex
	for w := range 4 {
		writers.Go(func() {
			for b := range 10 {
				var batch []gatehouse.NewEvent
				for i := range 50 {
					ev := f.attempt(door, gatehouse.EventAccessDenied, (w*500+b*50+i)%(20*24*60))
					ev.Reason, ev.PlatformUserID = ptr("BANNED"), ptr(fmt.Sprint("p", (w*7+b*3+i)%23))
					batch = append(batch, ev)
				}
				if _, err := f.s.IngestEvents(ctx, org.ID, batch); err != nil {
					t.Error(err)
					return
				}
				mu.Lock()
				for _, ev := range batch {
					want[*ev.PlatformUserID]++
				}
				mu.Unlock()
			}
		})
	}
	writers.Wait()
	// Erased while the rollers run: some of the player's events folded,
	// some not.
	n, _ := f.erasePlayer(org.ID, "p7", 1000)
	if n != want["p7"] {
		t.Fatalf("erased %d events of p7, stored %d", n, want["p7"])
	}
	delete(want, "p7")
	close(stop)
	wg.Wait()
	close(rollErr)
	for err := range rollErr {
		t.Fatal(err)
	}
	var wantCounts []gatehouse.InsightCount
	for p, n := range want {
		wantCounts = append(wantCounts, gatehouse.InsightCount{Key: p, Denied: n})
	}
	gatehouse.SortInsights(wantCounts)
	stored := 0
	for _, n := range want {
		stored += n
	}
	from, to := f.now.AddDate(0, 0, -60), f.now.Add(time.Hour)
	window := gatehouse.EventFilter{From: &from, To: &to}
	for _, stage := range []string{"as the rollers left it", "folded"} {
		got, err := f.s.CountInsights(ctx, org.ID, window, gatehouse.GroupPlatformUser, 0)
		must(t, err)
		if diff := cmp.Diff(wantCounts, got); diff != "" {
			t.Fatalf("players %s (-want +got):\n%s", stage, diff)
		}
		// Every other rollup too: the door's and the hours'.
		for by, key := range map[gatehouse.InsightGroup]string{gatehouse.GroupAccessPoint: door.ID.String(), gatehouse.GroupType: "ACCESS_DENIED"} {
			got, err := f.s.CountInsights(ctx, org.ID, window, by, 0)
			must(t, err)
			if diff := cmp.Diff([]gatehouse.InsightCount{{Key: key, Denied: stored}}, got); diff != "" {
				t.Fatalf("by %s %s (-want +got):\n%s", by, stage, diff)
			}
		}
		hours, err := f.s.CountInsights(ctx, org.ID, window, gatehouse.GroupHour, 0)
		must(t, err)
		denied := 0
		for _, c := range hours {
			denied += c.Denied
		}
		if denied != stored {
			t.Fatalf("by hour %s: %d denials, %d stored", stage, denied, stored)
		}
		must(t, f.s.RollInsights(ctx, f.now.AddDate(1, 0, 0)))
	}
}

// testInsightsPlayerLevels: a fold writes the levels a player's count
// crosses in a month and kind (2, 4, 8…: levels 1, 2, 3), from the
// count before it, and those their total of the month crosses, every
// kind (type, reason and scope ""); erasure takes them with the rows.
func testInsightsPlayerLevels(t *testing.T, f *fixture) {
	levels, ok := f.s.(interface {
		PlayerLevelsForTest(ctx context.Context, orgID uuid.UUID) ([]string, error)
	})
	if !ok {
		t.Skip("the store shows no levels")
	}
	org := f.org("Levels")
	door := f.accessPoint(org.ID, f.location(org.ID, "HQ").ID, "Gate")
	// roll folds at a time later than the last roll's by more than the
	// wait of an organization found with nothing to fold (a second).
	rollAt := f.now
	roll := func() {
		t.Helper()
		rollAt = rollAt.Add(2 * time.Second)
		must(t, f.s.RollInsights(ctx, rollAt))
	}
	store := func(typ gatehouse.EventType, n int) {
		t.Helper()
		var batch []gatehouse.NewEvent
		for i := range n {
			ev := f.attempt(door, typ, 10+i)
			ev.PlatformUserID = ptr("lv")
			if typ == gatehouse.EventAccessDenied {
				ev.Reason = ptr("BANNED")
			}
			batch = append(batch, ev)
		}
		f.ingest(org.ID, batch...)
		roll()
	}
	// want lists the levels of the total, then of the denials, then of
	// the granted attempts.
	want := func(stage string, total, denied, granted []int) {
		t.Helper()
		var w []string
		for _, k := range total {
			w = append(w, fmt.Sprint("lv    ", k))
		}
		for _, k := range denied {
			w = append(w, fmt.Sprint("lv ACCESS_DENIED BANNED  ", k))
		}
		for _, k := range granted {
			w = append(w, fmt.Sprint("lv ACCESS_GRANTED   ", k))
		}
		// A fold reads the events below every transaction still running
		// (the feed's bound): one of another test on the same server
		// holds the last batch back until it ends, and the fold that
		// found nothing puts the organization off a second. Roll again,
		// later, meanwhile.
		for deadline := time.Now().Add(10 * time.Second); ; {
			got, err := levels.PlayerLevelsForTest(ctx, org.ID)
			must(t, err)
			if len(got) == 0 {
				got = nil
			}
			diff := cmp.Diff(w, got)
			if diff == "" {
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("levels %s (-want +got):\n%s", stage, diff)
			}
			time.Sleep(20 * time.Millisecond)
			roll()
		}
	}
	denied := gatehouse.EventAccessDenied
	store(denied, 1)
	want("at 1", nil, nil, nil)
	store(denied, 4)
	want("at 5", []int{1, 2}, []int{1, 2}, nil)
	store(denied, 3)
	want("at 8", []int{1, 2, 3}, []int{1, 2, 3}, nil)
	store(denied, 7)
	want("at 15", []int{1, 2, 3}, []int{1, 2, 3}, nil)
	// A granted attempt: its kind's first count, the total's 16.
	store(gatehouse.EventAccessGranted, 1)
	want("at 15 and 1", []int{1, 2, 3, 4}, []int{1, 2, 3}, nil)
	store(gatehouse.EventAccessGranted, 1)
	want("at 15 and 2", []int{1, 2, 3, 4}, []int{1, 2, 3}, []int{1})
	f.erasePlayer(org.ID, "lv", 100)
	want("erased", nil, nil, nil)
}
