package storetest

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gatehouse/gatehouse"
	"github.com/google/uuid"
)

// testOracle compares the store with a plain in-memory filter on random
// data and random queries: every field, q in random case, random page
// sizes, every page walked. The data is seeded, so a failure repeats.
func testOracle(t *testing.T, f *fixture) {
	rng := rand.New(rand.NewPCG(2026, 11))
	words := []string{"Front door", "VIP_area", "50% off", `Gate "B"`, "Café Ñandú", "it's", `back\slash`, "Ünïcode"}
	type place struct {
		ap  gatehouse.AccessPoint
		loc gatehouse.Location
	}
	type world struct {
		org    gatehouse.Organization
		places []place
		events []gatehouse.NewEvent
	}
	var worlds []world
	for o := range 2 {
		w := world{org: f.org(fmt.Sprint("Org ", o))}
		for l := range 3 {
			loc := f.location(w.org.ID, words[rng.IntN(len(words))]+fmt.Sprint(" ", l))
			for a := range 2 {
				w.places = append(w.places, place{f.accessPoint(w.org.ID, loc.ID, words[rng.IntN(len(words))]+fmt.Sprint(" ", a)), loc})
			}
		}
		for range 150 {
			p := w.places[rng.IntN(len(w.places))]
			ev := f.attempt(p.ap, gatehouse.EventTypes[rng.IntN(3)], rng.IntN(20)) // many ties
			switch ev.Type {
			case gatehouse.EventAccessGranted:
				ev.Allowed = ptr(gatehouse.Granted)
			case gatehouse.EventAccessDenied:
				ev.Allowed = ptr(gatehouse.Denied)
				ev.Reason = ptr([]string{"OUTSIDE_SCHEDULE", "NOT_ON_ALLOWLIST"}[rng.IntN(2)])
			default:
				ev.Allowed, ev.Scope = nil, ptr(gatehouse.CommandScopes[rng.IntN(3)])
			}
			if rng.IntN(3) > 0 {
				ev.PlatformUserID = ptr(fmt.Sprint(100 + rng.IntN(6)))
			}
			if rng.IntN(2) == 0 {
				ev.ServerJobID = ptr([]string{"job_1", "job%2", "JOB-3"}[rng.IntN(3)])
			}
			w.events = append(w.events, ev)
		}
		f.ingest(w.org.ID, w.events...)
		worlds = append(worlds, w)
	}

	names := map[uuid.UUID]place{}
	for _, w := range worlds {
		for _, p := range w.places {
			names[p.ap.ID] = p
		}
	}
	matches := func(e gatehouse.NewEvent, flt gatehouse.EventFilter) bool {
		p := names[e.AccessPointID]
		switch {
		case flt.AccessPointID != nil && *flt.AccessPointID != e.AccessPointID,
			flt.LocationID != nil && *flt.LocationID != p.loc.ID,
			len(flt.Types) > 0 && !slices.Contains(flt.Types, e.Type),
			flt.Allowed != nil && (e.Allowed == nil || *e.Allowed != *flt.Allowed),
			flt.PlatformUserID != nil && (e.PlatformUserID == nil || *e.PlatformUserID != *flt.PlatformUserID),
			flt.Reason != nil && (e.Reason == nil || *e.Reason != *flt.Reason),
			flt.Scope != nil && (e.Scope == nil || *e.Scope != *flt.Scope),
			flt.From != nil && e.OccurredAt.Before(*flt.From),
			flt.To != nil && !e.OccurredAt.Before(*flt.To),
			flt.Q != "" && !gatehouse.MatchesQ(gatehouse.SearchText(e.ID, e.PlatformUserID, p.ap.Name, p.loc.Name, e.Reason, e.ServerJobID), flt.Q):
			return false
		}
		return true
	}

	for i := range 200 {
		w := worlds[rng.IntN(2)]
		other := worlds[1-slices.IndexFunc(worlds, func(x world) bool { return x.org.ID == w.org.ID })]
		var flt gatehouse.EventFilter
		pick := func() bool { return rng.IntN(4) == 0 }
		if pick() {
			pl := w.places
			if rng.IntN(4) == 0 {
				pl = other.places // a foreign id: must match nothing
			}
			flt.AccessPointID = &pl[rng.IntN(len(pl))].ap.ID
		}
		if pick() {
			flt.LocationID = &w.places[rng.IntN(len(w.places))].loc.ID
		}
		if pick() {
			flt.Types = []gatehouse.EventType{gatehouse.EventTypes[rng.IntN(3)], gatehouse.EventTypes[rng.IntN(3)]}
		}
		if pick() {
			flt.Allowed = ptr([]gatehouse.Outcome{gatehouse.Granted, gatehouse.Denied}[rng.IntN(2)])
		}
		if pick() {
			flt.PlatformUserID = ptr(fmt.Sprint(100 + rng.IntN(6)))
		}
		if pick() {
			flt.Reason = ptr([]string{"OUTSIDE_SCHEDULE", "NOT_ON_ALLOWLIST"}[rng.IntN(2)])
		}
		if pick() {
			flt.Scope = &gatehouse.CommandScopes[rng.IntN(3)]
		}
		if rng.IntN(2) == 0 {
			flt.Q = randomTerm(rng, w.events[rng.IntN(len(w.events))], names[w.events[0].AccessPointID].ap.Name, words)
		}
		if pick() {
			from := f.now.Add(-time.Duration(rng.IntN(20)) * time.Minute)
			flt.From = &from
		}
		if pick() {
			to := f.now.Add(-time.Duration(rng.IntN(20)) * time.Minute)
			flt.To = &to
		}
		var want []uuid.UUID
		sorted := slices.Clone(w.events)
		slices.SortFunc(sorted, func(a, b gatehouse.NewEvent) int {
			if c := b.OccurredAt.Compare(a.OccurredAt); c != 0 {
				return c
			}
			return strings.Compare(string(b.ID[:]), string(a.ID[:]))
		})
		for _, e := range sorted {
			if matches(e, flt) {
				want = append(want, e.ID)
			}
		}
		limit := 1 + rng.IntN(40)
		got := ids(f.all(w.org.ID, flt, limit))
		if !slices.Equal(want, got) {
			t.Fatalf("case %d, limit %d, filter %s: got %d events, want %d", i, limit, describe(flt), len(got), len(want))
		}
	}
}

// randomTerm is a substring of one of the event's searched fields, or a
// word of the vocabulary, in random case.
func randomTerm(rng *rand.Rand, e gatehouse.NewEvent, apName string, words []string) string {
	fields := []string{e.ID.String(), apName, words[rng.IntN(len(words))]}
	if e.PlatformUserID != nil {
		fields = append(fields, *e.PlatformUserID)
	}
	if e.ServerJobID != nil {
		fields = append(fields, *e.ServerJobID)
	}
	r := []rune(fields[rng.IntN(len(fields))])
	start := rng.IntN(len(r))
	term := r[start : start+1+rng.IntN(min(len(r)-start, 6))]
	for i := range term {
		if rng.IntN(2) == 0 {
			term[i] = []rune(strings.ToUpper(string(term[i])))[0]
		}
	}
	return string(term)
}

// describe writes a filter as a query string, to reproduce a failure.
func describe(f gatehouse.EventFilter) string {
	var parts []string
	add := func(k, v string) { parts = append(parts, k+"="+v) }
	if f.AccessPointID != nil {
		add("accessPointId", f.AccessPointID.String())
	}
	if f.LocationID != nil {
		add("locationId", f.LocationID.String())
	}
	for _, t := range f.Types {
		add("type", string(t))
	}
	if f.Allowed != nil {
		add("allowed", string(*f.Allowed))
	}
	if f.PlatformUserID != nil {
		add("platformUserId", *f.PlatformUserID)
	}
	if f.Reason != nil {
		add("reason", *f.Reason)
	}
	if f.Scope != nil {
		add("scope", string(*f.Scope))
	}
	if f.Q != "" {
		add("q", fmt.Sprintf("%q", f.Q))
	}
	if f.From != nil {
		add("dateFrom", gatehouse.FormatTime(*f.From))
	}
	if f.To != nil {
		add("dateTo", gatehouse.FormatTime(*f.To))
	}
	return strings.Join(parts, "&")
}
