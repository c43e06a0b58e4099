package server_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/gatehouse/gatehouse"
	"github.com/gatehouse/gatehouse/internal/server"
)

// policyOrg is an unlockOrg (its first location in universe 42) with a
// key that reads and changes policies.
type policyOrg struct {
	unlockOrg
	policyKey string // policies:write
}

func (e *env) newPolicyOrg(name string) policyOrg {
	e.t.Helper()
	o := policyOrg{unlockOrg: e.newUnlockOrg(name)}
	o.policyKey = e.newKey(o.ID, gatehouse.ScopePoliciesWrite)
	return o
}

func policyPath(apID fmt.Stringer) string {
	return "/api/consumer/v1/access-points/" + apID.String() + "/policy"
}

func (e *env) put(path, key, body string, header ...string) response {
	e.t.Helper()
	return e.do(http.MethodPut, path, key, strings.NewReader(body), append(header, "Content-Type", "application/json")...)
}

// putPolicy PUTs a policy and expects 200 with its version as ETag.
func (e *env) putPolicy(key string, apID fmt.Stringer, body string, header ...string) gatehouse.Policy {
	e.t.Helper()
	r := e.put(policyPath(apID), key, body, header...)
	if r.status != http.StatusOK {
		e.t.Fatalf("PUT policy %s = %d %s", body, r.status, r.body)
	}
	var p gatehouse.Policy
	r.decode(e.t, &p)
	if want := fmt.Sprintf(`"%d"`, p.Version); r.header.Get("ETag") != want {
		e.t.Errorf("PUT policy: ETag %q, want %s", r.header.Get("ETag"), want)
	}
	return p
}

const officeHours = `{"mode": "RULES",
 "schedule": {"timeZone": "Europe/Berlin",
   "windows": [{"days": ["MON","TUE","WED","THU","FRI"], "from": "09:00", "to": "17:30"}, {"days": ["SAT"], "from": "22:00", "to": "02:00"}],
   "exceptions": [{"date": "2026-12-25", "closed": true}]},
 "allow": [{"groupId": "456", "minRank": 200}, {"gamepassId": "789"}],
 "deny": [{"platformUserId": "666", "until": "2026-12-01T00:00:00Z"}]}`

// TestPolicyOverHTTP: an access point has no policy until one is set (a
// 404 that says so); a PUT stores version 1, a GET answers it with its
// ETag and a 304 to that ETag; an unchanged PUT keeps the version;
// If-Match and If-None-Match guard changes as RFC 9110 says.
func TestPolicyOverHTTP(t *testing.T) {
	e := newEnv(t)
	o := e.newPolicyOrg("Acme")
	ap := o.accessPoints[0].ID
	r := e.get(policyPath(ap), o.policyKey)
	if r.status != http.StatusNotFound || r.apiError(t).Code != "policy_not_found" || !strings.Contains(r.apiError(t).Error, "no policy yet") {
		t.Fatalf("GET before any PUT: %d %s", r.status, r.body)
	}

	p := e.putPolicy(o.policyKey, ap, officeHours)
	if p.Version != 1 || p.UpdatedAt == nil || p.FailMode != gatehouse.FailClosed || *p.Allow[0].MinRank != 200 || len(p.Schedule.Exceptions) != 1 {
		t.Fatalf("stored %+v", p)
	}
	r = e.get(policyPath(ap), o.policyKey)
	if r.status != http.StatusOK || r.header.Get("ETag") != `"1"` || r.header.Get("Cache-Control") != "no-store" {
		t.Fatalf("GET: %d %v %s", r.status, r.header, r.body)
	}
	sameJSON(t, "GET answers what PUT stored", r.body, string(mustJSON(t, p)))
	for _, inm := range []string{`"1"`, `W/"1"`, `"7", "1"`, `*`} {
		nm := e.do(http.MethodGet, policyPath(ap), o.policyKey, nil, "If-None-Match", inm)
		if nm.status != http.StatusNotModified || len(nm.body) != 0 || nm.header.Get("ETag") != `"1"` {
			t.Errorf("If-None-Match %s: %d %v %s", inm, nm.status, nm.header, nm.body)
		}
	}
	if nm := e.do(http.MethodGet, policyPath(ap), o.policyKey, nil, "If-None-Match", `"2"`); nm.status != http.StatusOK {
		t.Errorf("If-None-Match of another version: %d", nm.status)
	}

	// What GET answered, sent back as it is (version and updatedAt
	// included), changes nothing.
	if again := e.putPolicy(o.policyKey, ap, string(r.body)); again.Version != 1 {
		t.Errorf("an unchanged PUT made version %d", again.Version)
	}
	changed := strings.Replace(officeHours, `"minRank": 200`, `"minRank": 100`, 1)
	if p2 := e.putPolicy(o.policyKey, ap, changed, "If-Match", `"1"`); p2.Version != 2 || *p2.Allow[0].MinRank != 100 {
		t.Fatalf("If-Match of the current version: %+v", p2)
	}
	for _, tc := range []struct{ name, header, value string }{
		{"a stale version", "If-Match", `"1"`},
		{"a weak tag (never matches If-Match)", "If-Match", `W/"2"`},
		{"no such version", "If-Match", `"0"`},
		{"a list without the current version", "If-Match", `"1", "3"`},
		{"none yet, when one exists", "If-None-Match", `*`},
		{"the current version in If-None-Match", "If-None-Match", `"1", "2"`},
	} {
		r := e.put(policyPath(ap), o.policyKey, officeHours, tc.header, tc.value)
		if r.status != http.StatusPreconditionFailed || r.apiError(t).Code != "precondition_failed" {
			t.Errorf("%s (%s: %s): %d %s", tc.name, tc.header, tc.value, r.status, r.body)
		}
	}
	if p3 := e.putPolicy(o.policyKey, ap, officeHours, "If-Match", `"1", "2"`); p3.Version != 3 {
		t.Errorf("a list with the current version: version %d", p3.Version)
	}
	if p4 := e.putPolicy(o.policyKey, ap, changed, "If-Match", `*`); p4.Version != 4 {
		t.Errorf("If-Match: * over a policy: version %d", p4.Version)
	}
	if cur := e.getPolicy(o.policyKey, ap); cur.Version != 4 || *cur.Allow[0].MinRank != 100 {
		t.Errorf("after the refused changes: %+v", cur)
	}

	// If-None-Match: * sets a first policy only; If-Match: * needs one.
	fresh := o.accessPoints[1].ID
	if r := e.put(policyPath(fresh), o.policyKey, officeHours, "If-Match", `*`); r.status != http.StatusPreconditionFailed {
		t.Errorf("If-Match: * with no policy: %d %s", r.status, r.body)
	}
	if p := e.putPolicy(o.policyKey, fresh, officeHours, "If-None-Match", `*`); p.Version != 1 {
		t.Errorf("If-None-Match: * with no policy: version %d", p.Version)
	}
	for _, bad := range []string{`1`, `"1`, `W/1`, `"1" "2"`, `**`} {
		r := e.put(policyPath(fresh), o.policyKey, officeHours, "If-Match", bad)
		if r.status != http.StatusBadRequest || r.apiError(t).Issues["If-Match"] == nil {
			t.Errorf("If-Match %s: %d %s", bad, r.status, r.body)
		}
		r = e.do(http.MethodGet, policyPath(fresh), o.policyKey, nil, "If-None-Match", bad)
		if r.status != http.StatusBadRequest || r.apiError(t).Issues["If-None-Match"] == nil {
			t.Errorf("GET If-None-Match %s: %d %s", bad, r.status, r.body)
		}
	}

	// Who changed what is in the audit log.
	page, err := e.store.ListAuditEntries(context.Background(), o.ID, gatehouse.AuditFilter{Action: gatehouse.AuditPolicyChanged, Limit: 100})
	must(t, err)
	if len(page.Entries) != 5 {
		t.Errorf("%d policy.changed entries, want 5 (4 versions of one policy, 1 of another)", len(page.Entries))
	}

	// An unknown access point, or another organization's, is not_found.
	other := e.newPolicyOrg("Other")
	for _, id := range []fmt.Stringer{other.accessPoints[0].ID, gatehouse.NewID()} {
		if r := e.get(policyPath(id), o.policyKey); r.status != http.StatusNotFound || r.apiError(t).Code != "not_found" {
			t.Errorf("GET of %s: %d %s", id, r.status, r.body)
		}
		if r := e.put(policyPath(id), o.policyKey, officeHours); r.status != http.StatusNotFound || r.apiError(t).Code != "not_found" {
			t.Errorf("PUT of %s: %d %s", id, r.status, r.body)
		}
	}
	if r := e.get(policyPath(other.accessPoints[0].ID), other.policyKey); r.status != http.StatusNotFound || r.apiError(t).Code != "policy_not_found" {
		t.Errorf("the other organization's access point got a policy: %d %s", r.status, r.body)
	}
	if r := e.get("/api/consumer/v1/access-points/nope/policy", o.policyKey); r.status != http.StatusBadRequest || r.apiError(t).Issues["id"] == nil {
		t.Errorf("a bad id: %d %s", r.status, r.body)
	}
}

func (e *env) getPolicy(key string, apID fmt.Stringer) gatehouse.Policy {
	e.t.Helper()
	r := e.get(policyPath(apID), key)
	if r.status != http.StatusOK {
		e.t.Fatalf("GET policy: %d %s", r.status, r.body)
	}
	var p gatehouse.Policy
	r.decode(e.t, &p)
	return p
}

func mustJSON(t testing.TB, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	must(t, err)
	return b
}

// TestPolicyValidationOverHTTP: every problem of a policy comes at once,
// keyed by its path, whether the JSON is mistyped, names an unknown
// field, or breaks a rule of the policy.
func TestPolicyValidationOverHTTP(t *testing.T) {
	e := newEnv(t)
	o := e.newPolicyOrg("Acme")
	body := `{"mode": "SOMETIMES", "failMode": "NEVER", "colour": "red",
	 "schedule": {"timeZone": "Mars/Olympus", "windows": [{"days": ["MON"], "from": "09:00", "to": "17:00"}, {"days": ["MON", "XYZ"], "from": "9", "to": "25:00"}],
	   "exceptions": [{"date": "2026-02-30", "closed": true}, {"date": "2026-12-24"}, {"date": "2026-12-31", "windows": [{"from": "10:00", "to": "10:00", "note": "x"}]}]},
	 "allow": [{"groupId": "456", "minRank": "high"}, {"platformUserId": "1", "gamepassId": "2"}, {"badgeId": "7", "colour": 1}, {}, null, {"groupId": "456", "minRank": 300}],
	 "deny": [{"platformUserId": "666", "until": "tomorrow"}, {"platformUserId": "x"}, {"platformUserId": "666"}]}`
	r := e.put(policyPath(o.accessPoints[0].ID), o.policyKey, body)
	if r.status != http.StatusBadRequest {
		t.Fatalf("%d %s", r.status, r.body)
	}
	got := r.apiError(t)
	want := []string{"allow[0].minRank", "allow[1]", "allow[2].colour", "allow[3]", "allow[4]", "allow[5]", "allow[5].minRank",
		"colour", "deny[0].until", "deny[1].platformUserId", "deny[2].platformUserId", "failMode", "mode",
		"schedule.exceptions[0].date", "schedule.exceptions[1]", "schedule.exceptions[2].windows[0].note",
		"schedule.exceptions[2].windows[0].to", "schedule.timeZone", "schedule.windows[1].days[1]",
		"schedule.windows[1].from", "schedule.windows[1].to"}
	if keys := sortedKeys(got.Issues); strings.Join(keys, " ") != strings.Join(want, " ") {
		t.Errorf("issues %v\nwant   %v\n%s", keys, want, r.body)
	}
	for _, tc := range []struct{ body, field string }{
		{`[]`, ""}, {`{"mode": "RULES", "schedule": 5}`, "schedule"}, {`{"mode": "RULES", "allow": {}}`, "allow"},
		{`{"mode": "RULES", "schedule": {"timeZone": "UTC", "windows": [1]}}`, "schedule.windows[0]"},
		{`{"mode": "RULES", "mode": "OPEN"}`, "mode"},
	} {
		r := e.put(policyPath(o.accessPoints[0].ID), o.policyKey, tc.body)
		if r.status != http.StatusBadRequest || r.apiError(t).Issues[tc.field] == nil {
			t.Errorf("%s: %d %s, want an issue of %q", tc.body, r.status, r.body, tc.field)
		}
	}
	if r := e.get(policyPath(o.accessPoints[0].ID), o.policyKey); r.status != http.StatusNotFound {
		t.Errorf("a refused PUT stored a policy: %d %s", r.status, r.body)
	}
}

// TestPolicyBodyLimit: the largest valid policy (every list at its
// bound, the longest ids), even indented, is under the PUT body limit
// and is stored; a body past the limit is a 413.
func TestPolicyBodyLimit(t *testing.T) {
	e := newEnv(t)
	o := e.newPolicyOrg("Acme")
	p := largestPolicy()
	if _, err := p.Check(); err != nil {
		t.Fatalf("the largest policy is not valid: %v", err)
	}
	compact := mustJSON(t, p)
	indented, err := json.MarshalIndent(p, "", "  ")
	must(t, err)
	t.Logf("largest valid policy: %d bytes compact, %d indented; limit %d", len(compact), len(indented), server.MaxPolicyBody)
	if len(indented) > server.MaxPolicyBody {
		t.Fatalf("the largest valid policy, indented, is %d bytes: over the limit of %d", len(indented), server.MaxPolicyBody)
	}
	if server.MaxPolicyBody > 4*len(indented) {
		t.Errorf("the limit %d is far above the largest valid policy (%d bytes)", server.MaxPolicyBody, len(indented))
	}
	stored := e.putPolicy(o.policyKey, o.accessPoints[0].ID, string(indented))
	if len(stored.Allow) != gatehouse.MaxPolicyAllowRules || len(stored.Deny) != gatehouse.MaxPolicyDenyRules ||
		len(stored.Schedule.Exceptions) != gatehouse.MaxPolicyExceptions {
		t.Errorf("stored %d allow, %d deny, %d exceptions", len(stored.Allow), len(stored.Deny), len(stored.Schedule.Exceptions))
	}
	over := string(indented[:len(indented)-1]) + strings.Repeat(" ", server.MaxPolicyBody) + "}"
	if r := e.put(policyPath(o.accessPoints[0].ID), o.policyKey, over); r.status != http.StatusRequestEntityTooLarge {
		t.Errorf("a body over the limit: %d %.200s", r.status, r.body)
	}
}

// largestPolicy has every list of a policy at its bound, with the
// longest ids and values the checks allow.
func largestPolicy() gatehouse.Policy {
	id := func(i int) string { return fmt.Sprintf("1844674407%010d", i) } // 20 digits, under 2^64
	until := gatehouse.Time(time.Date(2026, 12, 1, 23, 59, 59, 999e6, time.UTC))
	p := gatehouse.Policy{Mode: gatehouse.ModeRules, FailMode: gatehouse.FailClosed,
		Schedule: &gatehouse.Schedule{TimeZone: "America/Argentina/ComodRivadavia"}}
	for i := range gatehouse.MaxPolicyWindows {
		p.Schedule.Windows = append(p.Schedule.Windows, gatehouse.Window{Days: gatehouse.Weekdays, From: fmt.Sprintf("%02d:%02d", i%24, i%60), To: "24:00"})
	}
	day := time.Date(2027, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := range gatehouse.MaxPolicyExceptions {
		e := gatehouse.Exception{Date: day.AddDate(0, 0, i).Format(time.DateOnly)}
		for j := range gatehouse.MaxPolicyExceptionWindows {
			e.Windows = append(e.Windows, gatehouse.TimeRange{From: fmt.Sprintf("%02d:00", j), To: fmt.Sprintf("%02d:30", j)})
		}
		p.Schedule.Exceptions = append(p.Schedule.Exceptions, e)
	}
	rank := gatehouse.MaxGroupRank
	for i := range gatehouse.MaxPolicyAllowRules {
		p.Allow = append(p.Allow, gatehouse.AllowRule{GroupID: id(i), MinRank: &rank})
	}
	for i := range gatehouse.MaxPolicyDenyRules {
		p.Deny = append(p.Deny, gatehouse.DenyRule{PlatformUserID: id(i), Until: &until})
	}
	return p
}

// TestPolicySetETag: GET /policies answers a universe's set with its
// version as a strong ETag and Cache-Control: no-cache; an unchanged set
// answers 304 to If-None-Match (strong, weak, a list or *); a PUT gives
// the next call, and the next sync's policyVersion, a new version.
func TestPolicySetETag(t *testing.T) {
	e := newEnv(t)
	o := e.newPolicyOrg("Acme")
	set, r := e.policySet(o.serverKey, "42", "")
	etag := r.header.Get("ETag")
	if !regexp.MustCompile(`^"[0-9a-f]{24}"$`).MatchString(etag) || etag != `"`+set.Version+`"` || r.header.Get("Cache-Control") != "no-cache" {
		t.Fatalf("ETag %q, Cache-Control %q, version %q", etag, r.header.Get("Cache-Control"), set.Version)
	}
	if len(set.AccessPoints) != 2 || set.AccessPoints[0].Policy != nil || set.UniverseID != "42" {
		t.Fatalf("the set of universe 42: %s", r.body)
	}
	if v := e.syncTake(o.serverKey, "job-1").PolicyVersion; v != set.Version {
		t.Errorf("sync policyVersion %q, the set's %q", v, set.Version)
	}
	weak := "W/" + etag
	for _, inm := range []string{etag, weak, `"0123", ` + etag, "*", `"x",,` + weak} {
		_, r := e.policySet(o.serverKey, "42", inm)
		if r.status != http.StatusNotModified || len(r.body) != 0 || r.header.Get("ETag") != etag || r.header.Get("Cache-Control") != "no-cache" {
			t.Errorf("If-None-Match %s: %d %v %s", inm, r.status, r.header, r.body)
		}
	}

	e.putPolicy(o.policyKey, o.accessPoints[0].ID, officeHours)
	changed, r := e.policySet(o.serverKey, "42", etag)
	if r.status != http.StatusOK || changed.Version == set.Version || r.header.Get("ETag") != `"`+changed.Version+`"` {
		t.Fatalf("after a PUT: %d, version %q (was %q)", r.status, changed.Version, set.Version)
	}
	if p := changed.AccessPoints[0].Policy; p == nil || p.Version != 1 || changed.AccessPoints[0].AccessPoint.ID != o.accessPoints[0].ID {
		t.Errorf("the set after a PUT: %s", r.body)
	}
	if zones := changed.Zones["Europe/Berlin"]; len(zones) < 2 || len(changed.Zones) != 1 {
		t.Errorf("the set's zones after a PUT of a schedule in Berlin: %s", r.body)
	}
	if v := e.syncTake(o.serverKey, "job-1").PolicyVersion; v != changed.Version {
		t.Errorf("sync policyVersion %q after the change, the set's %q", v, changed.Version)
	}
	if _, r := e.policySet(o.serverKey, "42", `"`+changed.Version+`"`); r.status != http.StatusNotModified {
		t.Errorf("the new version: %d", r.status)
	}
	// A policy of an access point outside the universe changes nothing.
	e.putPolicy(o.policyKey, o.accessPoints[2].ID, officeHours)
	if _, r := e.policySet(o.serverKey, "42", `"`+changed.Version+`"`); r.status != http.StatusNotModified {
		t.Errorf("a change outside the universe: %d", r.status)
	}

	for _, tc := range []struct{ query, inm, field string }{
		{"", "", "universeId"}, {"universeId=", "", "universeId"}, {"universeId=abc", "", "universeId"},
		{"universeId=42&universeId=43", "", "universeId"}, {"universeId=42&color=red", "", "color"},
		{"universeId=42", `nope`, "If-None-Match"},
	} {
		r := e.do(http.MethodGet, "/api/consumer/v1/policies?"+tc.query, o.serverKey, nil, "If-None-Match", tc.inm)
		if r.status != http.StatusBadRequest || r.apiError(t).Issues[tc.field] == nil {
			t.Errorf("?%s If-None-Match %q: %d %s", tc.query, tc.inm, r.status, r.body)
		}
	}
	if empty, r := e.policySet(o.serverKey, "43", ""); len(empty.AccessPoints) != 0 || r.status != 200 {
		t.Errorf("a universe of no location: %s", r.body)
	}
}

// policySet GETs a universe's policy set, with If-None-Match when inm is
// set, and expects 200 or 304.
func (e *env) policySet(key, universeID, inm string) (gatehouse.PolicySet, response) {
	e.t.Helper()
	var header []string
	if inm != "" {
		header = []string{"If-None-Match", inm}
	}
	r := e.do(http.MethodGet, "/api/consumer/v1/policies?universeId="+universeID, key, nil, header...)
	var set gatehouse.PolicySet
	switch r.status {
	case http.StatusOK:
		r.decode(e.t, &set)
	case http.StatusNotModified:
	default:
		e.t.Fatalf("GET /policies?universeId=%s: %d %s", universeID, r.status, r.body)
	}
	return set, r
}
