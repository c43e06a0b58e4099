package server_test

import (
	"net/http"
	"net/url"
	"slices"
	"testing"
	"time"

	"github.com/gatehouse/gatehouse"
	"github.com/google/go-cmp/cmp"
)

// fixture is one organization with one event of each kind the filters tell apart.
type fixture struct {
	env *env
	org org
	// named events
	granted, denied, schedule, server, player, universe, percent gatehouse.NewEvent
}

func newFixture(t *testing.T) fixture {
	e := newEnv(t)
	o := e.newOrg("Acme")
	f := fixture{env: e, org: o}
	ap := o.accessPoints
	f.granted = e.ev(ap[0], gatehouse.EventAccessGranted, 10)
	f.granted.PlatformUserID = ptr("111")
	f.denied = e.ev(ap[1], gatehouse.EventAccessDenied, 20)
	f.denied.Reason, f.denied.PlatformUserID = ptr("NOT_ON_ALLOWLIST"), ptr("222")
	f.schedule = e.ev(ap[2], gatehouse.EventAccessDenied, 30)
	f.schedule.Reason, f.schedule.PlatformUserID = ptr(gatehouse.ReasonOutsideSchedule), ptr("111")
	f.server = e.ev(ap[3], gatehouse.EventRemoteUnlock, 40)
	f.server.Scope, f.server.ServerJobID, f.server.RequestedBy = ptr(gatehouse.ScopeServer), ptr("9b2f3c4d-0000-4000-8000-00000000000a"), &o.user.ID
	f.server.Command = &gatehouse.NewCommand{ID: gatehouse.NewID(), Status: gatehouse.CommandDelivered, Scope: gatehouse.ScopeServer,
		ServerJobID: f.server.ServerJobID, IssuedAt: f.server.OccurredAt}
	f.player = e.ev(ap[0], gatehouse.EventRemoteUnlock, 50)
	f.player.Scope, f.player.PlatformUserID = ptr(gatehouse.ScopePlayer), ptr("333")
	f.universe = e.ev(ap[1], gatehouse.EventRemoteUnlock, 60*24*400) // 400 days ago
	f.percent = e.ev(ap[2], gatehouse.EventAccessGranted, 70)
	f.percent.PlatformUserID = ptr("50%_off")
	e.ingest(o, f.granted, f.denied, f.schedule, f.server, f.player, f.universe, f.percent)
	return f
}

func ids(events ...gatehouse.NewEvent) []string {
	out := make([]string, len(events))
	for i, e := range events {
		out[i] = e.ID.String()
	}
	return out
}

func TestListEventsFilters(t *testing.T) {
	f := newFixture(t)
	o := f.org
	for _, tc := range []struct {
		query string
		want  []gatehouse.NewEvent
	}{
		{"", []gatehouse.NewEvent{f.granted, f.denied, f.schedule, f.server, f.player, f.percent, f.universe}},
		{"accessPointId=" + o.accessPoints[0].ID.String(), []gatehouse.NewEvent{f.granted, f.player}},
		{"locationId=" + o.locations[1].ID.String(), []gatehouse.NewEvent{f.schedule, f.server, f.percent}},
		{"type=ACCESS_DENIED", []gatehouse.NewEvent{f.denied, f.schedule}},
		{"type=ACCESS_DENIED,REMOTE_UNLOCK", []gatehouse.NewEvent{f.denied, f.schedule, f.server, f.player, f.universe}},
		{"type=ACCESS_DENIED&type=REMOTE_UNLOCK", []gatehouse.NewEvent{f.denied, f.schedule, f.server, f.player, f.universe}},
		{"type=NOPE", []gatehouse.NewEvent{f.granted, f.denied, f.schedule, f.server, f.player, f.percent, f.universe}},
		{"allowed=granted", []gatehouse.NewEvent{f.granted, f.percent}},
		{"allowed=denied", []gatehouse.NewEvent{f.denied, f.schedule}},
		{"platformUserId=111", []gatehouse.NewEvent{f.granted, f.schedule}},
		{"reason=OUTSIDE_SCHEDULE", []gatehouse.NewEvent{f.schedule}},
		{"scope=SERVER", []gatehouse.NewEvent{f.server}},
		{"scope=PLAYER", []gatehouse.NewEvent{f.player}},
		{"q=vip", []gatehouse.NewEvent{f.denied, f.server, f.universe}},
		{"q=CLUB", []gatehouse.NewEvent{f.schedule, f.server, f.percent}},
		{"q=schedule", []gatehouse.NewEvent{f.schedule}},
		{"q=" + url.QueryEscape("0%_"), []gatehouse.NewEvent{f.percent}},
		{"q=%25", []gatehouse.NewEvent{f.percent}},
		{"q=_", []gatehouse.NewEvent{f.denied, f.schedule, f.percent}},
		{"q=9b2f3c4d", []gatehouse.NewEvent{f.server}},
		{"dateFrom=" + url.QueryEscape(f.schedule.OccurredAt.Format(time.RFC3339Nano)), []gatehouse.NewEvent{f.granted, f.denied, f.schedule}},
		{"dateTo=" + url.QueryEscape(f.schedule.OccurredAt.Format(time.RFC3339Nano)), []gatehouse.NewEvent{f.server, f.player, f.percent, f.universe}},
		{"allowed=denied&platformUserId=111&locationId=" + o.locations[1].ID.String(), []gatehouse.NewEvent{f.schedule}},
	} {
		got := f.env.events(o.readKey, tc.query)
		if diff := cmp.Diff(ids(tc.want...), got.ids(), cmpEmpty); diff != "" {
			t.Errorf("?%s (-want +got)\n%s", tc.query, diff)
		}
	}
}

var cmpEmpty = cmp.Comparer(func(a, b []string) bool { return slices.Equal(a, b) })

func TestListEventsUnderscoreIsLiteral(t *testing.T) {
	f := newFixture(t)
	// Only one event has "_" in a searched field (the user id 50%_off);
	// reasons such as NOT_ON_ALLOWLIST have underscores too.
	got := f.env.events(f.org.readKey, "q="+url.QueryEscape("%_o"))
	if diff := cmp.Diff(ids(f.percent), got.ids()); diff != "" {
		t.Error(diff)
	}
	got = f.env.events(f.org.readKey, "q=_ON_")
	if diff := cmp.Diff(ids(f.denied), got.ids()); diff != "" {
		t.Error(diff)
	}
}

func TestListEventsBodyShape(t *testing.T) {
	f := newFixture(t)
	r := f.env.get("/api/consumer/v1/events?scope=SERVER&type=ACCESS_DENIED,REMOTE_UNLOCK,BOGUS", f.org.readKey)
	if r.status != http.StatusOK || r.header.Get("Content-Type") != "application/json" || r.header.Get("Cache-Control") != "no-store" {
		t.Fatalf("status %d, headers %v", r.status, r.header)
	}
	var l eventList
	r.decode(t, &l)
	if len(l.Data) != 1 || l.NextCursor != nil {
		t.Fatalf("got %s", r.body)
	}
	d := l.Data[0]
	if d.Type != "REMOTE_UNLOCK" || d.Allowed != nil || *d.Scope != "SERVER" || d.Location.Name != "Club" || d.AccessPoint.Name != "VIP area" {
		t.Errorf("event = %+v", d)
	}
	if d.RequestedBy == nil || d.RequestedBy.Email != f.org.user.Email || d.Command == nil || d.Command.Status != "DELIVERED" {
		t.Errorf("requestedBy %+v, command %+v", d.RequestedBy, d.Command)
	}
	if d.OccurredAt != f.server.OccurredAt.Format("2006-01-02T15:04:05.000Z") {
		t.Errorf("occurredAt %q is not RFC 3339 UTC with milliseconds", d.OccurredAt)
	}
	want := []string{"ACCESS_DENIED", "REMOTE_UNLOCK"}
	if !slices.Equal(l.Meta.Types, want) || !slices.Equal(l.Meta.IgnoredTypes, []string{"BOGUS"}) || l.Meta.Limit != 50 {
		t.Errorf("meta = %+v", l.Meta)
	}
}

func TestListEventsNarrowsDateRange(t *testing.T) {
	f := newFixture(t)
	for _, tc := range []struct {
		from, to, wantFrom string
		narrowed           bool
	}{
		{"2025-11-19", "2026-11-20", "2025-11-19T00:00:00.000Z", false}, // 366 days
		{"2025-11-18", "2026-11-20", "2025-11-19T00:00:00.000Z", true},  // 367 days
	} {
		l := f.env.events(f.org.readKey, "dateFrom="+tc.from+"&dateTo="+tc.to)
		if *l.Meta.DateFrom != tc.wantFrom || *l.Meta.DateTo != "2026-11-20T00:00:00.000Z" || l.Meta.DateRangeNarrowed != tc.narrowed {
			t.Errorf("%s..%s: meta %+v", tc.from, tc.to, l.Meta)
		}
	}
	// The 400-day-old unlock falls outside any narrowed window ending now.
	l := f.env.events(f.org.readKey, "dateFrom=2000-01-01&dateTo=2026-11-21")
	if slices.Contains(l.ids(), f.universe.ID.String()) || !l.Meta.DateRangeNarrowed {
		t.Errorf("narrowed window returned the 400-day-old event: %v", l.ids())
	}
}

func TestListEventsQExactID(t *testing.T) {
	f := newFixture(t)
	upper := f.env.events(f.org.readKey, "q="+url.QueryEscape(f.denied.ID.String()))
	if diff := cmp.Diff(ids(f.denied), upper.ids()); diff != "" || upper.NextCursor != nil {
		t.Errorf("exact id: %s", diff)
	}
	// A UUID that is no event id but a server job id falls back to search.
	job := f.env.events(f.org.readKey, "q=9B2F3C4D-0000-4000-8000-00000000000A")
	if diff := cmp.Diff(ids(f.server), job.ids()); diff != "" {
		t.Errorf("job id: %s", diff)
	}
	// The exact lookup still honours the other filters.
	none := f.env.events(f.org.readKey, "allowed=granted&q="+f.denied.ID.String())
	if len(none.Data) != 0 {
		t.Errorf("exact id ignored allowed=granted: %v", none.ids())
	}
}

func TestListLocations(t *testing.T) {
	e := newEnv(t)
	o := e.newOrg("Acme")
	key := e.newKey(o.ID, gatehouse.ScopeLocationsRead)
	r := e.get("/api/consumer/v1/locations?limit=1", key)
	var l struct {
		Data []struct {
			ID, Name, CreatedAt string
			AccessPoints        []map[string]string `json:"accessPoints"`
		}
		NextCursor *string
	}
	r.decode(t, &l)
	if r.status != 200 || len(l.Data) != 1 || l.Data[0].Name != "Club" || l.NextCursor == nil {
		t.Fatalf("%d %s", r.status, r.body)
	}
	if diff := cmp.Diff([]map[string]string{
		{"id": o.accessPoints[2].ID.String(), "name": "Front door", "archivedAt": ""}, // null
		{"id": o.accessPoints[3].ID.String(), "name": "VIP area", "archivedAt": ""},
	}, l.Data[0].AccessPoints); diff != "" {
		t.Error(diff)
	}
	r = e.get("/api/consumer/v1/locations?limit=1&cursor="+*l.NextCursor, key)
	r.decode(t, &l)
	if len(l.Data) != 1 || l.Data[0].Name != "HQ" || l.NextCursor != nil {
		t.Fatalf("second page %s", r.body)
	}
}
