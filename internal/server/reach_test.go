package server_test

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"testing"

	"github.com/gatehouse/gatehouse"
	"github.com/google/uuid"
)

// TestKeysLimitedToALocationSeeNoOther: a key limited to HQ reads HQ's
// events, feed, insights, locations, commands, grants and lockdowns only,
// whatever it asks (the isolation test's queries, Club's ids by name),
// and acts on HQ's access points only; Club's records are not found, as
// another organization's are not, and what concerns the whole
// organization is refused.
func TestKeysLimitedToALocationSeeNoOther(t *testing.T) {
	e := newEnv(t)
	o := e.newUnlockOrg("Acme")
	hq, club := o.locations[0], o.locations[1]
	if _, err := e.store.SetLocationUniverse(context.Background(), gatehouse.SystemEntry(gatehouse.AuditLocationUniverseSet),
		o.ID, club.ID, "42"); err != nil {
		t.Fatal(err)
	}
	var evs []gatehouse.NewEvent
	for i, ap := range o.accessPoints {
		ev := e.ev(ap, gatehouse.EventAccessDenied, i+1)
		ev.PlatformUserID, ev.Reason = ptr("123"), ptr(gatehouse.ReasonOutsideSchedule)
		evs = append(evs, ev)
	}
	e.ingest(o.org, evs...)
	limited := e.newKeyWith(o.ID, func(k *gatehouse.APIKey) { k.Reach = gatehouse.Reach{hq.ID} },
		gatehouse.ScopeEventsRead, gatehouse.ScopeLocationsRead, gatehouse.ScopeCommandsWrite, gatehouse.ScopePoliciesWrite)
	e.settled(o.allKey, len(evs))
	inHQ := func(id string) bool { return id == hq.ID.String() }

	queries := []string{"", "platformUserId=123", "reason=OUTSIDE_SCHEDULE", "q=front", "q=club", "q=123",
		"type=ACCESS_DENIED", "allowed=denied", "limit=500", "locationId=" + club.ID.String()}
	for _, ap := range o.accessPoints {
		queries = append(queries, "accessPointId="+ap.ID.String())
	}
	for _, ev := range evs[2:] {
		queries = append(queries, "q="+ev.ID.String())
	}
	for _, q := range queries {
		for _, d := range e.events(limited, q).Data {
			if !inHQ(d.Location.ID) {
				t.Errorf("?%s returned Club's event %s", q, d.ID)
			}
		}
	}
	if got := e.events(limited, ""); len(got.Data) != 2 {
		t.Errorf("the limited key reads %d events, want HQ's 2", len(got.Data))
	}
	hqEvents := []string{evs[0].ID.String(), evs[1].ID.String()}
	for _, d := range e.feed(limited, "").Data {
		if !slices.Contains(hqEvents, d.ID) {
			t.Errorf("the feed returned Club's event %s", d.ID)
		}
	}
	from := gatehouse.FormatTime(e.clock.Now().Add(-24 * 60 * 60 * 1e9))
	if l := e.insights(limited, "groupBy=locationId&dateFrom="+from); len(l.Data) != 1 || !inHQ(l.Data[0].Key) {
		t.Errorf("insights by location: %+v, want HQ's alone", l.Data)
	}
	var locs struct{ Data []struct{ ID string } }
	e.getOK("/api/consumer/v1/locations?limit=500", limited, &locs)
	if len(locs.Data) != 1 || !inHQ(locs.Data[0].ID) {
		t.Errorf("locations: %+v, want HQ alone", locs.Data)
	}

	clubDoor, hqDoor := o.accessPoints[2].ID, o.accessPoints[0].ID
	theirs, _ := e.issue(o.cmdKey, fmt.Sprintf(`{"accessPointId": %q, "scope": "UNIVERSE"}`, clubDoor))
	ours, _ := e.issue(limited, fmt.Sprintf(`{"accessPointId": %q, "scope": "UNIVERSE"}`, hqDoor))
	if got := e.commands(limited, "limit=100"); len(got.Data) != 1 || got.Data[0].ID != ours.ID {
		t.Errorf("the limited key lists %d commands, want its own", len(got.Data))
	}
	clubLockdown := e.startLockdown(o.cmdKey, fmt.Sprintf(`{"scope": "LOCATION", "locationId": %q, "reason": "drill"}`, club.ID))
	clubGrant := e.grant(o.allKey, e.grantBody("156", "locationId", club.ID, ""), http.StatusCreated)
	for _, r := range []struct {
		what   string
		got    response
		status int
		code   string
	}{
		{"Club's live view", e.get("/api/consumer/v1/locations/"+club.ID.String()+"/live", limited), 404, "not_found"},
		{"Club's command", e.get("/api/consumer/v1/commands/"+theirs.ID.String(), limited), 404, "not_found"},
		{"Club's command cancelled", e.post("/api/consumer/v1/commands/"+theirs.ID.String()+"/cancel", limited, ""), 404, "not_found"},
		{"an unlock of Club's door", e.post("/api/consumer/v1/commands", limited, fmt.Sprintf(`{"accessPointId": %q, "scope": "UNIVERSE"}`, clubDoor)), 400, "validation_failed"},
		{"Club's door's policy", e.get(policyPath(clubDoor), limited), 404, "not_found"},
		{"Club's door's policy changed", e.put(policyPath(clubDoor), limited, `{"mode": "OPEN"}`), 404, "not_found"},
		{"Club's grant", e.get("/api/consumer/v1/grants/"+clubGrant.ID.String(), limited), 404, "not_found"},
		{"Club's grant revoked", e.do(http.MethodDelete, "/api/consumer/v1/grants/"+clubGrant.ID.String(), limited, nil), 404, "not_found"},
		{"a grant of Club's door", e.post("/api/consumer/v1/grants", limited, e.grantBody("156", "accessPointIds", clubDoor, "")), 400, "validation_failed"},
		{"Club's lockdown", e.get("/api/consumer/v1/lockdowns/"+clubLockdown.ID.String(), limited), 404, "not_found"},
		{"Club's lockdown released", e.post("/api/consumer/v1/lockdowns/"+clubLockdown.ID.String()+"/release", limited, ""), 404, "not_found"},
		{"a lockdown of the organization", e.post("/api/consumer/v1/lockdowns", limited, `{"scope": "ORGANIZATION", "reason": "drill"}`), 403, "outside_locations"},
		{"the push keys", e.get("/api/consumer/v1/messaging", limited), 403, "outside_locations"},
		{"HQ's door's policy", e.get(policyPath(hqDoor), limited), 404, "policy_not_found"}, // none set yet: not Club's not_found
	} {
		var body struct{ Code string }
		r.got.decode(t, &body)
		if r.got.status != r.status || body.Code != r.code {
			t.Errorf("%s: %d %s, want %d %s", r.what, r.got.status, r.got.body, r.status, r.code)
		}
	}
	var grants struct{ Data []gatehouse.Grant }
	e.getOK("/api/consumer/v1/grants?limit=100", limited, &grants)
	if len(grants.Data) != 0 {
		t.Errorf("the limited key lists %d grants, want none of Club's", len(grants.Data))
	}
	var downs struct{ Data []gatehouse.Lockdown }
	e.getOK("/api/consumer/v1/lockdowns?limit=100", limited, &downs)
	if len(downs.Data) != 0 {
		t.Errorf("the limited key lists %d lockdowns, want none of Club's", len(downs.Data))
	}

	var keys struct {
		Data []struct {
			Name      string      `json:"name"`
			Locations []uuid.UUID `json:"locations"`
		}
	}
	e.getOK("/api/consumer/v1/keys", e.newKey(o.ID, gatehouse.ScopeKeysWrite), &keys)
	if !slices.ContainsFunc(keys.Data, func(k struct {
		Name      string      `json:"name"`
		Locations []uuid.UUID `json:"locations"`
	}) bool {
		return slices.Equal(k.Locations, []uuid.UUID{hq.ID})
	}) {
		t.Errorf("GET /keys shows no key limited to HQ: %+v", keys.Data)
	}
}
