package server_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/gatehouse/gatehouse"
)

// decisionResult is the body of POST /decisions as a game server reads it.
type decisionResult struct {
	Allowed       string  `json:"allowed"`
	Reason        string  `json:"reason"`
	Rule          string  `json:"rule"`
	PolicyVersion *int64  `json:"policyVersion"`
	EventID       *string `json:"eventId"`
	AccessPoint   struct{ ID, Name string }
	Location      struct{ ID, Name string }
	At            string `json:"at"`
}

// decide POSTs a decision and expects 200.
func (e *env) decide(key, body string) decisionResult {
	e.t.Helper()
	r := e.post("/api/consumer/v1/decisions", key, body)
	if r.status != http.StatusOK {
		e.t.Fatalf("POST /decisions %s = %d %s", body, r.status, r.body)
	}
	var d decisionResult
	r.decode(e.t, &d)
	return d
}

// TestDecisionsOverHTTP: a recorded decision is the event GET /events
// then shows (same id, outcome and reason); record: false stores nothing;
// an access point without a policy fails closed; at explains another
// instant.
func TestDecisionsOverHTTP(t *testing.T) {
	e := newEnv(t)
	o := e.newPolicyOrg("Acme")
	ap := o.accessPoints[0]
	e.putPolicy(o.policyKey, ap.ID, officeHours) // Friday 12:00 UTC is 13:00 in Berlin: in schedule
	body := func(user string, rank int, extra string) string {
		return fmt.Sprintf(`{"accessPointId": %q, "platformUserId": %q, "serverJobId": "job-1",
		  "attributes": {"groups": {"456": %d}, "gamepasses": [], "badges": ["1"], "premium": false}%s}`, ap.ID, user, rank, extra)
	}

	granted := e.decide(o.serverKey, body("156", 210, `, "record": true`))
	denied := e.decide(o.serverKey, body("157", 100, `, "record": true`))
	blocked := e.decide(o.serverKey, body("666", 255, `, "record": true`))
	for _, tc := range []struct {
		got                   decisionResult
		allowed, reason, rule string
	}{
		{granted, "granted", gatehouse.ReasonAllowlist, "allow[0]"},
		{denied, "denied", gatehouse.ReasonNotOnAllowlist, "allow"},
		{blocked, "denied", gatehouse.ReasonBlocked, "deny[0]"},
	} {
		d := tc.got
		if d.Allowed != tc.allowed || d.Reason != tc.reason || d.Rule != tc.rule || d.PolicyVersion == nil || *d.PolicyVersion != 1 ||
			d.EventID == nil || d.AccessPoint.ID != ap.ID.String() || d.Location.Name != "HQ" || d.At != "2026-11-20T12:00:00.000Z" {
			t.Errorf("decision %+v, want %s %s by %s", d, tc.allowed, tc.reason, tc.rule)
		}
	}
	events := e.events(o.readKey, "limit=500")
	if len(events.Data) != 3 {
		t.Fatalf("%d events after 3 recorded decisions", len(events.Data))
	}
	for _, d := range []decisionResult{granted, denied, blocked} {
		found := false
		for _, ev := range events.Data {
			if ev.ID != *d.EventID {
				continue
			}
			found = true
			wantType := map[string]string{"granted": "ACCESS_GRANTED", "denied": "ACCESS_DENIED"}[d.Allowed]
			if ev.Type != wantType || *ev.Allowed != d.Allowed || *ev.Reason != d.Reason || *ev.ServerJobID != "job-1" ||
				ev.AccessPoint.ID != d.AccessPoint.ID || ev.OccurredAt != d.At {
				t.Errorf("event %+v of decision %+v", ev, d)
			}
		}
		if !found {
			t.Errorf("no event %s", *d.EventID)
		}
	}

	// record: false (or absent) stores nothing.
	for _, extra := range []string{`, "record": false`, ``, `, "record": null`} {
		if d := e.decide(o.serverKey, body("156", 210, extra)); d.EventID != nil || d.Reason != gatehouse.ReasonAllowlist {
			t.Errorf("unrecorded decision: %+v", d)
		}
	}
	if n := len(e.events(o.readKey, "limit=500").Data); n != 3 {
		t.Errorf("%d events after unrecorded decisions, want 3", n)
	}

	// at explains another instant: Saturday noon is outside the schedule.
	later := e.decide(o.serverKey, body("156", 210, `, "at": "2026-11-21T12:00:00+01:00"`))
	if later.Allowed != "denied" || later.Reason != gatehouse.ReasonOutsideSchedule || later.Rule != "schedule" || later.At != "2026-11-21T11:00:00.000Z" {
		t.Errorf("a decision at Saturday noon: %+v", later)
	}

	// Before the policy's first version there was none: an explanation
	// then fails closed; currentPolicy tests today's rules at that instant.
	before := e.clock.Now().Add(-24 * time.Hour).Format(time.RFC3339)
	then := e.decide(o.serverKey, body("156", 210, `, "at": "`+before+`"`))
	if then.Allowed != "denied" || then.Reason != gatehouse.ReasonAccessPointDisabled || then.PolicyVersion != nil {
		t.Errorf("a decision before the first policy: %+v", then)
	}
	today := e.decide(o.serverKey, body("156", 210, `, "at": "`+before+`", "currentPolicy": true`))
	if today.Reason == gatehouse.ReasonAccessPointDisabled || today.PolicyVersion == nil {
		t.Errorf("currentPolicy at an instant before the first policy: %+v", today)
	}

	// No policy: denied, fail closed, no version.
	none := e.decide(o.serverKey, fmt.Sprintf(`{"accessPointId": %q, "platformUserId": "156", "record": true}`, o.accessPoints[1].ID))
	if none.Allowed != "denied" || none.Reason != gatehouse.ReasonAccessPointDisabled || none.Rule != gatehouse.RuleFailMode ||
		none.PolicyVersion != nil || none.EventID == nil {
		t.Errorf("no policy: %+v", none)
	}
}

// TestDecisionValidationOverHTTP: unknown and mistyped fields, at with
// record, and what the evaluator refuses come at once, keyed by path.
func TestDecisionValidationOverHTTP(t *testing.T) {
	e := newEnv(t)
	o := e.newPolicyOrg("Acme")
	ap := o.accessPoints[0].ID
	for _, tc := range []struct {
		body   string
		fields []string
	}{
		{`{"platformUserId": "x", "colour": "red", "attributes": {"groups": {"456": 999, "g": 1}, "badges": ["b"], "karma": 1}}`,
			[]string{"accessPointId", "attributes.badges[0]", "attributes.groups", "attributes.groups.456", "attributes.karma", "colour", "platformUserId"}},
		{fmt.Sprintf(`{"accessPointId": %q, "platformUserId": "1", "record": true, "at": "2026-11-20T12:00:00Z"}`, ap), []string{"at"}},
		{fmt.Sprintf(`{"accessPointId": %q, "platformUserId": "1", "at": "tomorrow"}`, ap), []string{"at"}},
		{fmt.Sprintf(`{"accessPointId": %q, "platformUserId": "1", "currentPolicy": true}`, ap), []string{"currentPolicy"}},
		{`{"accessPointId": "nope", "platformUserId": 1, "record": "yes", "attributes": []}`, []string{"accessPointId", "attributes", "platformUserId", "record"}},
		{`[]`, []string{""}},
	} {
		r := e.post("/api/consumer/v1/decisions", o.serverKey, tc.body)
		if r.status != http.StatusBadRequest {
			t.Errorf("%s: %d %s", tc.body, r.status, r.body)
			continue
		}
		if got := sortedKeys(r.apiError(t).Issues); strings.Join(got, " ") != strings.Join(tc.fields, " ") {
			t.Errorf("%s: issues %v, want %v", tc.body, got, tc.fields)
		}
	}
	if n := len(e.events(o.readKey, "").Data); n != 0 {
		t.Errorf("refused decisions stored %d events", n)
	}
}

// TestDecisionsIsolation: another organization's access point is a 404,
// never a decision, and stores nothing in either organization.
func TestDecisionsIsolation(t *testing.T) {
	e := newEnv(t)
	a, b := e.newPolicyOrg("Alpha"), e.newPolicyOrg("Beta")
	e.putPolicy(b.policyKey, b.accessPoints[0].ID, `{"mode": "OPEN"}`)
	for _, ap := range append(b.accessPoints, gatehouse.AccessPoint{ID: gatehouse.NewID()}) {
		r := e.post("/api/consumer/v1/decisions", a.serverKey, fmt.Sprintf(`{"accessPointId": %q, "platformUserId": "156", "record": true}`, ap.ID))
		if r.status != http.StatusNotFound || r.apiError(t).Code != "not_found" || strings.Contains(string(r.body), "allowed") {
			t.Errorf("Beta's access point %s: %d %s", ap.ID, r.status, r.body)
		}
	}
	if n := len(e.events(a.readKey, "").Data) + len(e.events(b.readKey, "").Data); n != 0 {
		t.Errorf("decisions for another organization stored %d events", n)
	}
	if d := e.decide(b.serverKey, fmt.Sprintf(`{"accessPointId": %q, "platformUserId": "156"}`, b.accessPoints[0].ID)); d.Reason != gatehouse.ReasonOpen {
		t.Errorf("Beta's own decision: %+v", d)
	}
}

// TestRemoteUnlockGrantsDecisions: a PLAYER unlock issued over the API
// makes the next decision for that player granted REMOTE_UNLOCK at a
// LOCKED access point, and no one else's.
func TestRemoteUnlockGrantsDecisions(t *testing.T) {
	e := newEnv(t)
	o := e.newPolicyOrg("Acme")
	ap := o.accessPoints[0].ID
	e.putPolicy(o.policyKey, ap, `{"mode": "LOCKED"}`)
	ask := func(user string) decisionResult {
		return e.decide(o.serverKey, fmt.Sprintf(`{"accessPointId": %q, "platformUserId": %q, "serverJobId": "job-1"}`, ap, user))
	}
	if d := ask("156"); d.Allowed != "denied" || d.Reason != gatehouse.ReasonAccessPointDisabled || d.Rule != "mode" {
		t.Fatalf("before the unlock: %+v", d)
	}
	e.syncTake(o.serverKey, "job-1", "156", "157")
	c, _ := e.issue(o.cmdKey, fmt.Sprintf(`{"accessPointId": %q, "scope": "PLAYER", "platformUserId": "156", "durationSeconds": 30}`, ap))
	if c.Status != gatehouse.CommandPending {
		t.Fatalf("issued %s", c.Status)
	}
	if d := ask("156"); d.Allowed != "granted" || d.Reason != gatehouse.ReasonRemoteUnlock || d.Rule != gatehouse.RuleRemoteUnlock {
		t.Errorf("the unlocked player: %+v", d)
	}
	if d := ask("157"); d.Allowed != "denied" || d.Reason != gatehouse.ReasonAccessPointDisabled {
		t.Errorf("another player during the unlock: %+v", d)
	}
}

// TestDecisionBodyLimit: the most a game server may state of a player,
// with the longest ids, is decided; a body past the limit is a 413.
func TestDecisionBodyLimit(t *testing.T) {
	e := newEnv(t)
	o := e.newPolicyOrg("Acme")
	attrs := gatehouse.PlayerAttributes{Groups: map[string]int{}}
	id := func(i int) string { return fmt.Sprintf("1844674407%010d", i) }
	for i := range gatehouse.MaxPlayerGroups {
		attrs.Groups[id(i)] = gatehouse.MaxGroupRank
	}
	for i := range gatehouse.MaxPlayerGamepasses {
		attrs.Gamepasses = append(attrs.Gamepasses, id(i))
	}
	for i := range gatehouse.MaxPlayerBadges {
		attrs.Badges = append(attrs.Badges, id(i))
	}
	body := fmt.Sprintf(`{"accessPointId": %q, "platformUserId": %q, "serverJobId": %q, "attributes": %s, "record": true}`,
		o.accessPoints[0].ID, id(0), strings.Repeat("j", gatehouse.MaxJobID), mustJSON(t, attrs))
	t.Logf("largest decision request: %d bytes", len(body))
	if d := e.decide(o.serverKey, body); d.EventID == nil {
		t.Errorf("the largest decision request: %+v", d)
	}
	over := body[:len(body)-1] + strings.Repeat(" ", 64<<10) + "}"
	if r := e.post("/api/consumer/v1/decisions", o.serverKey, over); r.status != http.StatusRequestEntityTooLarge {
		t.Errorf("a body over the limit: %d %.200s", r.status, r.body)
	}
}
