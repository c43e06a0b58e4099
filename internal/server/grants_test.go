package server_test

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/gatehouse/gatehouse"
	"github.com/google/uuid"
)

// grantBody is the body of POST /grants: player, a day from the clock,
// on the access point (or location) target names with the field.
func (e *env) grantBody(player, field string, target fmt.Stringer, extra string) string {
	value := fmt.Sprintf("%q", target)
	if field == "accessPointIds" {
		value = "[" + value + "]"
	}
	return fmt.Sprintf(`{"platformUserId": %q, %q: %s, "until": %q%s}`, player, field, value,
		gatehouse.FormatTime(e.clock.Now().Add(24*time.Hour)), extra)
}

// grant POSTs a grant and expects status.
func (e *env) grant(key, body string, status int) gatehouse.Grant {
	e.t.Helper()
	r := e.post("/api/consumer/v1/grants", key, body)
	if r.status != status {
		e.t.Fatalf("POST /grants %s = %d %s, want %d", body, r.status, r.body, status)
	}
	var g gatehouse.Grant
	if status < 300 {
		r.decode(e.t, &g)
	}
	return g
}

func grantIDs(grants []gatehouse.Grant) []string {
	out := []string{}
	for _, g := range grants {
		out = append(out, g.ID.String())
	}
	return out
}

// TestGrantsOverHTTP: a grant is created (201), read, listed by player,
// door (directly or through its location) and activity, revoked (200
// with revokedAt, and again unchanged), and audited; another
// organization sees none of it.
func TestGrantsOverHTTP(t *testing.T) {
	e := newEnv(t)
	o := e.newPolicyOrg("Acme")
	door, side, club := o.accessPoints[0], o.accessPoints[1], o.accessPoints[2]
	a := e.grant(o.policyKey, e.grantBody("156", "accessPointIds", door.ID, `, "note": "VIP night"`), http.StatusCreated)
	if a.PlatformUserID != "156" || !slices.Equal(a.AccessPointIDs, []uuid.UUID{door.ID}) || a.LocationID != nil ||
		!a.Active || a.Source.Type != gatehouse.GrantManual || a.Note == nil || *a.Note != "VIP night" ||
		a.CreatedByKey == nil || a.CreatedBy != nil || a.RevokedAt != nil || !a.From.Equal(gatehouse.Time(e.clock.Now())) {
		t.Fatalf("created %+v", a)
	}
	e.clock.Advance(time.Second)
	b := e.grant(o.policyKey, e.grantBody("157", "locationId", o.locations[0].ID, ""), http.StatusCreated)
	e.clock.Advance(time.Second)
	later := e.grant(o.policyKey, fmt.Sprintf(`{"platformUserId": "156", "accessPointIds": [%q], "from": %q, "until": %q}`, club.ID,
		gatehouse.FormatTime(e.clock.Now().Add(time.Hour)), gatehouse.FormatTime(e.clock.Now().Add(2*time.Hour))), http.StatusCreated)
	if later.Active {
		t.Errorf("a grant that starts in an hour is active: %+v", later)
	}

	var got gatehouse.Grant
	e.getOK("/api/consumer/v1/grants/"+a.ID.String(), o.policyKey, &got)
	if got.ID != a.ID || !got.Active {
		t.Errorf("GET /grants/{id}: %+v", got)
	}
	list := func(query string) []string {
		t.Helper()
		var l struct {
			Data       []gatehouse.Grant `json:"data"`
			NextCursor *string           `json:"nextCursor"`
		}
		e.getOK("/api/consumer/v1/grants?"+query, o.policyKey, &l)
		return grantIDs(l.Data)
	}
	for _, tc := range []struct {
		query string
		want  []gatehouse.Grant
	}{
		{"", []gatehouse.Grant{later, b, a}},
		{"platformUserId=156", []gatehouse.Grant{later, a}},
		{"accessPointId=" + door.ID.String(), []gatehouse.Grant{b, a}},
		{"accessPointId=" + side.ID.String(), []gatehouse.Grant{b}},
		{"accessPointId=" + club.ID.String(), []gatehouse.Grant{later}},
		{"active=true", []gatehouse.Grant{b, a}},
		{"active=false", []gatehouse.Grant{later}},
	} {
		if got := list(tc.query); !slices.Equal(got, grantIDs(tc.want)) {
			t.Errorf("GET /grants?%s: %v, want %v", tc.query, got, grantIDs(tc.want))
		}
	}
	// Pages of one, newest first.
	var l struct {
		Data       []gatehouse.Grant `json:"data"`
		NextCursor *string           `json:"nextCursor"`
	}
	e.getOK("/api/consumer/v1/grants?limit=1", o.policyKey, &l)
	if len(l.Data) != 1 || l.Data[0].ID != later.ID || l.NextCursor == nil {
		t.Fatalf("first page of one: %+v", l)
	}
	e.getOK("/api/consumer/v1/grants?limit=1&cursor="+*l.NextCursor, o.policyKey, &l)
	if len(l.Data) != 1 || l.Data[0].ID != b.ID {
		t.Errorf("second page of one: %+v", l)
	}
	if r := e.get("/api/consumer/v1/grants?active=maybe", o.policyKey); r.status != http.StatusBadRequest || r.apiError(t).Issues["active"] == nil {
		t.Errorf("active=maybe: %d %s", r.status, r.body)
	}

	e.clock.Advance(time.Minute)
	r := e.do(http.MethodDelete, "/api/consumer/v1/grants/"+a.ID.String(), o.policyKey, nil)
	var revoked gatehouse.Grant
	if r.status != http.StatusOK {
		t.Fatalf("DELETE: %d %s", r.status, r.body)
	}
	r.decode(t, &revoked)
	if revoked.RevokedAt == nil || !revoked.RevokedAt.Equal(gatehouse.Time(e.clock.Now())) || revoked.Active {
		t.Fatalf("revoked %+v", revoked)
	}
	e.clock.Advance(time.Minute)
	r = e.do(http.MethodDelete, "/api/consumer/v1/grants/"+a.ID.String(), o.policyKey, nil)
	var again gatehouse.Grant
	r.decode(t, &again)
	if r.status != http.StatusOK || again.RevokedAt == nil || !again.RevokedAt.Equal(*revoked.RevokedAt) {
		t.Errorf("DELETE again: %d %+v, want the first revocation", r.status, again)
	}
	if got := list("active=true"); !slices.Equal(got, grantIDs([]gatehouse.Grant{b})) {
		t.Errorf("active after the revocation: %v", got)
	}

	auditKey := e.newKey(o.ID, gatehouse.ScopeAuditRead)
	created := e.auditLog(t, auditKey, "action=grant.created")
	revokes := e.auditLog(t, auditKey, "action=grant.revoked")
	if len(created.Data) != 3 || len(revokes.Data) != 1 || revokes.Data[0].Target.ID != a.ID.String() ||
		revokes.Data[0].Target.Type != gatehouse.TargetGrant || created.Data[2].Changes["platformUserId"].To != "156" {
		t.Errorf("audit: %d grant.created, revokes %+v", len(created.Data), revokes.Data)
	}

	// Another organization: nothing to read, list or revoke.
	other := e.newPolicyOrg("Beta")
	for _, m := range []string{http.MethodGet, http.MethodDelete} {
		if r := e.do(m, "/api/consumer/v1/grants/"+b.ID.String(), other.policyKey, nil); r.status != http.StatusNotFound {
			t.Errorf("%s of another organization's grant: %d %s", m, r.status, r.body)
		}
	}
	var ol struct {
		Data []gatehouse.Grant `json:"data"`
	}
	e.getOK("/api/consumer/v1/grants?platformUserId=157", other.policyKey, &ol)
	if len(ol.Data) != 0 {
		t.Errorf("another organization lists %v", grantIDs(ol.Data))
	}
	// Nor grant on its doors.
	if r := e.post("/api/consumer/v1/grants", other.policyKey, e.grantBody("156", "accessPointIds", door.ID, "")); r.status != http.StatusBadRequest ||
		r.apiError(t).Issues["accessPointIds[0]"] == nil {
		t.Errorf("a grant on another organization's door: %d %s", r.status, r.body)
	}
	if r := e.post("/api/consumer/v1/grants", other.policyKey, e.grantBody("156", "locationId", o.locations[0].ID, "")); r.status != http.StatusBadRequest ||
		r.apiError(t).Issues["locationId"] == nil {
		t.Errorf("a grant on another organization's location: %d %s", r.status, r.body)
	}
}

// TestGrantReceiptsAreIdempotent: the same receipt id answers 200 with
// the grant first made, whatever the body, also when the retries come at
// once; only one is created and audited.
func TestGrantReceiptsAreIdempotent(t *testing.T) {
	e := newEnv(t)
	o := e.newPolicyOrg("Acme")
	purchase := func(receipt string, ap int) string {
		return e.grantBody("156", "accessPointIds", o.accessPoints[ap].ID,
			fmt.Sprintf(`, "source": {"type": "DEVELOPER_PRODUCT", "receiptId": %q}`, receipt))
	}
	first := e.grant(o.serverKey, purchase("r-1", 0), http.StatusCreated)
	again := e.grant(o.serverKey, purchase("r-1", 1), http.StatusOK)
	if again.ID != first.ID || again.AccessPointIDs[0] != o.accessPoints[0].ID {
		t.Errorf("the same receipt: %+v, want %+v", again, first)
	}

	const n = 8
	var (
		wg       sync.WaitGroup
		mu       sync.Mutex
		ids      = map[uuid.UUID]bool{}
		statuses []int
	)
	for range n {
		wg.Go(func() {
			r := e.post("/api/consumer/v1/grants", o.serverKey, purchase("r-2", 0))
			var g gatehouse.Grant
			if r.status < 300 {
				r.decode(t, &g)
			}
			mu.Lock()
			defer mu.Unlock()
			ids[g.ID], statuses = true, append(statuses, r.status)
		})
	}
	wg.Wait()
	slices.Sort(statuses)
	want := append([]int{http.StatusOK, http.StatusOK, http.StatusOK, http.StatusOK, http.StatusOK, http.StatusOK, http.StatusOK}, http.StatusCreated)
	if len(ids) != 1 || !slices.Equal(statuses, want) {
		t.Errorf("%d retries at once: grants %v, statuses %v; want one grant, one 201", n, ids, statuses)
	}
	auditKey := e.newKey(o.ID, gatehouse.ScopeAuditRead)
	if l := e.auditLog(t, auditKey, "action=grant.created"); len(l.Data) != 2 {
		t.Errorf("%d grant.created entries, want 2", len(l.Data))
	}
}

// TestGrantScopes: a game server's key creates purchases only, and
// neither lists, reads nor revokes; a key with neither scope creates
// nothing.
func TestGrantScopes(t *testing.T) {
	e := newEnv(t)
	o := e.newPolicyOrg("Acme")
	door := o.accessPoints[0].ID
	g := e.grant(o.serverKey, e.grantBody("156", "accessPointIds", door, `, "source": {"type": "GAME_PASS"}`), http.StatusCreated)
	for _, source := range []string{"", `, "source": {"type": "MANUAL"}`} {
		r := e.post("/api/consumer/v1/grants", o.serverKey, e.grantBody("156", "accessPointIds", door, source))
		if r.status != http.StatusForbidden || r.apiError(t).Code != "insufficient_scope" {
			t.Errorf("a server key's grant with source %q: %d %s", source, r.status, r.body)
		}
	}
	for _, req := range [][2]string{{http.MethodGet, "/api/consumer/v1/grants"}, {http.MethodGet, "/api/consumer/v1/grants/" + g.ID.String()},
		{http.MethodDelete, "/api/consumer/v1/grants/" + g.ID.String()}} {
		if r := e.do(req[0], req[1], o.serverKey, nil); r.status != http.StatusForbidden {
			t.Errorf("%s %s with a server key: %d", req[0], req[1], r.status)
		}
	}
	if r := e.post("/api/consumer/v1/grants", o.readKey, e.grantBody("156", "accessPointIds", door, "")); r.status != http.StatusForbidden {
		t.Errorf("an events:read key's grant: %d %s", r.status, r.body)
	}
}

// TestGrantValidation: every rule of a grant's body, keyed by field.
func TestGrantValidation(t *testing.T) {
	e := newEnv(t)
	o := e.newPolicyOrg("Acme")
	door, loc := o.accessPoints[0].ID, o.locations[0].ID
	now := e.clock.Now()
	at := func(d time.Duration) string { return gatehouse.FormatTime(now.Add(d)) }
	for _, tc := range []struct {
		body  string
		issue string
	}{
		{fmt.Sprintf(`{"platformUserId": "156", "accessPointIds": [%q], "from": %q, "until": %q}`, door, at(0), at(366*24*time.Hour+time.Millisecond)), "until"},
		{fmt.Sprintf(`{"platformUserId": "156", "accessPointIds": [%q], "from": %q, "until": %q}`, door, at(-48*time.Hour), at(-time.Hour)), "until"},
		{fmt.Sprintf(`{"platformUserId": "156", "accessPointIds": [%q], "from": %q, "until": %q}`, door, at(2*time.Hour), at(time.Hour)), "until"},
		{fmt.Sprintf(`{"platformUserId": "156", "accessPointIds": [%q]}`, door), "until"},
		{fmt.Sprintf(`{"platformUserId": "156", "accessPointIds": [%q], "locationId": %q, "until": %q}`, door, loc, at(time.Hour)), "locationId"},
		{fmt.Sprintf(`{"platformUserId": "156", "until": %q}`, at(time.Hour)), "accessPointIds"},
		{fmt.Sprintf(`{"platformUserId": "156", "accessPointIds": [], "until": %q}`, at(time.Hour)), "accessPointIds"},
		{fmt.Sprintf(`{"platformUserId": "156", "accessPointIds": [%q, %q], "until": %q}`, door, door, at(time.Hour)), "accessPointIds[1]"},
		{fmt.Sprintf(`{"platformUserId": "12a", "accessPointIds": [%q], "until": %q}`, door, at(time.Hour)), "platformUserId"},
		{fmt.Sprintf(`{"platformUserId": "156", "accessPointIds": [%q], "until": %q, "source": {"type": "DEVELOPER_PRODUCT"}}`, door, at(time.Hour)), "source.receiptId"},
		{fmt.Sprintf(`{"platformUserId": "156", "accessPointIds": [%q], "until": %q, "source": {"type": "GIFT"}}`, door, at(time.Hour)), "source.type"},
		{fmt.Sprintf(`{"platformUserId": "156", "accessPointIds": [%q], "until": %q, "note": "bell\u0007"}`, door, at(time.Hour)), "note"},
		{fmt.Sprintf(`{"platformUserId": "156", "accessPointIds": [%q], "until": %q, "colour": "red"}`, door, at(time.Hour)), "colour"},
		{fmt.Sprintf(`{"platformUserId": "156", "accessPointIds": [%q], "until": %q, "source": {"type": "MANUAL", "kind": "x"}}`, door, at(time.Hour)), "source.kind"},
		{fmt.Sprintf(`{"platformUserId": "156", "accessPointIds": [%q], "until": "tomorrow"}`, door), "until"},
	} {
		r := e.post("/api/consumer/v1/grants", o.policyKey, tc.body)
		if r.status != http.StatusBadRequest {
			t.Errorf("%s: %d %s", tc.body, r.status, r.body)
			continue
		}
		if issues := r.apiError(t).Issues; issues[tc.issue] == nil {
			t.Errorf("%s: issues %v, want %s", tc.body, issues, tc.issue)
		}
	}
	// 366 days exactly is the most.
	e.grant(o.policyKey, fmt.Sprintf(`{"platformUserId": "156", "accessPointIds": [%q], "from": %q, "until": %q}`, door, at(0), at(366*24*time.Hour)), http.StatusCreated)
}

// TestGrantDecisions: a running grant lets its player through its door
// whatever the schedule and allow rules, not another player nor another
// door, not after until nor after its revocation; a location grant
// covers a door added to the location later; LOCKED still comes first.
func TestGrantDecisions(t *testing.T) {
	e := newEnv(t)
	o := e.newPolicyOrg("Acme")
	door, side := o.accessPoints[0].ID, o.accessPoints[1].ID
	closed := `{"mode": "RULES", "schedule": {"timeZone": "UTC", "windows": [{"days": ["SUN"], "from": "00:00", "to": "00:01"}]}, "allow": [{"platformUserId": "1"}]}`
	e.putPolicy(o.policyKey, door, closed)
	e.putPolicy(o.policyKey, side, closed)
	ask := func(ap fmt.Stringer, player, extra string) decisionResult {
		t.Helper()
		return e.decide(o.serverKey, fmt.Sprintf(`{"accessPointId": %q, "platformUserId": %q%s}`, ap, player, extra))
	}
	if d := ask(door, "156", ""); d.Allowed != "denied" || d.Reason != gatehouse.ReasonOutsideSchedule {
		t.Fatalf("before any grant: %+v", d)
	}
	g := e.grant(o.policyKey, e.grantBody("156", "accessPointIds", door, ""), http.StatusCreated)
	if d := ask(door, "156", `, "record": true`); d.Allowed != "granted" || d.Reason != gatehouse.ReasonGrant || d.Rule != gatehouse.RuleGrant {
		t.Errorf("inside the grant: %+v", d)
	}
	if d := ask(door, "157", ""); d.Allowed != "denied" {
		t.Errorf("another player: %+v", d)
	}
	if d := ask(side, "156", ""); d.Allowed != "denied" {
		t.Errorf("another door: %+v", d)
	}
	after := fmt.Sprintf(`, "at": %q`, gatehouse.FormatTime(time.Time(g.Until)))
	if d := ask(door, "156", after); d.Allowed != "denied" {
		t.Errorf("at until: %+v", d)
	}
	before := fmt.Sprintf(`, "at": %q`, gatehouse.FormatTime(time.Time(g.From).Add(-time.Millisecond)))
	if d := ask(door, "156", before); d.Allowed != "denied" {
		t.Errorf("before from: %+v", d)
	}
	e.putPolicy(o.policyKey, door, `{"mode": "LOCKED"}`)
	if d := ask(door, "156", ""); d.Allowed != "denied" || d.Reason != gatehouse.ReasonAccessPointDisabled {
		t.Errorf("LOCKED outranks a grant: %+v", d)
	}
	e.putPolicy(o.policyKey, door, closed)
	e.clock.Advance(time.Minute)
	if r := e.do(http.MethodDelete, "/api/consumer/v1/grants/"+g.ID.String(), o.policyKey, nil); r.status != http.StatusOK {
		t.Fatalf("DELETE: %d %s", r.status, r.body)
	}
	if d := ask(door, "156", ""); d.Allowed != "denied" {
		t.Errorf("after the revocation: %+v", d)
	}

	// A location grant covers a door made after it.
	e.grant(o.policyKey, e.grantBody("158", "locationId", o.locations[0].ID, ""), http.StatusCreated)
	newDoor, err := e.store.CreateAccessPoint(context.Background(), gatehouse.SystemEntry(gatehouse.AuditAccessPointCreated), o.ID, o.locations[0].ID, "Back door")
	must(t, err)
	e.putPolicy(o.policyKey, newDoor.ID, closed)
	if d := ask(newDoor.ID, "158", ""); d.Allowed != "granted" || d.Reason != gatehouse.ReasonGrant {
		t.Errorf("a door added to the granted location: %+v", d)
	}
	if d := ask(o.accessPoints[2].ID, "158", ""); d.Reason == gatehouse.ReasonGrant {
		t.Errorf("a door of another location: %+v", d)
	}
}

// TestGrantReachesWaitingSync: a server long-polling with the player
// answers soon after a grant is made, with the grant; a server without
// the player gets none; a revocation empties the list.
func TestGrantReachesWaitingSync(t *testing.T) {
	e := newEnv(t)
	o := e.newPolicyOrg("Acme")
	e.syncTake(o.serverKey, "job-b", "999")
	first := e.syncTake(o.serverKey, "job-a", "156")
	type answer struct {
		res  syncResult
		took time.Duration
	}
	done := make(chan answer, 1)
	go func() {
		start := time.Now()
		r := e.syncNow(o.serverKey, "job-a", fmt.Sprintf(`{"universeId": "42", "players": ["156"], "cursor": %q, "waitSeconds": 20}`, first.Cursor))
		var res syncResult
		if r.status == http.StatusOK {
			r.decode(t, &res)
		} else {
			t.Errorf("long poll: %d %s", r.status, r.body)
		}
		done <- answer{res, time.Since(start)}
	}()
	e.waitLive(o.unlockOrg, 2) // its heartbeat comes before its wait
	g := e.grant(o.policyKey, e.grantBody("156", "locationId", o.locations[0].ID, ""), http.StatusCreated)
	a := <-done
	if len(a.res.Grants) != 1 || a.res.Grants[0].ID != g.ID || len(a.res.Commands) != 0 {
		t.Errorf("the waiting sync answered %+v", a.res)
	}
	if a.took >= 15*time.Second {
		t.Errorf("the waiting sync answered after %v, not on the grant", a.took)
	}
	if res := e.syncTake(o.serverKey, "job-b", "999"); len(res.Grants) != 0 {
		t.Errorf("a server without the player: %+v", res.Grants)
	}
	if res := e.syncTake(o.serverKey, "job-a", "156"); len(res.Grants) != 1 {
		t.Errorf("the next sync of the player's server: %+v", res.Grants)
	}
	if r := e.do(http.MethodDelete, "/api/consumer/v1/grants/"+g.ID.String(), o.policyKey, nil); r.status != http.StatusOK {
		t.Fatalf("DELETE: %d %s", r.status, r.body)
	}
	if res := e.syncTake(o.serverKey, "job-a", "156"); len(res.Grants) != 0 {
		t.Errorf("after the revocation: %+v", res.Grants)
	}
}
