package storetest

import (
	"bytes"
	"fmt"
	"slices"
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
