package server_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/gatehouse/gatehouse"
)

// startLockdown POSTs a lockdown and expects 201.
func (e *env) startLockdown(key, body string) gatehouse.Lockdown {
	e.t.Helper()
	r := e.post("/api/consumer/v1/lockdowns", key, body)
	if r.status != http.StatusCreated {
		e.t.Fatalf("POST /lockdowns %s = %d %s", body, r.status, r.body)
	}
	var l gatehouse.Lockdown
	r.decode(e.t, &l)
	return l
}

func (e *env) lockdown(key string, id fmt.Stringer) (gatehouse.Lockdown, response) {
	e.t.Helper()
	r := e.get("/api/consumer/v1/lockdowns/"+id.String(), key)
	var l gatehouse.Lockdown
	if r.status == http.StatusOK {
		r.decode(e.t, &l)
	}
	return l, r
}

// TestLockdownOverHTTP: a lockdown of a location denies its access points
// with LOCKDOWN before a remote unlock, refuses new unlocks with 409
// lockdown_active, ends the unlocks in force for good (one delivered is
// cut short, one pending is cancelled), rides the policy set (its ETag
// changes, and comes back at the release), reaches a live server through
// sync as a LOCKDOWN command whose ack counts in the lockdown's targets,
// is invisible to another organization, and is released once
// (idempotently); audited, and delivered to a lockdown.updated webhook.
func TestLockdownOverHTTP(t *testing.T) {
	e := newEnv(t, webhookSettings)
	o, rival := e.newPolicyOrg("Acme"), e.newUnlockOrg("Rival")
	recv := newReceiver(t)
	e.createWebhook(o.allKey, `{"url": "`+recv.srv.URL+`/hook", "types": ["lockdown.updated"]}`)
	ap0, ap1 := o.accessPoints[0], o.accessPoints[1] // HQ, universe 42
	e.putPolicy(o.policyKey, ap0.ID, `{"mode": "LOCKED"}`)
	e.putPolicy(o.policyKey, ap1.ID, `{"mode": "OPEN"}`)
	decide := func(ap gatehouse.AccessPoint) decisionResult {
		return e.decide(o.serverKey, fmt.Sprintf(`{"accessPointId": %q, "platformUserId": "156"}`, ap.ID))
	}
	e.syncTake(o.serverKey, "job-1")
	before, _ := e.policySet(o.serverKey, "42", "")

	running, _ := e.issue(o.cmdKey, fmt.Sprintf(`{"accessPointId": %q, "scope": "UNIVERSE", "durationSeconds": 600}`, ap0.ID))
	if got := e.syncTake(o.serverKey, "job-1"); len(got.Commands) != 1 {
		t.Fatalf("the unlock was not delivered: %+v", got)
	}
	if d := decide(ap0); d.Reason != gatehouse.ReasonRemoteUnlock {
		t.Fatalf("before the lockdown: %+v", d)
	}
	e.clock.Advance(2 * time.Second)
	pending, _ := e.issue(o.cmdKey, fmt.Sprintf(`{"accessPointId": %q, "scope": "UNIVERSE"}`, ap1.ID))

	l := e.startLockdown(o.cmdKey, fmt.Sprintf(`{"scope": "LOCATION", "locationId": %q, "reason": "Intruder in the lobby"}`, o.locations[0].ID))
	if l.Scope != gatehouse.LockdownLocation || l.Location == nil || l.Location.Name != "HQ" || !l.Active || l.ReleasedAt != nil ||
		l.IssuedByKey == nil || l.IssuedByKey.ID != o.keyRef.ID || l.Targets.Live != 1 || l.Reason != "Intruder in the lobby" {
		t.Fatalf("started %+v", l)
	}
	for _, ap := range []gatehouse.AccessPoint{ap0, ap1} {
		if d := decide(ap); d.Allowed != "denied" || d.Reason != gatehouse.ReasonLockdown || d.Rule != gatehouse.RuleLockdown {
			t.Errorf("%s under the lockdown: %+v", ap.Name, d)
		}
	}
	r := e.post("/api/consumer/v1/commands", o.cmdKey, fmt.Sprintf(`{"accessPointId": %q, "scope": "UNIVERSE"}`, ap0.ID))
	if r.status != http.StatusConflict || !jsonHas(r.body, "code", "lockdown_active") {
		t.Errorf("an unlock under the lockdown: %d %s", r.status, r.body)
	}
	var c gatehouse.Command
	e.getOK("/api/consumer/v1/commands/"+running.ID.String(), o.cmdKey, &c)
	if c.DurationSeconds != 2 {
		t.Errorf("the unlock in force runs %d s, want 2 (cut at the lockdown's start)", c.DurationSeconds)
	}
	e.getOK("/api/consumer/v1/commands/"+pending.ID.String(), o.cmdKey, &c)
	if c.Status != gatehouse.CommandCancelled {
		t.Errorf("the pending unlock is %s, want CANCELLED", c.Status)
	}

	during, _ := e.policySet(o.serverKey, "42", "")
	if during.Version == before.Version || len(during.Lockdowns) != 1 || during.Lockdowns[0].ID != l.ID {
		t.Errorf("the policy set under the lockdown: version %s (before %s), lockdowns %+v", during.Version, before.Version, during.Lockdowns)
	}

	// The live server receives it as a LOCKDOWN command, and its ack counts.
	got := e.syncTake(o.serverKey, "job-1")
	lc := lockdownCommand(got)
	if lc == nil || lc.Lockdown.ID != l.ID || lc.Lockdown.ReleasedAt != nil {
		t.Fatalf("sync under the lockdown: %+v", got.Commands)
	}
	if got.PolicyVersion != during.Version {
		t.Errorf("sync's policyVersion %s, want %s", got.PolicyVersion, during.Version)
	}
	if r := e.post("/api/consumer/v1/commands/"+lc.ID.String()+"/cancel", o.cmdKey, ""); r.status != http.StatusConflict {
		t.Errorf("cancel of a LOCKDOWN command: %d %s", r.status, r.body)
	}
	r = e.syncNow(o.serverKey, "job-1", fmt.Sprintf(`{"universeId": "42", "waitSeconds": 0, "cursor": %q,
		"acks": [{"commandId": %q, "result": "EXECUTED"}]}`, got.Cursor, lc.ID))
	if !jsonHas(r.body, "rejectedAcks", nil) && r.status != http.StatusOK {
		t.Fatalf("ack: %d %s", r.status, r.body)
	}
	if now, _ := e.lockdown(o.cmdKey, l.ID); now.Targets.Delivered != 1 || now.Targets.Executed != 1 {
		t.Errorf("targets after the ack: %+v", now.Targets)
	}

	var list struct{ Data []gatehouse.Lockdown }
	e.getOK("/api/consumer/v1/lockdowns?active=true", o.cmdKey, &list)
	if len(list.Data) != 1 || list.Data[0].ID != l.ID {
		t.Errorf("active lockdowns: %+v", list.Data)
	}
	if _, r := e.lockdown(rival.cmdKey, l.ID); r.status != http.StatusNotFound {
		t.Errorf("another organization reads it: %d", r.status)
	}
	if r := e.post("/api/consumer/v1/lockdowns/"+l.ID.String()+"/release", rival.cmdKey, ""); r.status != http.StatusNotFound {
		t.Errorf("another organization releases it: %d", r.status)
	}
	e.getOK("/api/consumer/v1/lockdowns?active=true", rival.cmdKey, &list)
	if len(list.Data) != 0 {
		t.Errorf("another organization lists %+v", list.Data)
	}

	var released, again gatehouse.Lockdown
	r = e.post("/api/consumer/v1/lockdowns/"+l.ID.String()+"/release", o.cmdKey, "")
	r.decode(t, &released)
	if r.status != http.StatusOK || released.Active || released.ReleasedAt == nil || released.ReleasedBy == nil ||
		released.ReleasedBy.Type != gatehouse.ActorKey {
		t.Fatalf("release: %d %s", r.status, r.body)
	}
	e.clock.Advance(time.Second)
	r = e.post("/api/consumer/v1/lockdowns/"+l.ID.String()+"/release", o.cmdKey, "")
	r.decode(t, &again)
	if r.status != http.StatusOK || !time.Time(*again.ReleasedAt).Equal(time.Time(*released.ReleasedAt)) {
		t.Errorf("second release: %d %s", r.status, r.body)
	}
	// The unlock it ended does not come back.
	if d := decide(ap0); d.Allowed != "denied" || d.Reason != gatehouse.ReasonAccessPointDisabled {
		t.Errorf("after the release: %+v, want denied by the LOCKED mode (the unlock ended for good)", d)
	}
	if d := decide(ap1); d.Allowed != "granted" {
		t.Errorf("after the release: %+v", d)
	}
	after, _ := e.policySet(o.serverKey, "42", "")
	if after.Version != before.Version || len(after.Lockdowns) != 0 {
		t.Errorf("the policy set after the release: %s (before %s) %+v", after.Version, before.Version, after.Lockdowns)
	}
	if lc := lockdownCommand(e.syncTake(o.serverKey, "job-1")); lc == nil || lc.Lockdown.ReleasedAt == nil {
		t.Errorf("sync after the release: %+v", lc)
	}

	audit := e.auditLog(t, o.allKey, "action=lockdown.started")
	if len(audit.Data) != 1 || audit.Data[0].Target.ID != l.ID.String() || audit.Data[0].Actor.Type != "key" {
		t.Errorf("lockdown.started entries: %+v", audit.Data)
	}
	if audit := e.auditLog(t, o.allKey, "action=lockdown.released"); len(audit.Data) != 1 {
		t.Errorf("lockdown.released entries: %+v", audit.Data)
	}

	e.roundsUntil("two lockdown.updated deliveries", func() bool { return len(recv.delivered()) >= 2 })
	msgs := recv.messages()
	for i, state := range []string{"started", "released"} {
		var data gatehouse.Lockdown
		json.Unmarshal(msgs[i].Data, &data)
		if msgs[i].Type != "lockdown.updated" || data.ID != l.ID || (data.ReleasedAt != nil) != (state == "released") ||
			msgs[i].id() != "msg_lockdown_"+l.ID.String()+"_"+state {
			t.Errorf("delivery %d: %s %s", i, msgs[i].id(), msgs[i].body)
		}
	}
}

// TestLockdownUntil: a lockdown with until denies until then; two
// instances' loops release it once, by the system, at its until.
func TestLockdownUntil(t *testing.T) {
	e := newEnv(t)
	o := e.newPolicyOrg("Acme")
	ap := o.accessPoints[2] // Club: a location with no universe
	e.putPolicy(o.policyKey, ap.ID, `{"mode": "OPEN"}`)
	until := e.clock.Now().Add(time.Minute).Format(time.RFC3339)
	l := e.startLockdown(o.cmdKey, `{"scope": "ORGANIZATION", "reason": "Drill", "until": "`+until+`"}`)
	if l.Until == nil || l.Targets.Live != 0 {
		t.Fatalf("started %+v", l)
	}
	body := fmt.Sprintf(`{"accessPointId": %q, "platformUserId": "156"}`, ap.ID)
	if d := e.decide(o.serverKey, body); d.Reason != gatehouse.ReasonLockdown {
		t.Errorf("during: %+v", d)
	}
	e.clock.Advance(time.Minute)
	if d := e.decide(o.serverKey, body); d.Allowed != "granted" {
		t.Errorf("at until: %+v", d)
	}
	var wg sync.WaitGroup
	for range 2 {
		wg.Go(func() {
			if err := e.svc.ExpireLockdowns(context.Background()); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	got, _ := e.lockdown(o.cmdKey, l.ID)
	if got.Active || got.ReleasedAt == nil || !time.Time(*got.ReleasedAt).Equal(time.Time(*l.Until)) ||
		got.ReleasedBy == nil || got.ReleasedBy.Type != gatehouse.ActorSystem {
		t.Errorf("after until: %+v", got)
	}
	audit := e.auditLog(t, o.allKey, "action=lockdown.released")
	if len(audit.Data) != 1 || audit.Data[0].Actor.Type != "system" {
		t.Errorf("lockdown.released entries: %+v", audit.Data)
	}
	// An explanation at an instant during it still sees it.
	at := e.clock.Now().Add(-30 * time.Second).Format(time.RFC3339)
	if d := e.decide(o.serverKey, fmt.Sprintf(`{"accessPointId": %q, "platformUserId": "156", "at": %q}`, ap.ID, at)); d.Reason != gatehouse.ReasonLockdown {
		t.Errorf("explained during it: %+v", d)
	}
	for body, field := range map[string]string{
		`{"scope": "LOCATION", "reason": "x"}`:                                      "locationId",
		`{"scope": "UNIVERSE", "universeId": "999", "reason": "x"}`:                 "universeId",
		`{"scope": "ORGANIZATION", "reason": ""}`:                                   "reason",
		`{"scope": "ORGANIZATION", "reason": "x", "until": "2020-01-01T00:00:00Z"}`: "until",
		`{"scope": "ORGANIZATION", "reason": "x", "until": "2027-06-01T00:00:00Z"}`: "until",
		`{"scope": "CITY", "reason": "x"}`:                                          "scope",
	} {
		r := e.post("/api/consumer/v1/lockdowns", o.cmdKey, body)
		var v struct{ Issues map[string][]string }
		json.Unmarshal(r.body, &v)
		if r.status != http.StatusBadRequest || v.Issues[field] == nil {
			t.Errorf("%s: %d %s, want 400 naming %s", body, r.status, r.body, field)
		}
	}
	if r := e.post("/api/consumer/v1/lockdowns", o.readKey, `{"scope": "ORGANIZATION", "reason": "x"}`); r.status != http.StatusForbidden {
		t.Errorf("a key without commands:write: %d", r.status)
	}
}

// lockdownCommand is the LOCKDOWN command of a sync answer, or nil.
func lockdownCommand(res syncResult) *gatehouse.Command {
	for i, c := range res.Commands {
		if c.Type == gatehouse.CommandLockdown && c.Lockdown != nil {
			return &res.Commands[i]
		}
	}
	return nil
}

// jsonHas reports whether body's field is want.
func jsonHas(body []byte, field string, want any) bool {
	var m map[string]any
	if json.Unmarshal(body, &m) != nil {
		return false
	}
	return m[field] == want
}
