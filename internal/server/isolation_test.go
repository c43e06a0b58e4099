package server_test

import (
	"net/url"
	"slices"
	"strings"
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

// TestPoliciesNeverCrossOrganizations: two organizations with locations
// in the same universe and look-alike policies each see only their own
// access points in the universe's set, can neither read, change nor
// decide by the other's policies, and their sets' versions differ.
func TestPoliciesNeverCrossOrganizations(t *testing.T) {
	e := newEnv(t)
	a, b := e.newPolicyOrg("Alpha"), e.newPolicyOrg("Beta")
	for _, o := range []policyOrg{a, b} {
		e.putPolicy(o.policyKey, o.accessPoints[0].ID, officeHours)
	}
	setA, _ := e.policySet(a.serverKey, "42", "")
	setB, _ := e.policySet(b.serverKey, "42", "")
	if setA.Version == setB.Version {
		t.Errorf("both organizations' sets have version %s", setA.Version)
	}
	for _, ap := range setA.AccessPoints {
		if !slices.ContainsFunc(a.accessPoints, func(x gatehouse.AccessPoint) bool { return x.ID == ap.AccessPoint.ID }) {
			t.Errorf("Alpha's set lists %s", ap.AccessPoint.ID)
		}
	}
	if len(setA.AccessPoints) != 2 {
		t.Errorf("Alpha's set has %d access points, want its 2 in universe 42", len(setA.AccessPoints))
	}
	theirs := b.accessPoints[0].ID
	for _, r := range []response{
		e.get(policyPath(theirs), a.policyKey),
		e.put(policyPath(theirs), a.policyKey, `{"mode": "OPEN"}`),
		e.put(policyPath(theirs), a.policyKey, `{"mode": "OPEN"}`, "If-Match", `"1"`),
		e.put(policyPath(theirs), a.policyKey, `{"mode": "OPEN"}`, "If-Match", `*`),
		e.post("/api/consumer/v1/decisions", a.serverKey, `{"accessPointId": "`+theirs.String()+`", "platformUserId": "156"}`),
	} {
		if r.status != 404 || strings.Contains(string(r.body), "RULES") {
			t.Errorf("Alpha reached Beta's access point: %d %s", r.status, r.body)
		}
	}
	if p := e.getPolicy(b.policyKey, theirs); p.Version != 1 || p.Mode != gatehouse.ModeRules {
		t.Errorf("Beta's policy changed: %+v", p)
	}
}
