package server_test

import (
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/gatehouse/gatehouse"
)

// TestLocationLiveOverHTTP: GET /locations/{id}/live says each door's
// policy mode (none for a door without a policy), the unlocks in force
// and the lockdown that covers it, and lists the universe's servers that
// synced within the last minute, the most players first, with their job
// ids; a server gone quiet is not listed. Another organization's location
// is a 404; the scope is commands:write, as for the commands and
// lockdowns it shows: locations:read is not enough.
func TestLocationLiveOverHTTP(t *testing.T) {
	e := newEnv(t)
	o, rival := e.newPolicyOrg("Acme"), e.newUnlockOrg("Rival")
	ap0, ap1 := o.accessPoints[0], o.accessPoints[1] // HQ, universe 42
	e.putPolicy(o.policyKey, ap0.ID, `{"mode": "LOCKED"}`)
	e.syncNow(o.serverKey, "job-gone", `{"universeId": "42", "waitSeconds": 0, "players": ["1"]}`)
	e.clock.Advance(gatehouse.LiveWindow + time.Second)
	e.syncNow(o.serverKey, "job-small", `{"universeId": "42", "waitSeconds": 0, "players": ["156"]}`)
	e.syncNow(o.serverKey, "job-big", `{"universeId": "42", "waitSeconds": 0, "players": ["157", "158", "159"]}`)
	e.issue(o.cmdKey, fmt.Sprintf(`{"accessPointId": %q, "scope": "SERVER", "serverJobId": "job-big", "durationSeconds": 600}`, ap0.ID))

	path := "/api/consumer/v1/locations/" + o.locations[0].ID.String() + "/live"
	var live gatehouse.LocationLive
	e.get(path, o.cmdKey).decode(t, &live)
	if live.Name != "HQ" || live.UniverseID == nil || *live.UniverseID != "42" || len(live.AccessPoints) != 2 {
		t.Fatalf("the live view: %+v", live)
	}
	byName := map[string]gatehouse.LiveAccessPoint{}
	for _, ap := range live.AccessPoints {
		byName[ap.ID.String()] = ap
	}
	locked, bare := byName[ap0.ID.String()], byName[ap1.ID.String()]
	if locked.Mode == nil || *locked.Mode != gatehouse.ModeLocked || len(locked.Unlocks) != 1 ||
		locked.Unlocks[0].Scope != gatehouse.ScopeServer || locked.Unlocks[0].ServerJobID != "job-big" || locked.Lockdown != nil {
		t.Errorf("the locked door: %+v", locked)
	}
	if bare.Mode != nil || len(bare.Unlocks) != 0 || bare.Lockdown != nil {
		t.Errorf("the door without a policy: %+v", bare)
	}
	if live.ServerCount != 2 || len(live.Servers) != 2 || live.Servers[0].JobID != "job-big" || live.Servers[0].Players != 3 ||
		live.Servers[1].JobID != "job-small" || live.Servers[1].Players != 1 {
		t.Errorf("the live servers: %d %+v", live.ServerCount, live.Servers)
	}

	// A lockdown of the location covers both doors.
	e.startLockdown(o.cmdKey, fmt.Sprintf(`{"scope": "LOCATION", "locationId": %q, "reason": "Drill"}`, o.locations[0].ID))
	e.get(path, o.cmdKey).decode(t, &live)
	for _, ap := range live.AccessPoints {
		if ap.Lockdown == nil {
			t.Errorf("%s is not shown locked down: %+v", ap.Name, ap)
		}
	}

	if r := e.get(path, e.newKey(o.ID, gatehouse.ScopeLocationsRead)); r.status != http.StatusForbidden {
		t.Errorf("with locations:read alone: %d", r.status)
	}
	if r := e.get(path, rival.cmdKey); r.status != http.StatusNotFound {
		t.Errorf("another organization's location: %d %s", r.status, r.body)
	}
	if r := e.get("/api/consumer/v1/locations/nope/live", o.cmdKey); r.status != http.StatusBadRequest {
		t.Errorf("a bad id: %d", r.status)
	}
	// A location without a universe lists no server.
	var club gatehouse.LocationLive
	e.get("/api/consumer/v1/locations/"+o.locations[1].ID.String()+"/live", o.cmdKey).decode(t, &club)
	if club.UniverseID != nil || len(club.Servers) != 0 || club.ServerCount != 0 || len(club.AccessPoints) != 2 {
		t.Errorf("a location without a universe: %+v", club)
	}
}
