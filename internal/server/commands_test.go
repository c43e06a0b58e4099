package server_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/gatehouse/gatehouse"
	"github.com/google/go-cmp/cmp"
	"github.com/google/uuid"
)

// unlockOrg is an organization whose first location lives in universe
// 42, with a key that issues commands and a game server's key.
type unlockOrg struct {
	org
	cmdKey    string // commands:write
	serverKey string // server, events:write
	keyRef    gatehouse.KeyRef
}

func (e *env) newUnlockOrg(name string) unlockOrg {
	e.t.Helper()
	o := e.newOrg(name)
	if _, err := e.store.SetLocationUniverse(context.Background(), gatehouse.SystemEntry(gatehouse.AuditLocationUniverseSet),
		o.ID, o.locations[0].ID, "42"); err != nil {
		e.t.Fatal(err)
	}
	u := unlockOrg{org: o}
	u.cmdKey = e.newKeyWith(o.ID, func(k *gatehouse.APIKey) {
		k.Name = "Ops console"
		u.keyRef = gatehouse.KeyRef{ID: k.ID, Name: k.Name, Prefix: k.Prefix}
	}, gatehouse.ScopeCommandsWrite)
	u.serverKey = e.newKey(o.ID, gatehouse.ScopeGameServer, gatehouse.ScopeEventsWrite)
	return u
}

// syncNow is one sync of job in universe 42 that does not wait.
func (e *env) syncNow(key, job string, body string) response {
	e.t.Helper()
	if body == "" {
		body = `{"universeId": "42", "waitSeconds": 0}`
	}
	return e.post("/api/consumer/v1/servers/"+job+"/sync", key, body)
}

// issue POSTs a command and expects 201.
func (e *env) issue(key, body string, header ...string) (gatehouse.Command, response) {
	e.t.Helper()
	header = append(header, "Content-Type", "application/json")
	r := e.do(http.MethodPost, "/api/consumer/v1/commands", key, strings.NewReader(body), header...)
	if r.status != http.StatusCreated {
		e.t.Fatalf("POST /commands %s = %d %s", body, r.status, r.body)
	}
	var c gatehouse.Command
	r.decode(e.t, &c)
	return c, r
}

// sameJSON fails the test unless got is the JSON want.
func sameJSON(t *testing.T, what string, got []byte, want string) {
	t.Helper()
	var g, w any
	if err := json.Unmarshal(got, &g); err != nil {
		t.Fatalf("%s: %v: %s", what, err, got)
	}
	if err := json.Unmarshal([]byte(want), &w); err != nil {
		t.Fatalf("%s: the expected JSON: %v", what, err)
	}
	if d := cmp.Diff(w, g); d != "" {
		t.Errorf("%s (-want +got):\n%s", what, d)
	}
}

func TestIssueCommand(t *testing.T) {
	e := newEnv(t)
	o := e.newUnlockOrg("Acme")
	if r := e.syncNow(o.serverKey, "job-1", ""); r.status != 200 {
		t.Fatalf("sync: %d %s", r.status, r.body)
	}
	ap := o.accessPoints[0]
	c, r := e.issue(o.cmdKey, fmt.Sprintf(`{"accessPointId": %q, "scope": "SERVER", "serverJobId": "job-1", "durationSeconds": 30, "note": "Courier"}`, ap.ID))
	if got, want := r.header.Get("Location"), "/api/consumer/v1/commands/"+c.ID.String(); got != want {
		t.Errorf("Location %q, want %q", got, want)
	}
	if r.header.Get("Idempotent-Replayed") != "" {
		t.Error("a first issue says Idempotent-Replayed")
	}
	now := "2026-11-20T12:00:00.000Z"
	want := fmt.Sprintf(`{"id": %q, "type": "UNLOCK", "status": "PENDING", "failureReason": null, "scope": "SERVER",
		"serverJobId": "job-1", "platformUserId": null, "universeId": "42",
		"accessPoint": {"id": %q, "name": "Front door"}, "location": {"id": %q, "name": "HQ"},
		"durationSeconds": 30, "note": "Courier", "issuedAt": %q, "expiresAt": "2026-11-20T12:01:00.000Z", "statusAt": %q,
		"startedAt": null, "requestedBy": null, "issuedByKey": {"id": %q, "name": "Ops console", "prefix": %q},
		"targets": {"live": 1, "delivered": 0, "executed": 0, "failed": 0, "joined": 0}, "lockdown": null,
		"deliveries": [{"serverJobId": "job-1", "target": true, "deliveredAt": null, "result": null, "detail": null, "ackedAt": null}]}`,
		c.ID, ap.ID, o.locations[0].ID, now, now, o.keyRef.ID, o.keyRef.Prefix)
	sameJSON(t, "201", r.body, want)
	sameJSON(t, "GET /commands/{id}", e.get("/api/consumer/v1/commands/"+c.ID.String(), o.cmdKey).body, want)

	// The unlock is an event too, whose command is read live.
	l := e.events(o.readKey, "type=REMOTE_UNLOCK")
	if len(l.Data) != 1 || l.Data[0].Command == nil || l.Data[0].Command.ID != c.ID.String() || l.Data[0].Command.Status != "PENDING" {
		t.Errorf("REMOTE_UNLOCK events: %+v", l.Data)
	}
}

func TestIssueCommandToAServerNotLive(t *testing.T) {
	e := newEnv(t)
	o := e.newUnlockOrg("Acme")
	c, _ := e.issue(o.cmdKey, fmt.Sprintf(`{"accessPointId": %q, "scope": "SERVER", "serverJobId": "gone"}`, o.accessPoints[0].ID))
	if c.Status != gatehouse.CommandFailed || c.FailureReason == nil || *c.FailureReason != gatehouse.FailServerNotLive ||
		c.Targets != (gatehouse.CommandTargets{}) {
		t.Errorf("command %+v, want FAILED SERVER_NOT_LIVE with no targets", c)
	}
}

func TestIssueCommandIdempotency(t *testing.T) {
	e := newEnv(t)
	o := e.newUnlockOrg("Acme")
	body := fmt.Sprintf(`{"accessPointId": %q, "scope": "UNIVERSE"}`, o.accessPoints[0].ID)
	first, r1 := e.issue(o.cmdKey, body, "Idempotency-Key", "order-77")
	// The same request, its defaults spelled out, is a replay.
	spelled := fmt.Sprintf(`{"type": "UNLOCK", "accessPointId": %q, "scope": "UNIVERSE", "durationSeconds": 10, "ttlSeconds": 60}`, o.accessPoints[0].ID)
	for _, b := range []string{body, spelled} {
		again, r2 := e.issue(o.cmdKey, b, "Idempotency-Key", "order-77")
		if again.ID != first.ID || r2.header.Get("Idempotent-Replayed") != "true" || r2.header.Get("Location") != r1.header.Get("Location") {
			t.Errorf("replay of %s: %s %q", b, again.ID, r2.header.Get("Idempotent-Replayed"))
		}
		sameJSON(t, "replay", r2.body, string(r1.body))
	}
	other := fmt.Sprintf(`{"accessPointId": %q, "scope": "UNIVERSE"}`, o.accessPoints[1].ID)
	r := e.do(http.MethodPost, "/api/consumer/v1/commands", o.cmdKey, strings.NewReader(other), "Content-Type", "application/json", "Idempotency-Key", "order-77")
	if r.status != http.StatusConflict {
		t.Fatalf("same key, other body: %d %s", r.status, r.body)
	}
	if ae := r.apiError(t); ae.Code != "conflict" || len(ae.Issues["Idempotency-Key"]) != 1 {
		t.Errorf("409 body %s", r.body)
	}
	// Another key is another command; another organization's same key too.
	if c, _ := e.issue(o.cmdKey, body, "Idempotency-Key", "order-78"); c.ID == first.ID {
		t.Error("another Idempotency-Key replayed")
	}
	b := e.newUnlockOrg("Beta")
	if c, r := e.issue(b.cmdKey, fmt.Sprintf(`{"accessPointId": %q, "scope": "UNIVERSE"}`, b.accessPoints[0].ID), "Idempotency-Key", "order-77"); c.ID == first.ID || r.header.Get("Idempotent-Replayed") != "" {
		t.Error("an Idempotency-Key crossed organizations")
	}
	page := e.commands(o.cmdKey, "")
	if len(page.Data) != 2 {
		t.Errorf("%d commands, want 2", len(page.Data))
	}
}

// commandList is the body of GET /commands.
type commandList struct {
	Data       []gatehouse.Command `json:"data"`
	NextCursor *string             `json:"nextCursor"`
}

func (e *env) commands(key, query string) commandList {
	e.t.Helper()
	r := e.get("/api/consumer/v1/commands?"+query, key)
	if r.status != 200 {
		e.t.Fatalf("GET /commands?%s = %d %s", query, r.status, r.body)
	}
	var l commandList
	r.decode(e.t, &l)
	return l
}

func TestListCommands(t *testing.T) {
	e := newEnv(t)
	o := e.newUnlockOrg("Acme")
	var issued []gatehouse.Command
	for i, body := range []string{
		`{"accessPointId": %q, "scope": "UNIVERSE"}`,
		`{"accessPointId": %q, "scope": "SERVER", "serverJobId": "gone"}`,
		`{"accessPointId": %q, "scope": "PLAYER", "platformUserId": "156"}`,
		`{"accessPointId": %q, "scope": "UNIVERSE", "durationSeconds": 5}`,
	} {
		c, _ := e.issue(o.cmdKey, fmt.Sprintf(body, o.accessPoints[i%2].ID))
		issued = append(issued, c)
		e.clock.Advance(time.Second)
	}
	ids := func(cs []gatehouse.Command) []uuid.UUID {
		out := make([]uuid.UUID, len(cs))
		for i, c := range cs {
			out[i] = c.ID
		}
		return out
	}
	newestFirst := []uuid.UUID{issued[3].ID, issued[2].ID, issued[1].ID, issued[0].ID}
	var walked []uuid.UUID
	query := "limit=3"
	for pages := 0; ; pages++ {
		l := e.commands(o.cmdKey, query)
		walked = append(walked, ids(l.Data)...)
		if l.NextCursor == nil {
			break
		}
		if pages > 2 {
			t.Fatal("pages do not end")
		}
		query = "limit=3&cursor=" + *l.NextCursor
	}
	if d := cmp.Diff(newestFirst, walked); d != "" {
		t.Errorf("pages (-want +got):\n%s", d)
	}
	for _, tc := range []struct {
		query string
		want  []uuid.UUID
	}{
		{"status=FAILED", []uuid.UUID{issued[2].ID, issued[1].ID}},
		{"scope=UNIVERSE", []uuid.UUID{issued[3].ID, issued[0].ID}},
		{"accessPointId=" + o.accessPoints[1].ID.String(), []uuid.UUID{issued[3].ID, issued[1].ID}},
		{"locationId=" + o.locations[0].ID.String(), newestFirst},
		{"locationId=" + o.locations[1].ID.String(), nil},
		{"status=PENDING&scope=UNIVERSE&limit=1", []uuid.UUID{issued[3].ID}},
	} {
		got := ids(e.commands(o.cmdKey, tc.query).Data)
		if len(got) != len(tc.want) || (len(got) > 0 && !cmp.Equal(got, tc.want)) {
			t.Errorf("%s: %v, want %v", tc.query, got, tc.want)
		}
	}
	// A cursor is bound to its filters.
	l := e.commands(o.cmdKey, "scope=UNIVERSE&limit=1")
	r := e.get("/api/consumer/v1/commands?scope=SERVER&limit=1&cursor="+*l.NextCursor, o.cmdKey)
	if r.status != 400 || len(r.apiError(t).Issues["cursor"]) != 1 {
		t.Errorf("a cursor with other filters: %d %s", r.status, r.body)
	}
}

func TestCancelCommand(t *testing.T) {
	e := newEnv(t)
	o := e.newUnlockOrg("Acme")
	// With no live server a UNIVERSE unlock waits, PENDING.
	c, _ := e.issue(o.cmdKey, fmt.Sprintf(`{"accessPointId": %q, "scope": "UNIVERSE"}`, o.accessPoints[0].ID))
	e.clock.Advance(time.Second)
	path := "/api/consumer/v1/commands/" + c.ID.String() + "/cancel"
	r := e.post(path, o.cmdKey, "")
	if r.status != 200 {
		t.Fatalf("cancel: %d %s", r.status, r.body)
	}
	want := fmt.Sprintf(`{"id": %q, "type": "UNLOCK", "status": "CANCELLED", "failureReason": null, "scope": "UNIVERSE",
		"serverJobId": null, "platformUserId": null, "universeId": "42",
		"accessPoint": {"id": %q, "name": "Front door"}, "location": {"id": %q, "name": "HQ"},
		"durationSeconds": 10, "note": null, "issuedAt": "2026-11-20T12:00:00.000Z", "expiresAt": "2026-11-20T12:01:00.000Z",
		"statusAt": "2026-11-20T12:00:01.000Z", "startedAt": null, "requestedBy": null,
		"issuedByKey": {"id": %q, "name": "Ops console", "prefix": %q},
		"targets": {"live": 0, "delivered": 0, "executed": 0, "failed": 0, "joined": 0}, "lockdown": null}`,
		c.ID, o.accessPoints[0].ID, o.locations[0].ID, o.keyRef.ID, o.keyRef.Prefix)
	sameJSON(t, "cancel", r.body, want)
	sameJSON(t, "list", e.get("/api/consumer/v1/commands", o.cmdKey).body, `{"data": [`+want+`], "nextCursor": null}`)
	// Read alone, it carries its deliveries: none, as a list, not left out.
	sameJSON(t, "show", e.get("/api/consumer/v1/commands/"+c.ID.String(), o.cmdKey).body,
		strings.Replace(want, `"lockdown": null}`, `"lockdown": null, "deliveries": []}`, 1))
	r = e.post(path, o.cmdKey, "")
	if r.status != http.StatusConflict {
		t.Fatalf("cancel twice: %d %s", r.status, r.body)
	}
	var conflict struct {
		apiError
		Command gatehouse.Command `json:"command"`
	}
	r.decode(t, &conflict)
	if conflict.Code != "conflict" || conflict.Command.ID != c.ID || conflict.Command.Status != gatehouse.CommandCancelled ||
		len(conflict.Issues["status"]) != 1 {
		t.Errorf("409 body %s", r.body)
	}
	failed, _ := e.issue(o.cmdKey, fmt.Sprintf(`{"accessPointId": %q, "scope": "SERVER", "serverJobId": "gone"}`, o.accessPoints[0].ID))
	if r := e.post("/api/consumer/v1/commands/"+failed.ID.String()+"/cancel", o.cmdKey, ""); r.status != http.StatusConflict ||
		!strings.Contains(r.apiError(t).Error, "FAILED") {
		t.Errorf("cancel FAILED: %d %s", r.status, r.body)
	}
}

// TestCommandsIsolation: another organization's command is not found by
// any route, and no list shows it.
func TestCommandsIsolation(t *testing.T) {
	e := newEnv(t)
	a := e.newUnlockOrg("Acme")
	b := e.newUnlockOrg("Beta")
	c, _ := e.issue(a.cmdKey, fmt.Sprintf(`{"accessPointId": %q, "scope": "UNIVERSE"}`, a.accessPoints[0].ID))
	for _, r := range []response{
		e.get("/api/consumer/v1/commands/"+c.ID.String(), b.cmdKey),
		e.post("/api/consumer/v1/commands/"+c.ID.String()+"/cancel", b.cmdKey, ""),
		e.get("/api/consumer/v1/commands/"+gatehouse.NewID().String(), a.cmdKey),
	} {
		if r.status != 404 || r.apiError(t).Code != "not_found" {
			t.Errorf("%d %s, want 404", r.status, r.body)
		}
	}
	if l := e.commands(b.cmdKey, ""); len(l.Data) != 0 {
		t.Errorf("Beta lists %d commands", len(l.Data))
	}
	// Beta cannot unlock Acme's door: it is not one of Beta's.
	r := e.post("/api/consumer/v1/commands", b.cmdKey, fmt.Sprintf(`{"accessPointId": %q, "scope": "UNIVERSE"}`, a.accessPoints[0].ID))
	if r.status != 400 || len(r.apiError(t).Issues["accessPointId"]) != 1 {
		t.Errorf("Beta unlocking Acme's door: %d %s", r.status, r.body)
	}
	// Acme's command is still PENDING.
	if got := e.get("/api/consumer/v1/commands/"+c.ID.String(), a.cmdKey); !strings.Contains(string(got.body), `"status":"PENDING"`) {
		t.Errorf("after Beta's attempts: %s", got.body)
	}
}
