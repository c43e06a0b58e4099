package storetest

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/gatehouse/gatehouse"
	"github.com/google/go-cmp/cmp"
)

// testSearchFoldsCase checks gatehouse.FoldCase's rule on every search
// path (term by term, scan, longer scan) and page size: a term's matches
// may not depend on which path a page takes.
func testSearchFoldsCase(t *testing.T, f *fixture) {
	o := f.org("Acme")
	byName := map[string]gatehouse.NewEvent{}
	var all []gatehouse.NewEvent
	for i, name := range []string{"İstanbul", "ſtraße", "οδος", "µmol", "Plain"} {
		ap := f.accessPoint(o.ID, f.location(o.ID, name).ID, "Door")
		for j := range 8 { // enough that a small budget leaves the first scan
			ev := f.attempt(ap, gatehouse.EventAccessGranted, 10*j+i)
			all = append(all, ev)
			byName[name] = ev
		}
	}
	f.ingest(o.ID, all...)
	located := func(name string) []gatehouse.NewEvent {
		var out []gatehouse.NewEvent
		for _, e := range all {
			if e.AccessPointID == byName[name].AccessPointID {
				out = append(out, e)
			}
		}
		return out
	}
	rounds := []gatehouse.SearchBudgets{{}}
	setter, canSet := f.s.(budgetSetter)
	if canSet {
		rounds = append(rounds, gatehouse.SearchBudgets{First: 1, Max: 1}, gatehouse.SearchBudgets{First: 3, Max: 40, Terms: 1})
	}
	for _, budgets := range rounds {
		if budgets != (gatehouse.SearchBudgets{}) {
			setter.SetSearchBudgets(budgets)
		}
		for _, tc := range []struct {
			q    string
			want string // the location whose events match, or none
		}{
			{"istanbul", "İstanbul"}, // Turkish dotted capital I
			{"ISTANBUL", "İstanbul"},
			{"ıstan", "İstanbul"}, // dotless small i
			{"STRASSE", ""},       // ß stays one character
			{"STRAßE", "ſtraße"},  // long s
			{"ΟΔΟΣ", "οδος"},      // final sigma
			{"μmol", "µmol"},      // mu and the micro sign
			{"PLAIN", "Plain"},
		} {
			for _, limit := range []int{1, 50} {
				got := f.all(o.ID, gatehouse.EventFilter{Q: tc.q}, limit)
				want := sortedNewest(located(tc.want))
				if diff := cmp.Diff(newIDs(want...), ids(got), cmpEmpty); diff != "" {
					t.Errorf("budgets %+v, q=%q, limit=%d (-want +got)\n%s", budgets, tc.q, limit, diff)
				}
			}
		}
	}
}

// testSearchManyTermsBudget checks the paths of a q by the number of its
// terms: in none, an empty last page at once; in a few, every match
// however deep in the log, page by page; in more than the budget, a
// bounded number of events read per page, so that a term on none of them
// gets partial pages that walk the log in steps, never one scan of it.
func testSearchManyTermsBudget(t *testing.T, f *fixture) {
	setter, ok := f.s.(budgetSetter)
	if !ok {
		t.Skip("the store's search budgets cannot be lowered")
	}
	setter.SetSearchBudgets(gatehouse.SearchBudgets{First: 3, Max: 10, Terms: 5})
	o := f.org("Acme")
	door := f.accessPoint(o.ID, f.location(o.ID, "HQ").ID, "Front door")
	var evs []gatehouse.NewEvent
	for i := range 40 {
		ev := f.attempt(door, gatehouse.EventAccessGranted, i)
		ev.PlatformUserID = ptr(fmt.Sprint("player-", i))
		evs = append(evs, ev)
	}
	evs[39].PlatformUserID = ptr("zz") // the oldest, 40 events down
	f.ingest(o.ID, evs...)

	for _, tc := range []struct {
		q       string
		want    []gatehouse.NewEvent
		partial bool
	}{
		{"zz", evs[39:], false},                              // one term, 40 events down: found at once
		{"%", nil, false},                                    // no term: nothing, at once
		{"r-3", append(evs[3:4:4], evs[30:39]...), true},     // ten terms: read in steps
		{"layer-1", append(evs[1:2:2], evs[10:20]...), true}, // eleven
	} {
		page, err := f.s.ListEvents(ctx, o.ID, gatehouse.EventFilter{Q: tc.q, Limit: 50})
		must(t, err)
		if tc.partial {
			if !page.Partial || page.Next == nil {
				t.Errorf("q=%q: first page of %d events, partial %v, next %v; want a partial page that continues",
					tc.q, len(page.Events), page.Partial, page.Next)
			}
		} else if page.Partial || page.Next != nil || len(page.Events) != len(tc.want) {
			t.Errorf("q=%q: first page of %d events, partial %v, next %v; want all %d on one last page",
				tc.q, len(page.Events), page.Partial, page.Next, len(tc.want))
		}
		if diff := cmp.Diff(newIDs(tc.want...), ids(f.all(o.ID, gatehouse.EventFilter{Q: tc.q}, 50)), cmpEmpty); diff != "" {
			t.Errorf("q=%q walked (-want +got)\n%s", tc.q, diff)
		}
	}
	// A common term fills its page from the first events read.
	page, err := f.s.ListEvents(ctx, o.ID, gatehouse.EventFilter{Q: "PL", Limit: 5})
	must(t, err)
	if page.Partial || page.Next == nil || len(page.Events) != 5 {
		t.Errorf("q=PL: page of %d events, partial %v; want a full page of 5", len(page.Events), page.Partial)
	}

	// Events four to an instant: each partial page ends inside an instant,
	// and the walk goes on from the exact event it stopped at.
	ties := f.org("Ties")
	door = f.accessPoint(ties.ID, f.location(ties.ID, "HQ").ID, "Front door")
	evs = nil
	for i := range 40 {
		ev := f.attempt(door, gatehouse.EventAccessGranted, i/4)
		ev.PlatformUserID = ptr(fmt.Sprint("player-", i))
		evs = append(evs, ev)
	}
	f.ingest(ties.ID, evs...)
	want := sortedNewest(append(evs[3:4:4], evs[30:40]...)) // "r-3": ten terms, read in steps
	if diff := cmp.Diff(newIDs(want...), ids(f.all(ties.ID, gatehouse.EventFilter{Q: "r-3"}, 50)), cmpEmpty); diff != "" {
		t.Errorf("q=r-3 walked events four to an instant (-want +got)\n%s", diff)
	}
}

// sortedNewest orders events as the API does: newest first, then by id.
func sortedNewest(events []gatehouse.NewEvent) []gatehouse.NewEvent {
	slices.SortFunc(events, func(a, b gatehouse.NewEvent) int {
		if c := b.OccurredAt.Compare(a.OccurredAt); c != 0 {
			return c
		}
		return bytes.Compare(b.ID[:], a.ID[:])
	})
	return events
}

// testSearchServerJobs: a q in a server job id (whole, or any part of it)
// finds the job's events on its first page however deep in the log they
// are, though job ids have no index: the store keeps the span of time
// each job's events occupy, of its organization alone, widened as later
// batches bring events outside it, and reads only that span. Erasing a
// player keeps the spans of the jobs that showed them; retention prunes
// the spans of jobs it left without events, and a job that comes back
// is found again.
func testSearchServerJobs(t *testing.T, f *fixture) {
	setter, ok := f.s.(budgetSetter)
	if !ok {
		t.Skip("the store's search budgets cannot be lowered")
	}
	// A scan reads 10 events at most: a job's events 40 hours down the log
	// are beyond it.
	setter.SetSearchBudgets(gatehouse.SearchBudgets{First: 3, Max: 10, Terms: 5})
	o, other := f.org("Acme"), f.org("Beta")
	door := f.accessPoint(o.ID, f.location(o.ID, "HQ").ID, "Front door")
	theirs := f.accessPoint(other.ID, f.location(other.ID, "HQ").ID, "Front door")
	const (
		job  = "3f2a9c4e-1b7d-4e8a-9c0f-5d6e7f8a9b0c"
		wide = "77aa0c11-5e2b-4c3d-8e9f-a0b1c2d3e4f5" // a server that ran for two days
		gone = "c0ffee00-aaaa-4bbb-8ccc-0123456789ab" // expired
	)
	at := func(hoursAgo int, serverJob string) gatehouse.NewEvent {
		ev := f.attempt(door, gatehouse.EventAccessGranted, 60*hoursAgo)
		ev.ServerJobID = ptr(serverJob)
		ev.PlatformUserID = ptr(fmt.Sprint("player-", hoursAgo))
		return ev
	}
	// An event an hour for 60 hours, of other servers but at hours 44 to
	// 39 (job's, but 41) and at 58 and 1 (wide's).
	var mine, rest []gatehouse.NewEvent
	for h := range 60 {
		switch {
		case h >= 39 && h <= 44 && h != 41:
			mine = append(mine, at(h, job))
		case h == 58 || h == 1:
			rest = append(rest, at(h, wide))
		default:
			rest = append(rest, at(h, fmt.Sprintf("%08d-0000-4000-8000-000000000000", h)))
		}
	}
	old := at(24*500, gone)
	f.ingest(o.ID, append(rest, old)...)
	// The job's events in three batches: its first hours, then later ones
	// that widen its span, then one inside it.
	f.ingest(o.ID, mine[3:]...)
	f.ingest(o.ID, mine[:2]...)
	f.ingest(o.ID, mine[2])
	// Another organization's event of the same job, far from its span.
	elsewhere := f.attempt(theirs, gatehouse.EventAccessGranted, 60*5)
	elsewhere.ServerJobID = ptr(job)
	f.ingest(other.ID, elsewhere)

	firstPage := func(q string, want []gatehouse.NewEvent) {
		t.Helper()
		page, err := f.s.ListEvents(ctx, o.ID, gatehouse.EventFilter{Q: q, Limit: 50})
		must(t, err)
		if page.Partial || page.Next != nil {
			t.Errorf("q=%q: first page of %d events, partial %v, next %v; want all %d on one last page",
				q, len(page.Events), page.Partial, page.Next, len(want))
		}
		if diff := cmp.Diff(newIDs(sortedNewest(want)...), ids(page.Events), cmpEmpty); diff != "" {
			t.Errorf("q=%q first page (-want +got)\n%s", q, diff)
		}
	}
	for _, q := range []string{job, job[:18], job[9:17], strings.ToUpper(job[24:])} {
		firstPage(q, mine)
	}
	// Pages of two, each whole.
	if diff := cmp.Diff(newIDs(sortedNewest(mine)...), ids(f.all(o.ID, gatehouse.EventFilter{Q: job[9:17]}, 2)), cmpEmpty); diff != "" {
		t.Errorf("q=%q by pages of 2 (-want +got)\n%s", job[9:17], diff)
	}
	// With another filter, within the span.
	page, err := f.s.ListEvents(ctx, o.ID, gatehouse.EventFilter{Q: job, PlatformUserID: ptr("player-40"), Limit: 50})
	must(t, err)
	if diff := cmp.Diff(newIDs(mine[1]), ids(page.Events), cmpEmpty); diff != "" {
		t.Errorf("q=%q platformUserId=player-40 (-want +got)\n%s", job, diff)
	}
	// A span holding more events than the scan's budget: read in steps,
	// every event found.
	var wides []gatehouse.NewEvent
	for _, ev := range rest {
		if *ev.ServerJobID == wide {
			wides = append(wides, ev)
		}
	}
	if diff := cmp.Diff(newIDs(sortedNewest(wides)...), ids(f.all(o.ID, gatehouse.EventFilter{Q: wide[:13]}, 50)), cmpEmpty); diff != "" {
		t.Errorf("q=%q walked (-want +got)\n%s", wide[:13], diff)
	}

	// Erasing a player whose event showed the job keeps its span.
	f.erasePlayer(o.ID, "player-40", 10)
	firstPage(job, slices.Delete(slices.Clone(mine), 1, 2))

	// Retention: the expired job's span is pruned with its events, the
	// others' stay.
	n, err := f.s.DeleteEventsBefore(ctx, o.ID, f.now.AddDate(0, 0, -400), 100)
	must(t, err)
	if n != 1 {
		t.Errorf("retention deleted %d events, want 1", n)
	}
	pruned, err := f.s.PruneTerms(ctx, o.ID)
	must(t, err)
	if pruned != 2 { // the expired event's player and job
		t.Errorf("PruneTerms = %d, want 2", pruned)
	}
	firstPage(job[:18], slices.Delete(slices.Clone(mine), 1, 2))
	firstPage(gone, nil)
	// The expired job comes back: its new event is found.
	back := at(2, gone)
	f.ingest(o.ID, back)
	firstPage(gone[:18], []gatehouse.NewEvent{back})
}
