package storetest

import (
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gatehouse/gatehouse"
	"github.com/google/uuid"
)

// The oracle compares the store with a plain in-memory filter: random
// organizations, locations, access points and events (names and ids with
// %, _, quotes, backslashes, CJK and case pairs; many events on one
// instant; access points and locations renamed between two ingests, so
// that events show different names of one place),
// then random combinations of every filter, q, window and page size, each
// walked through every page. It runs in rounds with different search
// budgets, so that small datasets take every search strategy (scan,
// longer scan, term by term, exact id).
//
// The seed is random per run and logged; GATEHOUSE_ORACLE_SEED repeats a
// run and GATEHOUSE_ORACLE_CASES sets the cases per round. A failure is
// printed as the smallest request that still fails.

// budgetSetter is a store whose search thresholds can be lowered.
type budgetSetter interface {
	SetSearchBudgets(gatehouse.SearchBudgets)
}

var oracleRounds = []gatehouse.SearchBudgets{
	{}, // the store's own
	{First: 3, Max: 40},
	{First: 1, Max: 1},
	{First: 25, Max: 25},
}

// oracleWorld is one organization's places and events.
type oracleWorld struct {
	org    gatehouse.Organization
	aps    []gatehouse.AccessPoint
	locOf  map[uuid.UUID]gatehouse.Location
	events []gatehouse.NewEvent // newest first, as the API orders them
	shown  map[uuid.UUID]shownNames
}

// shownNames are the names an event was recorded with.
type shownNames struct{ accessPoint, location string }

var oracleWords = []string{"Front door", "VIP_area", "50% off", `Gate "B"`, "Café Ñandú", "it's", `back\slash`,
	"Ünïcode", "_%_", "ＦＵＬＬ", "a'; DROP TABLE events; --", "日本の門",
	"İstanbul", "ıstanbul", "ſtraße", "ΟΔΟΣ", "οδος", "µmol"} // FoldCase's cases

func testOracle(t *testing.T, f *fixture) {
	seed := uint64(time.Now().UnixNano())
	if s := os.Getenv("GATEHOUSE_ORACLE_SEED"); s != "" {
		var err error
		if seed, err = strconv.ParseUint(s, 10, 64); err != nil {
			t.Fatalf("GATEHOUSE_ORACLE_SEED=%q: %v", s, err)
		}
	}
	cases := 500
	if s := os.Getenv("GATEHOUSE_ORACLE_CASES"); s != "" {
		cases, _ = strconv.Atoi(s)
	}
	t.Logf("oracle seed %d (GATEHOUSE_ORACLE_SEED=%d repeats this run)", seed, seed)
	setter, canSet := f.s.(budgetSetter)
	total, counted := 0, 0
	for round, budgets := range oracleRounds {
		if budgets != (gatehouse.SearchBudgets{}) {
			if !canSet {
				continue
			}
			setter.SetSearchBudgets(budgets)
		}
		rng := rand.New(rand.NewPCG(seed, uint64(round)))
		worlds := make([]oracleWorld, 3)
		for i := range worlds {
			worlds[i] = newOracleWorld(rng, f, fmt.Sprintf("Org %d.%d", round, i))
		}
		for c := range cases {
			w := worlds[rng.IntN(len(worlds))]
			flt, limit := randomFilter(rng, f, w, worlds)
			if got, want := oracleRun(f, w, flt, limit); !slices.Equal(got, want) {
				flt = shrink(f, w, flt, limit)
				got, want = oracleRun(f, w, flt, limit)
				t.Fatalf("seed %d, round %d (budgets %+v), case %d: GET /api/consumer/v1/events?%s walked with limit=%d:\n got %d events %v\nwant %d events %v",
					seed, round, budgets, c, describe(flt), limit, len(got), got, len(want), want)
			}
			if c%4 == 0 {
				checkCounts(t, f, w, flt, rng)
				checkInsights(t, f, w, flt, rng)
				counted++
			}
			total++
		}
	}
	t.Logf("oracle: %d cases, every page walked, all equal; %d of them counted in buckets and insights too", total, counted)
}

func newOracleWorld(rng *rand.Rand, f *fixture, name string) oracleWorld {
	w := oracleWorld{org: f.org(name), locOf: map[uuid.UUID]gatehouse.Location{}, shown: map[uuid.UUID]shownNames{}}
	word := func() string { return oracleWords[rng.IntN(len(oracleWords))] }
	for l := range 1 + rng.IntN(3) {
		loc := f.location(w.org.ID, fmt.Sprint(word(), " ", l))
		for a := range 1 + rng.IntN(3) {
			ap := f.accessPoint(w.org.ID, loc.ID, fmt.Sprint(word(), " ", a))
			w.aps = append(w.aps, ap)
			w.locOf[ap.ID] = loc
		}
	}
	users := []string{"100", "101", "1001", "10_0", "5%", `o'brien`, "Ünï"}
	jobs := []string{"job_1", "job%2", "JOB-3", uuid.NewString(), uuid.NewString()}
	for range 20 + rng.IntN(280) {
		ap := w.aps[rng.IntN(len(w.aps))]
		ev := f.attempt(ap, gatehouse.EventTypes[rng.IntN(3)], rng.IntN(30)) // many ties
		if rng.IntN(4) == 0 {
			ev.OccurredAt = ev.OccurredAt.Add(time.Duration(rng.IntN(1000)) * time.Millisecond)
		}
		switch ev.Type {
		case gatehouse.EventAccessDenied:
			ev.Reason = ptr([]string{"OUTSIDE_SCHEDULE", "NOT_ON_ALLOWLIST", "BANNED"}[rng.IntN(3)])
		case gatehouse.EventRemoteUnlock:
			ev.Allowed, ev.Scope = nil, ptr(gatehouse.CommandScopes[rng.IntN(3)])
		}
		if rng.IntN(3) > 0 || ev.Scope != nil && *ev.Scope == gatehouse.ScopePlayer {
			ev.PlatformUserID = ptr(users[rng.IntN(len(users))])
		}
		if rng.IntN(2) == 0 || ev.Scope != nil && *ev.Scope == gatehouse.ScopeServer {
			ev.ServerJobID = ptr(jobs[rng.IntN(len(jobs))])
		}
		w.events = append(w.events, ev)
	}
	// Half the events, renames, the other half: the terms of both names
	// must find each event by the name it shows.
	half := len(w.events) / 2
	w.record(f, w.events[:half])
	for i, ap := range w.aps {
		if rng.IntN(3) == 0 {
			renamed, err := f.s.RenameAccessPoint(ctx, gatehouse.SystemEntry(gatehouse.AuditAccessPointRenamed), w.org.ID, ap.ID, word()+" renamed")
			must(f.t, err)
			w.aps[i].Name = renamed.Name
		}
	}
	renamed := map[uuid.UUID]bool{}
	for _, ap := range w.aps { // in order, so that a seed repeats the run
		loc := w.locOf[ap.ID]
		if renamed[loc.ID] || rng.IntN(4) > 0 {
			continue
		}
		renamed[loc.ID] = true
		moved, err := f.s.RenameLocation(ctx, gatehouse.SystemEntry(gatehouse.AuditLocationRenamed), w.org.ID, loc.ID, "Moved "+word())
		must(f.t, err)
		for apID, l := range w.locOf {
			if l.ID == moved.ID {
				l.Name = moved.Name
				w.locOf[apID] = l
			}
		}
	}
	w.record(f, w.events[half:])
	sortNewestFirst(w.events)
	return w
}

// sortNewestFirst sorts events in the event order: occurredAt
// descending, then id descending.
func sortNewestFirst(events []gatehouse.NewEvent) {
	slices.SortFunc(events, func(a, b gatehouse.NewEvent) int {
		if c := b.OccurredAt.Compare(a.OccurredAt); c != 0 {
			return c
		}
		return strings.Compare(string(b.ID[:]), string(a.ID[:]))
	})
}

// record ingests events and notes the names each one shows.
func (w oracleWorld) record(f *fixture, events []gatehouse.NewEvent) {
	for _, e := range events {
		w.shown[e.ID] = shownNames{w.apName(e.AccessPointID), w.locOf[e.AccessPointID].Name}
	}
	f.ingest(w.org.ID, events...)
}

func (w oracleWorld) apName(id uuid.UUID) string {
	for _, ap := range w.aps {
		if ap.ID == id {
			return ap.Name
		}
	}
	return ""
}

// oracleRun walks every page from the store, as the API does (exact-id
// lookup first), and filters in memory; it returns both id lists.
func oracleRun(f *fixture, w oracleWorld, flt gatehouse.EventFilter, limit int) (got, want []uuid.UUID) {
	f.t.Helper()
	flt.Limit = limit
	for {
		page, err := gatehouse.FindEvents(ctx, f.s, w.org.ID, flt)
		must(f.t, err)
		got = append(got, ids(page.Events)...)
		if page.Next == nil {
			break
		}
		flt.After = page.Next
	}
	flt.After = nil
	if id, err := gatehouse.ParseUUID(flt.Q); err == nil {
		exact := flt
		exact.ID, exact.Q = &id, ""
		for _, e := range w.events {
			if e.ID == id && w.matches(e, exact) {
				return got, []uuid.UUID{id}
			}
		}
	}
	for _, e := range w.events {
		if w.matches(e, flt) {
			want = append(want, e.ID)
		}
	}
	return got, want
}

// matches is the reference filter: plain Go, one condition per filter.
func (w oracleWorld) matches(e gatehouse.NewEvent, flt gatehouse.EventFilter) bool {
	loc, shown := w.locOf[e.AccessPointID], w.shown[e.ID]
	switch {
	case flt.ID != nil && *flt.ID != e.ID,
		flt.AccessPointID != nil && *flt.AccessPointID != e.AccessPointID,
		flt.LocationID != nil && *flt.LocationID != loc.ID,
		len(flt.Types) > 0 && !slices.Contains(flt.Types, e.Type),
		flt.Allowed != nil && (e.Allowed == nil || *e.Allowed != *flt.Allowed),
		flt.PlatformUserID != nil && (e.PlatformUserID == nil || *e.PlatformUserID != *flt.PlatformUserID),
		flt.Reason != nil && (e.Reason == nil || *e.Reason != *flt.Reason),
		flt.Scope != nil && (e.Scope == nil || *e.Scope != *flt.Scope),
		!flt.Within.Has(loc.ID), // nil: the whole organization; empty: nothing
		flt.From != nil && e.OccurredAt.Before(*flt.From),
		flt.To != nil && !e.OccurredAt.Before(*flt.To),
		flt.Q != "" && !gatehouse.MatchesQ(flt.Q, e.ID, gatehouse.SearchText(e.PlatformUserID, shown.accessPoint, shown.location, e.Reason, e.ServerJobID)):
		return false
	}
	return true
}

// checkCounts compares the store's bucketed counts of the filter (over a
// window, which counting needs) with the reference filter's.
func checkCounts(t *testing.T, f *fixture, w oracleWorld, flt gatehouse.EventFilter, rng *rand.Rand) {
	t.Helper()
	if flt.From == nil {
		flt.From = ptr(f.now.Add(-40 * time.Minute))
	}
	if flt.To == nil {
		flt.To = ptr(f.now.Add(time.Minute))
	}
	checkCountsBy(t, f, w, flt, []time.Duration{time.Minute, 7 * time.Minute, time.Hour}[rng.IntN(3)])
}

// checkCountsBy compares the store's counts of the filter (From and To
// set) in buckets of step with the reference filter's.
func checkCountsBy(t *testing.T, f *fixture, w oracleWorld, flt gatehouse.EventFilter, step time.Duration) {
	t.Helper()
	want := gatehouse.NewEventCounts(*flt.From, *flt.To, step)
	for _, e := range w.events {
		if w.matches(e, flt) {
			o := gatehouse.Outcome("")
			if e.Allowed != nil {
				o = *e.Allowed
			}
			want[int(e.OccurredAt.Sub(*flt.From)/step)].Add(o, 1)
		}
	}
	got, err := f.s.CountEvents(ctx, w.org.ID, flt, step)
	must(t, err)
	if !slices.EqualFunc(got, want, func(a, b gatehouse.EventCount) bool {
		return a.Start.Equal(b.Start) && a.Granted == b.Granted && a.Denied == b.Denied && a.Other == b.Other
	}) {
		t.Fatalf("counts of %s by %v:\n got %+v\nwant %+v", describe(flt), step, got, want)
	}
}

// shrink drops the filter's conditions one at a time while the store and
// the oracle still disagree, so the reported request is a small one.
func shrink(f *fixture, w oracleWorld, flt gatehouse.EventFilter, limit int) gatehouse.EventFilter {
	drops := []func(*gatehouse.EventFilter){
		func(x *gatehouse.EventFilter) { x.AccessPointID = nil },
		func(x *gatehouse.EventFilter) { x.LocationID = nil },
		func(x *gatehouse.EventFilter) { x.Types = nil },
		func(x *gatehouse.EventFilter) { x.Allowed = nil },
		func(x *gatehouse.EventFilter) { x.PlatformUserID = nil },
		func(x *gatehouse.EventFilter) { x.Reason = nil },
		func(x *gatehouse.EventFilter) { x.Scope = nil },
		func(x *gatehouse.EventFilter) { x.Q = "" },
		func(x *gatehouse.EventFilter) { x.From = nil },
		func(x *gatehouse.EventFilter) { x.To = nil },
		func(x *gatehouse.EventFilter) { x.Within = nil },
	}
	for _, drop := range drops {
		smaller := flt
		drop(&smaller)
		if got, want := oracleRun(f, w, smaller, limit); !slices.Equal(got, want) {
			flt = smaller
		}
	}
	return flt
}
