package server_test

import (
	"net/url"
	"slices"
	"testing"

	"github.com/gatehouse/gatehouse"
)

// TestOrganizationsNeverSeeEachOther gives two organizations look-alike data
// (same names, same platform user, same server job, even the same event id)
// and checks that nothing one can send reaches the other's events.
func TestOrganizationsNeverSeeEachOther(t *testing.T) {
	e := newEnv(t)
	a, b := e.newOrg("Alpha"), e.newOrg("Beta")
	shared := gatehouse.NewID()
	mk := func(o org) []gatehouse.NewEvent {
		var evs []gatehouse.NewEvent
		for i, ap := range o.accessPoints {
			ev := e.ev(ap, gatehouse.EventAccessDenied, i+1)
			ev.PlatformUserID, ev.Reason = ptr("123"), ptr(gatehouse.ReasonOutsideSchedule)
			if i == 0 {
				ev.ID = shared
			}
			evs = append(evs, ev)
		}
		unlock := e.ev(o.accessPoints[0], gatehouse.EventRemoteUnlock, 9)
		unlock.Scope, unlock.ServerJobID = ptr(gatehouse.ScopeServer), ptr("job-1")
		return append(evs, unlock)
	}
	aEvents, bEvents := mk(a), mk(b)
	e.ingest(a, aEvents...)
	e.ingest(b, bEvents...)
	bOnly := map[string]bool{}
	for _, ev := range bEvents[1:] {
		bOnly[ev.ID.String()] = true
	}

	queries := []string{"", "platformUserId=123", "reason=OUTSIDE_SCHEDULE", "scope=SERVER", "q=job-1", "q=front",
		"q=" + shared.String(), "q=" + bEvents[1].ID.String(), "type=ACCESS_DENIED,REMOTE_UNLOCK", "allowed=denied", "limit=500"}
	for _, ap := range b.accessPoints {
		queries = append(queries, "accessPointId="+ap.ID.String())
	}
	for _, l := range b.locations {
		queries = append(queries, "locationId="+l.ID.String())
	}
	for _, q := range queries {
		got := e.events(a.readKey, q)
		for _, id := range got.ids() {
			if bOnly[id] {
				t.Errorf("?%s returned Beta's event %s to Alpha", q, id)
			}
		}
		for _, d := range got.Data {
			if d.ID == shared.String() && d.AccessPoint.ID != a.accessPoints[0].ID.String() {
				t.Errorf("?%s: the shared id resolved to Beta's copy", q)
			}
		}
	}
	for _, ap := range b.accessPoints {
		if got := e.events(a.readKey, "accessPointId="+ap.ID.String()); len(got.Data) != 0 {
			t.Errorf("Beta's access point listed %d events for Alpha", len(got.Data))
		}
	}
	if got := e.events(a.readKey, "q="+url.QueryEscape(bEvents[2].ID.String())); len(got.Data) != 0 {
		t.Errorf("Beta's event id in q found %v", got.ids())
	}

	locKey := e.newKey(a.ID, gatehouse.ScopeLocationsRead)
	r := e.get("/api/consumer/v1/locations?limit=500", locKey)
	var locs struct{ Data []struct{ ID string } }
	r.decode(t, &locs)
	for _, l := range b.locations {
		if slices.ContainsFunc(locs.Data, func(d struct{ ID string }) bool { return d.ID == l.ID.String() }) {
			t.Errorf("Alpha's locations list Beta's %s", l.ID)
		}
	}
	if len(locs.Data) != len(a.locations) {
		t.Errorf("Alpha sees %d locations, has %d", len(locs.Data), len(a.locations))
	}
}
