package storetest

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gatehouse/gatehouse"
	"github.com/google/go-cmp/cmp"
	"github.com/google/uuid"
)

// scene is an organization with one event of each kind the filters tell apart.
type scene struct {
	org                                                      gatehouse.Organization
	hq, club                                                 gatehouse.Location
	front, vip, gate                                         gatehouse.AccessPoint
	granted, denied, schedule, server, player, universe, odd gatehouse.NewEvent
}

func newScene(f *fixture, name string) scene {
	s := scene{org: f.org(name)}
	s.hq, s.club = f.location(s.org.ID, "HQ"), f.location(s.org.ID, "Café Ñandú")
	s.front = f.accessPoint(s.org.ID, s.hq.ID, "Front door")
	s.vip = f.accessPoint(s.org.ID, s.hq.ID, "VIP area")
	s.gate = f.accessPoint(s.org.ID, s.club.ID, `Gate "50%_off" \ 'B'`)
	s.granted = f.attempt(s.front, gatehouse.EventAccessGranted, 10)
	s.granted.PlatformUserID, s.granted.ServerJobID = ptr("111"), ptr("job-A")
	s.denied = f.attempt(s.vip, gatehouse.EventAccessDenied, 20)
	s.denied.PlatformUserID, s.denied.Reason = ptr("222"), ptr(gatehouse.ReasonNotOnAllowlist)
	s.schedule = f.attempt(s.gate, gatehouse.EventAccessDenied, 30)
	s.schedule.PlatformUserID, s.schedule.Reason = ptr("111"), ptr(gatehouse.ReasonOutsideSchedule)
	s.server = f.attempt(s.vip, gatehouse.EventRemoteUnlock, 40)
	s.server.Allowed, s.server.Scope, s.server.ServerJobID = nil, ptr(gatehouse.ScopeServer), ptr("9b2f3c4d-0000-4000-8000-00000000000a")
	s.player = f.attempt(s.front, gatehouse.EventRemoteUnlock, 50)
	s.player.Allowed, s.player.Scope, s.player.PlatformUserID = nil, ptr(gatehouse.ScopePlayer), ptr("333")
	s.universe = f.attempt(s.gate, gatehouse.EventRemoteUnlock, 60)
	s.universe.Allowed, s.universe.Scope = nil, ptr(gatehouse.ScopeUniverse)
	s.odd = f.attempt(s.gate, gatehouse.EventAccessGranted, 70)
	s.odd.PlatformUserID = ptr("ÜBER_user")
	f.ingest(s.org.ID, s.granted, s.denied, s.schedule, s.server, s.player, s.universe, s.odd)
	return s
}

func (s scene) all() []gatehouse.NewEvent {
	return []gatehouse.NewEvent{s.granted, s.denied, s.schedule, s.server, s.player, s.universe, s.odd}
}

func testEventFilters(t *testing.T, f *fixture) {
	s := newScene(f, "Acme")
	at := func(e gatehouse.NewEvent) *time.Time { return &e.OccurredAt }
	for _, tc := range []struct {
		name   string
		filter gatehouse.EventFilter
		want   []gatehouse.NewEvent
	}{
		{"none", gatehouse.EventFilter{}, s.all()},
		{"id", gatehouse.EventFilter{ID: &s.denied.ID}, []gatehouse.NewEvent{s.denied}},
		{"access point", gatehouse.EventFilter{AccessPointID: &s.front.ID}, []gatehouse.NewEvent{s.granted, s.player}},
		{"location", gatehouse.EventFilter{LocationID: &s.club.ID}, []gatehouse.NewEvent{s.schedule, s.universe, s.odd}},
		{"one type", gatehouse.EventFilter{Types: []gatehouse.EventType{gatehouse.EventAccessDenied}}, []gatehouse.NewEvent{s.denied, s.schedule}},
		{"two types", gatehouse.EventFilter{Types: []gatehouse.EventType{gatehouse.EventAccessDenied, gatehouse.EventRemoteUnlock}},
			[]gatehouse.NewEvent{s.denied, s.schedule, s.server, s.player, s.universe}},
		{"granted", gatehouse.EventFilter{Allowed: ptr(gatehouse.Granted)}, []gatehouse.NewEvent{s.granted, s.odd}},
		{"denied", gatehouse.EventFilter{Allowed: ptr(gatehouse.Denied)}, []gatehouse.NewEvent{s.denied, s.schedule}},
		{"user", gatehouse.EventFilter{PlatformUserID: ptr("111")}, []gatehouse.NewEvent{s.granted, s.schedule}},
		{"reason", gatehouse.EventFilter{Reason: ptr(gatehouse.ReasonOutsideSchedule)}, []gatehouse.NewEvent{s.schedule}},
		{"scope", gatehouse.EventFilter{Scope: ptr(gatehouse.ScopeServer)}, []gatehouse.NewEvent{s.server}},
		{"from is inclusive", gatehouse.EventFilter{From: at(s.schedule)}, []gatehouse.NewEvent{s.granted, s.denied, s.schedule}},
		{"to is exclusive", gatehouse.EventFilter{To: at(s.schedule)}, []gatehouse.NewEvent{s.server, s.player, s.universe, s.odd}},
		{"combined", gatehouse.EventFilter{Allowed: ptr(gatehouse.Denied), PlatformUserID: ptr("111"), LocationID: &s.club.ID, From: at(s.odd)},
			[]gatehouse.NewEvent{s.schedule}},
		{"nothing", gatehouse.EventFilter{PlatformUserID: ptr("111"), Scope: ptr(gatehouse.ScopePlayer)}, nil},
	} {
		got := f.all(s.org.ID, tc.filter, 3)
		if diff := cmp.Diff(newIDs(tc.want...), ids(got), cmpEmpty); diff != "" {
			t.Errorf("%s (-want +got)\n%s", tc.name, diff)
		}
	}
	page, err := f.s.ListEvents(ctx, gatehouse.NewID(), gatehouse.EventFilter{Limit: 10})
	if err != nil || len(page.Events) != 0 || page.Next != nil {
		t.Errorf("unknown organization: %v %v", page, err)
	}
}

var cmpEmpty = cmp.Comparer(func(a, b []uuid.UUID) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
})

func testSearchQ(t *testing.T, f *fixture) {
	s := newScene(f, "Acme")
	for _, tc := range []struct {
		q    string
		want []gatehouse.NewEvent
	}{
		{"vip", []gatehouse.NewEvent{s.denied, s.server}},
		{"VIP AREA", []gatehouse.NewEvent{s.denied, s.server}},
		{"café", []gatehouse.NewEvent{s.schedule, s.universe, s.odd}},
		{"ÑANDÚ", []gatehouse.NewEvent{s.schedule, s.universe, s.odd}},
		{"über", []gatehouse.NewEvent{s.odd}},
		{"50%_", []gatehouse.NewEvent{s.schedule, s.universe, s.odd}},
		{"%", []gatehouse.NewEvent{s.schedule, s.universe, s.odd}},
		{"0%", []gatehouse.NewEvent{s.schedule, s.universe, s.odd}},
		{"_", []gatehouse.NewEvent{s.denied, s.schedule, s.universe, s.odd}},
		{`"`, []gatehouse.NewEvent{s.schedule, s.universe, s.odd}},
		{`" \ '`, []gatehouse.NewEvent{s.schedule, s.universe, s.odd}},
		{`\`, []gatehouse.NewEvent{s.schedule, s.universe, s.odd}},
		{"'b'", []gatehouse.NewEvent{s.schedule, s.universe, s.odd}},
		{"schedule", []gatehouse.NewEvent{s.schedule}},
		{"job-a", []gatehouse.NewEvent{s.granted}},
		{"9B2F3C4D", []gatehouse.NewEvent{s.server}},
		{"11", []gatehouse.NewEvent{s.granted, s.schedule}},
		{"3", []gatehouse.NewEvent{s.server, s.player}},
		{s.denied.ID.String()[:4], []gatehouse.NewEvent{s.denied}},                               // an id prefix
		{strings.ToUpper(s.denied.ID.String()[:13]), []gatehouse.NewEvent{s.denied}},             // with its hyphen, any case
		{strings.ReplaceAll(s.denied.ID.String(), "-", "")[:20], []gatehouse.NewEvent{s.denied}}, // without hyphens
		{s.denied.ID.String()[24:], nil},                                                         // not the middle of an id
		{s.denied.ID.String()[:3], nil},                                                          // nor fewer than four digits
		{s.denied.ID.String()[:4] + "-" + s.denied.ID.String()[4:8], nil},                        // nor hyphens elsewhere
		{"no such thing", nil},
		{"o%d", nil},  // % is no wildcard
		{"d_or", nil}, // _ is no wildcard
	} {
		got := f.all(s.org.ID, gatehouse.EventFilter{Q: tc.q}, 2)
		want := tc.want
		// Digits and pieces of ids can occur in generated ids and job ids
		// too: check those against the reference, and that the reference
		// agrees with the hand-written list but for such chance matches.
		if _, _, prefix := gatehouse.IDPrefix(tc.q); prefix || strings.ContainsAny(tc.q, "0123456789") {
			ref := reference(s.all(), s, tc.q)
			for _, e := range tc.want {
				if !slices.ContainsFunc(ref, func(r gatehouse.NewEvent) bool { return r.ID == e.ID }) {
					t.Errorf("q=%q: the reference misses %s", tc.q, e.ID)
				}
			}
			want = ref
		}
		if diff := cmp.Diff(newIDs(want...), ids(got), cmpEmpty); diff != "" {
			t.Errorf("q=%q (-want +got)\n%s", tc.q, diff)
		}
	}
}

// reference filters a scene's events by q the way gatehouse.MatchesQ says.
func reference(events []gatehouse.NewEvent, s scene, q string) []gatehouse.NewEvent {
	names := map[uuid.UUID][2]string{
		s.front.ID: {s.front.Name, s.hq.Name}, s.vip.ID: {s.vip.Name, s.hq.Name}, s.gate.ID: {s.gate.Name, s.club.Name},
	}
	var out []gatehouse.NewEvent
	for _, e := range events {
		n := names[e.AccessPointID]
		if gatehouse.MatchesQ(q, e.ID, gatehouse.SearchText(e.PlatformUserID, n[0], n[1], e.Reason, e.ServerJobID)) {
			out = append(out, e)
		}
	}
	return out
}

func testFindEventsExactID(t *testing.T, f *fixture) {
	s := newScene(f, "Acme")
	other := newScene(f, "Beta")
	for _, tc := range []struct {
		name, q string
		want    []gatehouse.NewEvent
	}{
		{"an event id", s.denied.ID.String(), []gatehouse.NewEvent{s.denied}},
		{"bare hex, upper case", fmt.Sprintf("%X", s.denied.ID[:]), []gatehouse.NewEvent{s.denied}}, // not the canonical form: the whole id as a prefix
		{"canonical upper case", upper(s.denied.ID.String()), []gatehouse.NewEvent{s.denied}},
		{"a job id that is a UUID", "9b2f3c4d-0000-4000-8000-00000000000a", []gatehouse.NewEvent{s.server}},
		{"another organization's event", other.denied.ID.String(), nil},
	} {
		page, err := gatehouse.FindEvents(ctx, f.s, s.org.ID, gatehouse.EventFilter{Q: tc.q, Limit: 50})
		must(t, err)
		if diff := cmp.Diff(newIDs(tc.want...), ids(page.Events), cmpEmpty); diff != "" || page.Next != nil {
			t.Errorf("%s (-want +got)\n%s", tc.name, diff)
		}
	}
}

func upper(s string) string {
	b := []byte(s)
	for i, c := range b {
		if 'a' <= c && c <= 'z' {
			b[i] = c - 'a' + 'A'
		}
	}
	return string(b)
}

// testKeyset walks events that share timestamps while new ones arrive on
// both sides of the walk's position.
func testKeyset(t *testing.T, f *fixture) {
	a := f.org("Acme")
	door := f.accessPoint(a.ID, f.location(a.ID, "HQ").ID, "Front door")
	var evs []gatehouse.NewEvent
	for i := range 40 {
		evs = append(evs, f.attempt(door, gatehouse.EventAccessDenied, i/8)) // 8 events per instant
	}
	f.ingest(a.ID, evs...)
	for _, limit := range []int{1, 7} {
		seen := map[uuid.UUID]int{}
		var last *gatehouse.EventKey
		filter := gatehouse.EventFilter{Limit: limit}
		for page := 0; ; page++ {
			p, err := f.s.ListEvents(ctx, a.ID, filter)
			must(t, err)
			for _, e := range p.Events {
				k := e.Key()
				if last != nil && !before(k, *last) {
					t.Fatalf("limit %d: %v does not follow %v", limit, k, *last)
				}
				last = &k
				seen[e.ID]++
			}
			// Arrivals: one newer than everything, one at the walk's position.
			newer, same := f.attempt(door, gatehouse.EventAccessDenied, -page-1), f.attempt(door, gatehouse.EventAccessDenied, 0)
			if last != nil {
				same.OccurredAt = last.OccurredAt
			}
			f.ingest(a.ID, newer, same)
			if p.Next == nil {
				break
			}
			filter.After = p.Next
		}
		for _, e := range evs {
			if seen[e.ID] != 1 {
				t.Errorf("limit %d: event %s seen %d times", limit, e.ID, seen[e.ID])
			}
		}
	}
}

// before reports whether a comes after b in the event order (is older).
func before(a, b gatehouse.EventKey) bool {
	if !a.OccurredAt.Equal(b.OccurredAt) {
		return a.OccurredAt.Before(b.OccurredAt)
	}
	return string(a.ID[:]) < string(b.ID[:])
}

func testIsolation(t *testing.T, f *fixture) {
	a, b := newScene(f, "Acme"), newScene(f, "Beta")
	// The same event ids in both organizations.
	shared := f.attempt(a.front, gatehouse.EventAccessGranted, 1)
	f.ingest(a.org.ID, shared)
	theirs := shared
	theirs.AccessPointID = b.front.ID
	if res := f.ingest(b.org.ID, theirs); res.Accepted != 1 {
		t.Fatalf("the same id in another organization: %+v", res)
	}
	mine := map[uuid.UUID]bool{}
	for _, e := range append(a.all(), shared) {
		mine[e.ID] = true
	}
	filters := []gatehouse.EventFilter{
		{}, {AccessPointID: &b.front.ID}, {LocationID: &b.club.ID}, {ID: &b.denied.ID}, {Q: b.denied.ID.String()},
		{Q: "job-a"}, {Q: "front"}, {PlatformUserID: ptr("111")}, {Scope: ptr(gatehouse.ScopeServer)},
		{Reason: ptr(gatehouse.ReasonOutsideSchedule)}, {ID: &shared.ID},
	}
	for i, filter := range filters {
		page, err := gatehouse.FindEvents(ctx, f.s, a.org.ID, gatehouse.EventFilter{Limit: 100, ID: filter.ID, AccessPointID: filter.AccessPointID,
			LocationID: filter.LocationID, Q: filter.Q, PlatformUserID: filter.PlatformUserID, Scope: filter.Scope, Reason: filter.Reason})
		must(t, err)
		for _, e := range page.Events {
			if !mine[e.ID] || e.AccessPoint.ID == b.front.ID || e.Location.ID == b.hq.ID || e.Location.ID == b.club.ID {
				t.Errorf("filter %d returned Beta's event %s at %s", i, e.ID, e.AccessPoint.ID)
			}
		}
	}
}
