package storetest

import (
	"slices"
	"testing"
	"time"

	"github.com/gatehouse/gatehouse"
	"github.com/google/uuid"
)

// reachPlace is an organization with three locations: HQ (p's, with
// its door) and Annex in universe 42, Yard in universe 43, each with an
// access point.
type reachPlace struct {
	unlockPlace
	annex, yard gatehouse.Location
	gate, post  gatehouse.AccessPoint
}

func (f *fixture) reachPlace(name string) reachPlace {
	f.t.Helper()
	w := reachPlace{unlockPlace: f.unlockPlace(name)}
	w.annex = f.locationNaming(w.org.ID, "Annex", universe)
	w.yard = f.locationNaming(w.org.ID, "Yard", "43")
	w.gate = f.accessPoint(w.org.ID, w.annex.ID, "Gate")
	w.post = f.accessPoint(w.org.ID, w.yard.ID, "Post")
	return w
}

// locationNaming is a new location of org naming a universe.
func (f *fixture) locationNaming(org uuid.UUID, name, universeID string) gatehouse.Location {
	f.t.Helper()
	l, err := f.s.SetLocationUniverse(ctx, gatehouse.SystemEntry(gatehouse.AuditLocationUniverseSet), org, f.location(org, name).ID, universeID)
	must(f.t, err)
	return l
}

// reachOf is a set of locations as the service passes one: never nil.
func reachOf(ids ...uuid.UUID) gatehouse.Reach { return append(gatehouse.Reach{}, ids...) }

// testCommandsWithin: Within keeps the commands of its locations, in
// pages of any size; nil keeps them all, an empty set none, and a
// command of no location (an organization's lockdown) only nil.
func testCommandsWithin(t *testing.T, f *fixture) {
	w := f.reachPlace("acme")
	lockdown := f.startLockdown(f.newLockdown(w.unlockPlace, gatehouse.LockdownOrganization, nil))
	f.now = f.now.Add(time.Second)
	at := func(ap gatehouse.AccessPoint, loc gatehouse.Location) uuid.UUID {
		c := f.command(w.unlockPlace, gatehouse.ScopeUniverse, "job-1")
		c.AccessPoint, c.Location = gatehouse.NamedRef{ID: ap.ID, Name: ap.Name}, gatehouse.NamedRef{ID: loc.ID, Name: loc.Name}
		f.now = f.now.Add(time.Second)
		return f.create(c).ID
	}
	hq, annex, yard := at(w.door, w.loc), at(w.gate, w.annex), at(w.post, w.yard)
	hq2 := at(w.door, w.loc)
	org := f.listCommands(w.org.ID, gatehouse.CommandFilter{}, 50)
	if len(org) != 5 || org[4].Lockdown == nil || org[4].Lockdown.ID != lockdown.ID {
		t.Fatalf("the organization's commands %+v", org)
	}
	pending := gatehouse.CommandPending
	for _, tc := range []struct {
		name string
		f    gatehouse.CommandFilter
		want []uuid.UUID
	}{
		{"nil", gatehouse.CommandFilter{}, []uuid.UUID{hq2, yard, annex, hq, org[4].ID}},
		{"HQ", gatehouse.CommandFilter{Within: reachOf(w.loc.ID)}, []uuid.UUID{hq2, hq}},
		{"HQ and Yard", gatehouse.CommandFilter{Within: reachOf(w.yard.ID, w.loc.ID)}, []uuid.UUID{hq2, yard, hq}},
		{"Annex and an unknown location", gatehouse.CommandFilter{Within: reachOf(w.annex.ID, gatehouse.NewID())}, []uuid.UUID{annex}},
		{"with another filter", gatehouse.CommandFilter{Within: reachOf(w.loc.ID, w.annex.ID), AccessPointID: &w.gate.ID, Status: &pending}, []uuid.UUID{annex}},
		{"empty", gatehouse.CommandFilter{Within: reachOf()}, nil},
	} {
		for _, limit := range []int{1, 50} {
			got := pluck(f.listCommands(w.org.ID, tc.f, limit), func(c gatehouse.Command) uuid.UUID { return c.ID })
			if !slices.Equal(got, tc.want) {
				t.Errorf("%s, pages of %d: %v\nwant %v", tc.name, limit, got, tc.want)
			}
		}
	}
}

// testGrantsWithin: Within keeps the grants all of whose targets lie in
// its locations: a location grant of one of them, access points all in
// them (as they are now: moving one changes the answer). Nil keeps them
// all, an empty set none.
func testGrantsWithin(t *testing.T, f *fixture) {
	w := f.reachPlace("acme")
	next := func(g gatehouse.NewGrant) uuid.UUID {
		f.now = f.now.Add(time.Second)
		return f.createGrant(g).ID
	}
	hq := next(f.newGrant(w.org.ID, "111", &w.loc.ID))
	yard := next(f.newGrant(w.org.ID, "222", &w.yard.ID))
	both := next(f.newGrant(w.org.ID, "111", nil, w.door.ID, w.gate.ID)) // HQ and Annex
	gate := next(f.newGrant(w.org.ID, "333", nil, w.gate.ID))            // Annex
	type tc = struct {
		within gatehouse.Reach
		want   []uuid.UUID
	}
	check := func(when string, cases map[string]tc) {
		t.Helper()
		for name, tc := range cases {
			for _, limit := range []int{1, 50} {
				fl := gatehouse.GrantFilter{Within: tc.within, Limit: limit, Now: f.now}
				var got []uuid.UUID
				for range 20 {
					page, err := f.s.ListGrants(ctx, w.org.ID, fl)
					must(t, err)
					got = append(got, grantIDs(page.Grants)...)
					if page.Next == nil {
						break
					}
					fl.After = page.Next
				}
				if !slices.Equal(got, tc.want) {
					t.Errorf("%s, %s, pages of %d: %v\nwant %v", when, name, limit, got, tc.want)
				}
			}
		}
	}
	check("before the move", map[string]tc{
		"nil":                   {nil, []uuid.UUID{gate, both, yard, hq}},
		"HQ":                    {reachOf(w.loc.ID), []uuid.UUID{hq}},
		"Annex":                 {reachOf(w.annex.ID), []uuid.UUID{gate}},
		"HQ and Annex":          {reachOf(w.annex.ID, w.loc.ID), []uuid.UUID{gate, both, hq}},
		"Annex and Yard":        {reachOf(w.annex.ID, w.yard.ID), []uuid.UUID{gate, yard}},
		"an unknown location":   {reachOf(gatehouse.NewID()), nil},
		"empty":                 {reachOf(), nil},
		"all three and unknown": {reachOf(w.yard.ID, gatehouse.NewID(), w.annex.ID, w.loc.ID), []uuid.UUID{gate, both, yard, hq}},
	})
	if page, err := f.s.ListGrants(ctx, w.org.ID, gatehouse.GrantFilter{Within: reachOf(w.annex.ID, w.loc.ID),
		PlatformUserID: ptr("111"), Limit: 50, Now: f.now}); err != nil || !slices.Equal(grantIDs(page.Grants), []uuid.UUID{both, hq}) {
		t.Errorf("with a player: %v %v", grantIDs(page.Grants), err)
	}

	_, err := f.s.MoveAccessPoint(ctx, gatehouse.SystemEntry(gatehouse.AuditAccessPointMoved), w.org.ID, w.gate.ID, w.yard.ID)
	must(t, err)
	check("after the gate moved to Yard", map[string]tc{
		"nil":          {nil, []uuid.UUID{gate, both, yard, hq}},
		"HQ and Annex": {reachOf(w.annex.ID, w.loc.ID), []uuid.UUID{hq}},
		"Annex":        {reachOf(w.annex.ID), nil},
		"Yard":         {reachOf(w.yard.ID), []uuid.UUID{gate, yard}},
		"HQ and Yard":  {reachOf(w.loc.ID, w.yard.ID), []uuid.UUID{gate, both, yard, hq}},
		"empty":        {reachOf(), nil},
	})
}

// testLockdownsWithin: Within keeps the lockdowns that cover one of its
// locations: the organization's, a universe's that one of them names
// (now: changing a location's universe changes the answer), and a
// location's of one of them. Nil keeps them all, an empty set none.
func testLockdownsWithin(t *testing.T, f *fixture) {
	w := f.reachPlace("acme")
	start := func(scope gatehouse.LockdownScope, universeID string, loc *gatehouse.Location) uuid.UUID {
		f.now = f.now.Add(time.Second)
		nl := f.newLockdown(w.unlockPlace, scope, nil)
		if universeID != "" {
			nl.UniverseID = &universeID
		}
		if loc != nil {
			nl.LocationID, nl.Location = &loc.ID, &gatehouse.NamedRef{ID: loc.ID, Name: loc.Name}
		}
		nl.Commands = f.lockdownCommands(nl.Lockdown, &w.user.ID, nil)
		return f.startLockdown(nl).ID
	}
	org := start(gatehouse.LockdownOrganization, "", nil)
	u42 := start(gatehouse.LockdownUniverse, universe, nil)
	u43 := start(gatehouse.LockdownUniverse, "43", nil)
	u99 := start(gatehouse.LockdownUniverse, "99", nil) // no location's
	hq := start(gatehouse.LockdownLocation, "", &w.loc)
	yard := start(gatehouse.LockdownLocation, "", &w.yard)
	list := func(within gatehouse.Reach, limit int) []uuid.UUID {
		t.Helper()
		fl := gatehouse.LockdownFilter{Within: within, Limit: limit, Now: f.now}
		var out []uuid.UUID
		for range 20 {
			page, err := f.s.ListLockdowns(ctx, w.org.ID, fl)
			must(t, err)
			out = append(out, pluck(page.Lockdowns, func(l gatehouse.Lockdown) uuid.UUID { return l.ID })...)
			if page.Next == nil {
				break
			}
			fl.After = page.Next
		}
		return out
	}
	check := func(name string, within gatehouse.Reach, want ...uuid.UUID) {
		t.Helper()
		for _, limit := range []int{1, 50} {
			if got := list(within, limit); !slices.Equal(got, want) {
				t.Errorf("%s, pages of %d: %v\nwant %v", name, limit, got, want)
			}
		}
	}
	check("nil", nil, yard, hq, u99, u43, u42, org)
	check("HQ", reachOf(w.loc.ID), hq, u42, org)
	check("Annex", reachOf(w.annex.ID), u42, org)
	check("Yard", reachOf(w.yard.ID), yard, u43, org)
	check("HQ and Yard", reachOf(w.yard.ID, w.loc.ID), yard, hq, u43, u42, org)
	check("empty", reachOf())
	if page, err := f.s.ListLockdowns(ctx, w.org.ID, gatehouse.LockdownFilter{Within: reachOf(w.annex.ID), Active: true, Limit: 50, Now: f.now}); err != nil ||
		len(page.Lockdowns) != 2 || page.Lockdowns[0].ID != u42 || page.Lockdowns[1].ID != org {
		t.Errorf("active, Annex: %+v %v", page.Lockdowns, err)
	}

	_, err := f.s.SetLocationUniverse(ctx, gatehouse.SystemEntry(gatehouse.AuditLocationUniverseSet), w.org.ID, w.yard.ID, universe)
	must(t, err)
	check("Yard after it moved to universe 42", reachOf(w.yard.ID), yard, u42, org)
}

// testLocationsWithin: Within keeps its locations, paged by name then id
// over them only; nil keeps them all, an empty set none, and another
// organization's location in the set is not listed.
func testLocationsWithin(t *testing.T, f *fixture) {
	a, b := f.org("Acme"), f.org("Beta")
	annex, bay, hq, yard := f.location(a.ID, "Annex"), f.location(a.ID, "Bay"), f.location(a.ID, "HQ"), f.location(a.ID, "Yard")
	f.accessPoint(a.ID, yard.ID, "Post")
	theirs := f.location(b.ID, "Annex")
	walk := func(within gatehouse.Reach, limit int) []uuid.UUID {
		t.Helper()
		var (
			out   []uuid.UUID
			after *gatehouse.LocationKey
		)
		for range 20 {
			page, next, err := f.s.ListLocations(ctx, a.ID, limit, after, false, within)
			must(t, err)
			if len(page) > limit {
				t.Fatalf("a page of %d locations for limit %d", len(page), limit)
			}
			for _, l := range page {
				if l.ID == yard.ID && len(l.AccessPoints) != 1 {
					t.Errorf("Yard's access points %+v", l.AccessPoints)
				}
				out = append(out, l.ID)
			}
			if next == nil {
				return out
			}
			if len(page) != limit {
				t.Fatalf("a page of %d locations (limit %d) says more follow", len(page), limit)
			}
			after = next
		}
		t.Fatal("pages never end")
		return nil
	}
	for _, tc := range []struct {
		name   string
		within gatehouse.Reach
		want   []uuid.UUID
	}{
		{"nil", nil, []uuid.UUID{annex.ID, bay.ID, hq.ID, yard.ID}},
		{"all but Bay", reachOf(yard.ID, annex.ID, hq.ID), []uuid.UUID{annex.ID, hq.ID, yard.ID}},
		{"Yard and an unknown location", reachOf(gatehouse.NewID(), yard.ID), []uuid.UUID{yard.ID}},
		{"another organization's", reachOf(theirs.ID), nil},
		{"empty", reachOf(), nil},
	} {
		for _, limit := range []int{1, 2, 50} {
			if got := walk(tc.within, limit); !slices.Equal(got, tc.want) {
				t.Errorf("%s, pages of %d: %v\nwant %v", tc.name, limit, got, tc.want)
			}
		}
	}
}
