package server_test

import (
	"fmt"
	"net/http"
	"slices"
	"testing"

	"github.com/gatehouse/gatehouse"
)

// retirePath is the path of an archive, restore or delete: kind is
// "locations" or "access-points", action "archive", "restore" or "" (the
// record itself, which DELETE deletes).
func retirePath(kind string, id fmt.Stringer, action string) string {
	p := "/api/consumer/v1/" + kind + "/" + id.String()
	if action != "" {
		p += "/" + action
	}
	return p
}

// listedLocations is the body of GET /locations as a client reads it.
type listedLocations struct {
	Data []struct {
		ID           string  `json:"id"`
		Name         string  `json:"name"`
		ArchivedAt   *string `json:"archivedAt"`
		AccessPoints []struct {
			ID         string  `json:"id"`
			Name       string  `json:"name"`
			ArchivedAt *string `json:"archivedAt"`
		} `json:"accessPoints"`
	} `json:"data"`
	NextCursor *string `json:"nextCursor"`
}

// names is each listed location with its access points, "HQ: Front door,
// VIP area", an archived one marked with a star.
func (l listedLocations) names() []string {
	var out []string
	for _, loc := range l.Data {
		s := loc.Name
		if loc.ArchivedAt != nil {
			s += "*"
		}
		s += ":"
		for i, ap := range loc.AccessPoints {
			if i > 0 {
				s += ","
			}
			s += " " + ap.Name
			if ap.ArchivedAt != nil {
				s += "*"
			}
		}
		out = append(out, s)
	}
	return out
}

// TestArchiveThroughTheAPI: an archived access point or location leaves
// GET /locations but with archived=true, where it shows with archivedAt;
// its events are still accepted and found with their names, and a new
// write naming it (policy, unlock, grant, lockdown) is a 409 conflict
// that says to restore it; restoring undoes it. Each change is audited.
func TestArchiveThroughTheAPI(t *testing.T) {
	e := newEnv(t)
	o := e.newOrg("Acme")
	hq := o.locations[0]
	door, vip := o.accessPoints[0], o.accessPoints[1] // HQ's
	key := e.newKey(o.ID, gatehouse.ScopeLocationsWrite)

	var ap struct {
		ID, LocationID, Name string
		ArchivedAt           *string
	}
	r := e.do(http.MethodPost, retirePath("access-points", door.ID, "archive"), key, nil)
	r.decode(t, &ap)
	if r.status != http.StatusOK || ap.ID != door.ID.String() || ap.LocationID != hq.ID.String() || ap.ArchivedAt == nil ||
		*ap.ArchivedAt != gatehouse.FormatTime(e.clock.Now()) {
		t.Fatalf("archive: %d %s", r.status, r.body)
	}
	// Again: unchanged, the same answer.
	if again := e.do(http.MethodPost, retirePath("access-points", door.ID, "archive"), key, nil); again.status != http.StatusOK || string(again.body) != string(r.body) {
		t.Errorf("archive again: %d %s", again.status, again.body)
	}
	var l listedLocations
	e.getOK("/api/consumer/v1/locations", o.allKey, &l)
	if got := l.names(); !slices.Equal(got, []string{"Club: Front door, VIP area", "HQ: VIP area"}) {
		t.Errorf("GET /locations = %q", got)
	}
	e.getOK("/api/consumer/v1/locations?archived=true", o.allKey, &l)
	if got := l.names(); !slices.Equal(got, []string{"Club: Front door, VIP area", "HQ: Front door*, VIP area"}) {
		t.Errorf("GET /locations?archived=true = %q", got)
	}

	// Events: accepted and found, with the names they were recorded with.
	body := ingestBody(attempt(door, "", "2026-11-20T11:00:00Z"))
	if r := e.post("/api/consumer/v1/events", o.allKey, body); r.status != http.StatusOK {
		t.Errorf("POST /events of an archived access point: %d %s", r.status, r.body)
	}
	found := e.events(o.readKey, "accessPointId="+door.ID.String())
	if len(found.Data) != 1 || found.Data[0].AccessPoint.Name != "Front door" {
		t.Errorf("events of the archived access point: %+v", found.Data)
	}

	// New writes naming it: 409, saying to restore it first.
	conflict := func(what string, r response, want string) {
		t.Helper()
		if r.status != http.StatusConflict {
			t.Errorf("%s: %d %s, want 409", what, r.status, r.body)
			return
		}
		if got := r.apiError(t); got.Code != "conflict" || got.Error != want {
			t.Errorf("%s: %+v, want %q", what, got, want)
		}
	}
	archived := `access point "Front door" is archived: restore it first`
	conflict("PUT policy", e.put(policyPath(door.ID), o.allKey, `{"mode": "LOCKED"}`), archived)
	conflict("POST /commands", e.post("/api/consumer/v1/commands", o.allKey,
		fmt.Sprintf(`{"accessPointId": %q, "scope": "UNIVERSE"}`, door.ID)), archived)
	conflict("POST /grants", e.post("/api/consumer/v1/grants", o.allKey, e.grantBody("156", "accessPointIds", door.ID, "")), archived)

	// A location archived hides its access points with it.
	var loc struct {
		ID, Name     string
		ArchivedAt   *string
		AccessPoints []struct{ ID string }
	}
	r = e.do(http.MethodPost, retirePath("locations", hq.ID, "archive"), key, nil)
	r.decode(t, &loc)
	if r.status != http.StatusOK || loc.ID != hq.ID.String() || loc.ArchivedAt == nil || len(loc.AccessPoints) != 2 {
		t.Fatalf("archive location: %d %s", r.status, r.body)
	}
	e.getOK("/api/consumer/v1/locations", o.allKey, &l)
	if got := l.names(); !slices.Equal(got, []string{"Club: Front door, VIP area"}) {
		t.Errorf("GET /locations with HQ archived = %q", got)
	}
	e.getOK("/api/consumer/v1/locations?archived=true", o.allKey, &l)
	if got := l.names(); !slices.Equal(got, []string{"Club: Front door, VIP area", "HQ*: Front door*, VIP area"}) {
		t.Errorf("GET /locations?archived=true with HQ archived = %q", got)
	}
	conflict("PUT policy of an access point of the archived location", e.put(policyPath(vip.ID), o.allKey, `{"mode": "OPEN"}`),
		`the location of access point "VIP area" is archived: restore the location first`)
	conflict("POST /lockdowns of the archived location", e.post("/api/consumer/v1/lockdowns", o.allKey,
		fmt.Sprintf(`{"scope": "LOCATION", "locationId": %q, "reason": "Intruder"}`, hq.ID)), `location "HQ" is archived: restore it first`)
	conflict("POST /grants of the archived location", e.post("/api/consumer/v1/grants", o.allKey, e.grantBody("156", "locationId", hq.ID, "")),
		`location "HQ" is archived: restore it first`)
	if found := e.events(o.readKey, "locationId="+hq.ID.String()); len(found.Data) != 1 {
		t.Errorf("events of the archived location: %+v", found.Data)
	}

	// Restored, both take writes again.
	for _, p := range []string{retirePath("locations", hq.ID, "restore"), retirePath("access-points", door.ID, "restore")} {
		if r := e.do(http.MethodPost, p, key, nil); r.status != http.StatusOK {
			t.Errorf("POST %s: %d %s", p, r.status, r.body)
		}
	}
	e.putPolicy(o.allKey, door.ID, `{"mode": "OPEN"}`)
	e.getOK("/api/consumer/v1/locations", o.allKey, &l)
	if got := l.names(); !slices.Equal(got, []string{"Club: Front door, VIP area", "HQ: Front door, VIP area"}) {
		t.Errorf("GET /locations after restoring = %q", got)
	}

	var log struct {
		Data []struct {
			Action string
			Actor  struct{ Type string }
			Target struct{ ID string }
		}
	}
	e.getOK("/api/consumer/v1/audit-log?targetId="+door.ID.String(), o.allKey, &log)
	var actions []string
	for _, entry := range log.Data {
		actions = append(actions, entry.Action)
		if entry.Action != string(gatehouse.AuditAccessPointCreated) && entry.Actor.Type != "key" {
			t.Errorf("%s by %s, want the key", entry.Action, entry.Actor.Type)
		}
	}
	if want := []string{"policy.changed", "access_point.restored", "access_point.archived", "access_point.created"}; !slices.Equal(actions, want) {
		t.Errorf("audit of the access point = %v, want %v", actions, want)
	}
	e.getOK("/api/consumer/v1/audit-log?action=location.archived", o.allKey, &log)
	if len(log.Data) != 1 || log.Data[0].Target.ID != hq.ID.String() {
		t.Errorf("location.archived entries: %+v", log.Data)
	}
}

// TestListLocationsArchivedQuery: archived is true or false, once; a
// cursor is bound to it.
func TestListLocationsArchivedQuery(t *testing.T) {
	e := newEnv(t)
	o := e.newOrg("Acme")
	for _, q := range []string{"archived=yes", "archived=true&archived=true", "archived=1"} {
		if r := e.get("/api/consumer/v1/locations?"+q, o.allKey); r.status != http.StatusBadRequest || r.apiError(t).Issues["archived"] == nil {
			t.Errorf("?%s: %d %s", q, r.status, r.body)
		}
	}
	var l listedLocations
	e.getOK("/api/consumer/v1/locations?limit=1&archived=false", o.allKey, &l)
	if l.NextCursor == nil {
		t.Fatal("no next page")
	}
	if r := e.get("/api/consumer/v1/locations?limit=1&archived=true&cursor="+*l.NextCursor, o.allKey); r.status != http.StatusBadRequest ||
		r.apiError(t).Issues["cursor"] == nil {
		t.Errorf("a cursor of the list without archived records, with archived=true: %d %s", r.status, r.body)
	}
	if r := e.get("/api/consumer/v1/locations?limit=1&cursor="+*l.NextCursor, o.allKey); r.status != http.StatusOK {
		t.Errorf("the cursor without archived (default false): %d %s", r.status, r.body)
	}
}

// TestDeleteThroughTheAPI: DELETE of an access point or location nothing
// names is a 204, and the record is gone (404 after); one that events
// name is a 409 saying to archive it instead, a location with access
// points one saying to delete or move them.
func TestDeleteThroughTheAPI(t *testing.T) {
	e := newEnv(t)
	o := e.newOrg("Acme")
	key := e.newKey(o.ID, gatehouse.ScopeLocationsWrite)
	door, vip := o.accessPoints[0], o.accessPoints[1]
	e.ingest(o, e.ev(door, gatehouse.EventAccessGranted, 1), e.ev(door, gatehouse.EventAccessDenied, 2))

	r := e.do(http.MethodDelete, retirePath("access-points", door.ID, ""), key, nil)
	if r.status != http.StatusConflict || r.apiError(t).Error != `access point "Front door" has 2 events: archive it instead` {
		t.Errorf("DELETE an access point with events: %d %s", r.status, r.body)
	}
	r = e.do(http.MethodDelete, retirePath("locations", o.locations[1].ID, ""), key, nil)
	if r.status != http.StatusConflict || r.apiError(t).Error != `location "Club" has 2 access points: archive it, or delete or move its access points first` {
		t.Errorf("DELETE a location with access points: %d %s", r.status, r.body)
	}
	e.putPolicy(o.allKey, vip.ID, `{"mode": "OPEN"}`)
	if r := e.do(http.MethodDelete, retirePath("access-points", vip.ID, ""), key, nil); r.status != http.StatusNoContent || len(r.body) != 0 {
		t.Errorf("DELETE an access point no event names: %d %s", r.status, r.body)
	}
	for _, p := range []string{retirePath("access-points", vip.ID, ""), retirePath("access-points", vip.ID, "archive")} {
		method := http.MethodDelete
		if p != retirePath("access-points", vip.ID, "") {
			method = http.MethodPost
		}
		if r := e.do(method, p, key, nil); r.status != http.StatusNotFound || r.apiError(t).Code != "not_found" {
			t.Errorf("%s %s of a deleted access point: %d %s", method, p, r.status, r.body)
		}
	}
	if r := e.get(policyPath(vip.ID), o.allKey); r.status != http.StatusNotFound {
		t.Errorf("the deleted access point's policy: %d %s", r.status, r.body)
	}
	r = e.post("/api/consumer/v1/events", o.allKey, ingestBody(attempt(vip, "", "2026-11-20T11:00:00Z")))
	if r.status != http.StatusBadRequest || r.apiError(t).Issues["events[0].accessPointId"] == nil {
		t.Errorf("POST /events of the deleted access point: %d %s", r.status, r.body)
	}
	empty, err := e.store.CreateLocation(t.Context(), gatehouse.SystemEntry(gatehouse.AuditLocationCreated), o.ID, "Empty")
	must(t, err)
	if r := e.do(http.MethodDelete, retirePath("locations", empty.ID, ""), key, nil); r.status != http.StatusNoContent {
		t.Errorf("DELETE an empty location: %d %s", r.status, r.body)
	}
	var log struct{ Data []struct{ Action string } }
	e.getOK("/api/consumer/v1/audit-log?action=access_point.deleted", o.allKey, &log)
	if len(log.Data) != 1 {
		t.Errorf("access_point.deleted entries: %+v", log.Data)
	}
	e.getOK("/api/consumer/v1/audit-log?action=location.deleted", o.allKey, &log)
	if len(log.Data) != 1 {
		t.Errorf("location.deleted entries: %+v", log.Data)
	}
	if r := e.do(http.MethodDelete, retirePath("locations", gatehouse.NewID(), "")+"?force=true", key, nil); r.status != http.StatusBadRequest ||
		r.apiError(t).Issues["force"] == nil {
		t.Errorf("a query parameter: %d %s", r.status, r.body)
	}
	if r := e.do(http.MethodPost, "/api/consumer/v1/locations/not-a-uuid/archive", key, nil); r.status != http.StatusBadRequest ||
		r.apiError(t).Issues["id"] == nil {
		t.Errorf("a bad id: %d %s", r.status, r.body)
	}
}

// TestRetireNeverCrossesOrganizations: another organization's access
// points and locations are unknown to every archive, restore and delete
// (404), and nothing of theirs changes.
func TestRetireNeverCrossesOrganizations(t *testing.T) {
	e := newEnv(t)
	a, b := e.newOrg("Alpha"), e.newOrg("Beta")
	key := e.newKey(a.ID, gatehouse.ScopeLocationsWrite)
	for _, tc := range []struct {
		method, kind, action string
		id                   fmt.Stringer
	}{
		{http.MethodPost, "access-points", "archive", b.accessPoints[0].ID},
		{http.MethodPost, "access-points", "restore", b.accessPoints[0].ID},
		{http.MethodDelete, "access-points", "", b.accessPoints[0].ID},
		{http.MethodPost, "locations", "archive", b.locations[0].ID},
		{http.MethodPost, "locations", "restore", b.locations[0].ID},
		{http.MethodDelete, "locations", "", b.locations[0].ID},
	} {
		p := retirePath(tc.kind, tc.id, tc.action)
		if r := e.do(tc.method, p, key, nil); r.status != http.StatusNotFound || r.apiError(t).Code != "not_found" {
			t.Errorf("%s %s of another organization's: %d %s", tc.method, p, r.status, r.body)
		}
	}
	var l listedLocations
	e.getOK("/api/consumer/v1/locations?archived=true", b.allKey, &l)
	if got := l.names(); !slices.Equal(got, []string{"Club: Front door, VIP area", "HQ: Front door, VIP area"}) {
		t.Errorf("Beta's locations = %q", got)
	}
	var log struct{ Data []struct{ Action string } }
	e.getOK("/api/consumer/v1/audit-log?action=access_point.archived", b.allKey, &log)
	if len(log.Data) != 0 {
		t.Errorf("Beta's log: %+v", log.Data)
	}
}
