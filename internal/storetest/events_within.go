package storetest

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gatehouse/gatehouse"
	"github.com/google/go-cmp/cmp"
	"github.com/google/uuid"
)

// testEventsWithin: a reach (EventFilter.Within, the locations of the
// actor reading) keeps every read of events to its locations, on every
// path: pages without q and with it (each search strategy, an id prefix,
// an exact id), with a location filter in it and out of it; counts in
// buckets; insights from the rollups and from the events, before and
// after the player rollup is folded; the feed and its count. No reach
// keeps every event; an empty one keeps none, as do a reach of another
// organization's location and one of a location that is no more.
func testEventsWithin(t *testing.T, f *fixture) {
	rng := rand.New(rand.NewPCG(7, 11))
	w := oracleWorld{org: f.org("Reach"), locOf: map[uuid.UUID]gatehouse.Location{}, shown: map[uuid.UUID]shownNames{}}
	var locs []gatehouse.Location
	for _, name := range []string{"North", "South", "East"} {
		loc := f.location(w.org.ID, name)
		locs = append(locs, loc)
		for _, door := range []string{"front door", "back door"} {
			ap := f.accessPoint(w.org.ID, loc.ID, name+" "+door)
			w.aps = append(w.aps, ap)
			w.locOf[ap.ID] = loc
		}
	}
	theirs := f.location(f.org("Other").ID, "North")
	// Most events over three days, a third over eighty: the hours, days
	// and months the rollups keep.
	for i := range 90 {
		ev := f.attempt(w.aps[i%len(w.aps)], gatehouse.EventTypes[rng.IntN(3)], rng.IntN(3*24*60))
		if i%3 == 0 {
			ev.OccurredAt = f.now.Add(-time.Duration(rng.IntN(80*24*60)) * time.Minute)
		}
		switch ev.Type {
		case gatehouse.EventAccessDenied:
			ev.Reason = ptr([]string{"OUTSIDE_SCHEDULE", "BANNED"}[rng.IntN(2)])
		case gatehouse.EventRemoteUnlock:
			ev.Allowed, ev.Scope = nil, ptr(gatehouse.ScopePlayer)
		}
		if i%4 > 0 || ev.Scope != nil {
			ev.PlatformUserID = ptr(fmt.Sprint("p", rng.IntN(4)))
		}
		if i%5 == 0 {
			ev.ServerJobID = ptr(fmt.Sprint("job-", i%2))
		}
		w.events = append(w.events, ev)
	}
	w.record(f, w.events[:45])
	w.record(f, w.events[45:])
	sortNewestFirst(w.events)

	reaches := []struct {
		name   string
		within gatehouse.Reach
	}{
		{"no reach", nil},
		{"North", gatehouse.Reach{locs[0].ID}},
		{"North and South", gatehouse.Reach{locs[0].ID, locs[1].ID}},
		{"South and another organization's", gatehouse.Reach{locs[1].ID, theirs.ID}},
		{"another organization's", gatehouse.Reach{theirs.ID}},
		{"a location that is no more", gatehouse.Reach{gatehouse.NewID(), gatehouse.NewID()}},
		{"empty", gatehouse.Reach{}},
	}
	// matching are the events a filter keeps, by the reference filter.
	matching := func(flt gatehouse.EventFilter) []gatehouse.NewEvent {
		var out []gatehouse.NewEvent
		for _, e := range w.events {
			if w.matches(e, flt) {
				out = append(out, e)
			}
		}
		return out
	}
	// The reference itself: the whole organization without a reach,
	// exactly the reach's locations with one.
	for _, r := range reaches {
		n := len(matching(gatehouse.EventFilter{Within: r.within}))
		switch {
		case r.within == nil && n != len(w.events),
			r.name == "North" && n != 30,
			r.name == "North and South" && n != 60,
			r.name == "South and another organization's" && n != 30,
			slices.Contains([]string{"another organization's", "a location that is no more", "empty"}, r.name) && n != 0:
			t.Fatalf("the reference keeps %d events within %s", n, r.name)
		}
	}

	// Pages, on every search strategy (the oracle's budgets).
	east := matching(gatehouse.EventFilter{LocationID: &locs[2].ID})[0]
	denied := []gatehouse.EventType{gatehouse.EventAccessDenied}
	filters := []gatehouse.EventFilter{
		{},
		{Q: "door"},               // every access point: a few terms
		{Q: "north"},              // a location's name and its doors'
		{Q: "o"},                  // most terms: the scan
		{Q: "p1"},                 // a player
		{Q: "job-1"},              // a server job
		{Q: east.ID.String()[:8]}, // an id prefix, of East
		{Q: east.ID.String()},     // an exact id, of East
		{LocationID: &locs[0].ID}, // in the reach, or out of it
		{LocationID: &locs[2].ID}, // out of every reach but none
		{LocationID: &locs[0].ID, Q: "door"},
		{AccessPointID: &w.aps[2].ID}, // South's
		{Types: denied, From: ptr(f.now.Add(-48 * time.Hour))},
	}
	setter, canSet := f.s.(budgetSetter)
	for round, budgets := range oracleRounds {
		if budgets != (gatehouse.SearchBudgets{}) {
			if !canSet {
				continue
			}
			setter.SetSearchBudgets(budgets)
		}
		for _, r := range reaches {
			for i, flt := range filters {
				flt.Within = r.within
				for _, limit := range []int{7, 500} {
					got, want := oracleRun(f, w, flt, limit)
					if !slices.Equal(got, want) {
						t.Fatalf("round %d, within %s, filter %d (%s), limit %d:\n got %d events %v\nwant %d events %v",
							round, r.name, i, describe(flt), limit, len(got), got, len(want), want)
					}
				}
			}
		}
	}
	// An event out of the reach is not found by its id either.
	page, err := gatehouse.FindEvents(ctx, f.s, w.org.ID, gatehouse.EventFilter{Q: east.ID.String(), Within: gatehouse.Reach{locs[0].ID}, Limit: 50})
	must(t, err)
	if len(page.Events) != 0 {
		t.Errorf("East's event by its id within North: %v", ids(page.Events))
	}

	// Counts in buckets: of days over the whole log, of hours over the
	// last three days.
	for _, r := range reaches {
		days := gatehouse.EventFilter{From: ptr(f.now.AddDate(0, 0, -81)), To: ptr(f.now.Add(time.Minute)), Within: r.within}
		checkCountsBy(t, f, w, days, 24*time.Hour)
		hours := gatehouse.EventFilter{From: ptr(f.now.AddDate(0, 0, -3)), To: ptr(f.now.Add(time.Minute)), Within: r.within,
			Types: denied}
		checkCountsBy(t, f, w, hours, time.Hour)
	}

	// Insights, every grouping, over random windows: whole months and
	// days from the door rollups, their ends from the events. The
	// player rollup is folded behind ingest: before and after.
	insights := func(stage string) {
		t.Helper()
		for _, r := range reaches {
			for range 6 {
				checkInsights(t, f, w, gatehouse.EventFilter{Within: r.within}, rng)
			}
			checkInsights(t, f, w, gatehouse.EventFilter{Within: r.within, LocationID: &locs[0].ID}, rng)
			checkInsights(t, f, w, gatehouse.EventFilter{Within: r.within, Reason: ptr("BANNED")}, rng)
			// A window of whole months: the door rollups alone (and the
			// player rollup without a reach).
			from := monthStart(f.now.AddDate(0, -3, 0))
			whole := gatehouse.EventFilter{From: &from, To: ptr(monthStart(f.now.AddDate(0, 1, 0))), Within: r.within}
			for _, by := range storeGroups {
				got, err := f.s.CountInsights(ctx, w.org.ID, whole, by, 0)
				must(t, err)
				if diff := cmp.Diff(w.wantInsights(whole, by), got); diff != "" {
					t.Fatalf("%s: insights of whole months within %s by %s (-want +got):\n%s", stage, r.name, by, diff)
				}
			}
			got, err := f.s.CountInsights(ctx, w.org.ID, whole, gatehouse.GroupLocation, 0)
			must(t, err)
			total := 0
			for _, c := range got {
				if id, err := uuid.Parse(c.Key); err != nil || !r.within.Has(id) {
					t.Errorf("%s: a group of location %s within %s", stage, c.Key, r.name)
				}
				total += c.Total()
			}
			if want := len(matching(gatehouse.EventFilter{Within: r.within})); total != want {
				t.Errorf("%s: the insights within %s count %d events, want %d", stage, r.name, total, want)
			}
		}
	}
	insights("after ingest")
	must(t, f.s.RollInsights(ctx, f.now.Add(time.Minute)))
	insights("rolled up")

	// The feed and its count.
	f.settle()
	for _, r := range reaches {
		for _, flt := range []gatehouse.EventFilter{{}, {LocationID: &locs[0].ID}, {Types: denied}} {
			flt.Within = r.within
			want := newIDs(matching(flt)...)
			var (
				got []uuid.UUID
				at  gatehouse.FeedPosition
				// The end of the first page and the events after it.
				first gatehouse.FeedPosition
				rest  = len(want)
			)
			for flt.Limit = 7; ; {
				page, err := f.s.ReadFeed(ctx, w.org.ID, flt, at)
				must(t, err)
				if len(page.Events) == 0 {
					break
				}
				for _, e := range page.Events {
					if !r.within.Has(e.Location.ID) {
						t.Errorf("the feed within %s read %s's event %s", r.name, e.Location.Name, e.ID)
					}
				}
				if got == nil {
					first, rest = page.Next, len(want)-len(page.Events)
				}
				got = append(got, ids(page.Events)...)
				at = page.Next
			}
			flt.Limit = 0
			sortIDs(got)
			sortIDs(want)
			if diff := cmp.Diff(want, got, cmpEmpty); diff != "" {
				t.Errorf("the feed of %s (-want +got):\n%s", describe(flt), diff)
			}
			n, err := f.s.CountFeed(ctx, w.org.ID, flt, gatehouse.FeedPosition{})
			if err != nil || n != int64(len(want)) {
				t.Errorf("the feed's count of %s: %d, %v; want %d", describe(flt), n, err, len(want))
			}
			if n, err := f.s.CountFeed(ctx, w.org.ID, flt, first); err != nil || n != int64(rest) {
				t.Errorf("the feed's count of %s after a page: %d, %v; want %d", describe(flt), n, err, rest)
			}
		}
	}
}

// monthStart is the start of t's UTC month, as the rollups bucket it.
func monthStart(t time.Time) time.Time {
	return time.Date(t.Year(), t.Month(), 1, 0, 0, 0, 0, time.UTC)
}

func sortIDs(ids []uuid.UUID) {
	slices.SortFunc(ids, func(a, b uuid.UUID) int { return strings.Compare(a.String(), b.String()) })
}
