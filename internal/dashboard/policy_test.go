package dashboard_test

import (
	"context"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/gatehouse/gatehouse"
)

// staffPolicyForm is the editor as an admin fills it in: office hours on
// weekdays, a night from Friday and Saturday to 04:00, Christmas closed,
// New Year's Eve at special hours, a group of rank 5 and a gamepass
// allowed, one player denied until a date.
func staffPolicyForm(csrf, ifVersion string) url.Values {
	return url.Values{"csrf": {csrf}, "ifVersion": {ifVersion}, "mode": {"RULES"}, "failMode": {"CLOSED"},
		"schedule.timeZone":            {"Europe/Berlin"},
		"schedule.windows[0].days":     {"MON", "TUE", "WED", "THU", "FRI"},
		"schedule.windows[0].from":     {"09:00"},
		"schedule.windows[0].to":       {"17:00"},
		"schedule.windows[1].days":     {"FRI", "SAT"},
		"schedule.windows[1].from":     {"22:00"},
		"schedule.windows[1].to":       {"04:00"},
		"schedule.windows[2].from":     {""}, // a blank row: dropped
		"schedule.windows[2].to":       {""},
		"schedule.exceptions[0].date":  {"2026-12-25"},
		"schedule.exceptions[0].kind":  {"closed"},
		"schedule.exceptions[0].hours": {""},
		"schedule.exceptions[1].date":  {"2026-12-31"},
		"schedule.exceptions[1].kind":  {"hours"},
		"schedule.exceptions[1].hours": {"10:00-14:00, 18:00-22:00"},
		"allow[0].type":                {"groupId"},
		"allow[0].id":                  {"4100"},
		"allow[0].minRank":             {"5"},
		"allow[1].type":                {"gamepassId"},
		"allow[1].id":                  {"777"},
		"allow[1].minRank":             {""},
		"allow[2].type":                {"platformUserId"}, // blank
		"allow[2].id":                  {""},
		"deny[0].platformUserId":       {"666"},
		"deny[0].until":                {"2026-12-01T18:00"},
		"deny[1].platformUserId":       {""},
		"deny[1].until":                {""},
		"schedule.exceptions[2].date":  {""},
		"schedule.exceptions[2].kind":  {"closed"},
		"schedule.exceptions[2].hours": {""},
		"schedule.windows[3].from":     {"08:00"}, // removed
		"schedule.windows[3].to":       {"09:00"},
		"schedule.windows[3].days":     {"SUN"},
		"schedule.windows[3].remove":   {"1"},
	}
}

func policyPath(ap gatehouse.AccessPoint) string {
	return "/dashboard/access-points/" + ap.ID.String() + "/policy"
}

// TestPolicyEditorSavesAVersion: an access point has no policy at first
// and the page says decisions deny; the admin's structured form saves
// version 1 with exactly what was filled in (blank and removed rows
// dropped, the deny's until read in the viewer's zone); the page then
// shows it, with the visual week carrying the night windows past
// midnight; saving it again unchanged makes no new version.
func TestPolicyEditorSavesAVersion(t *testing.T) {
	s := newSite(t)
	acme := s.tenant("Acme")
	ctx := context.Background()
	b := s.signedIn(acme)
	if locs := b.do("GET", "/dashboard/locations", nil); !strings.Contains(locs.body, `href="`+policyPath(acme.ap)+`">Policy<`) {
		t.Error("the Locations page does not link the access point's policy")
	}
	page := b.do("GET", policyPath(acme.ap), nil)
	if page.status != http.StatusOK || !strings.Contains(page.body, "No policy: decisions for this access point deny") ||
		!strings.Contains(page.body, `name="ifVersion" value="0"`) {
		t.Fatalf("the page of an access point without a policy: %d %.400s", page.status, page.body)
	}
	csrf := csrfOf(t, page.body)
	r := b.do("POST", policyPath(acme.ap), staffPolicyForm(csrf, "0"))
	if r.status != http.StatusSeeOther || r.header.Get("Location") != policyPath(acme.ap)+"?saved=1" {
		t.Fatalf("save: %d %s %.600s", r.status, r.header.Get("Location"), r.body)
	}
	got, err := s.store.FindPolicy(ctx, acme.org.ID, acme.ap.ID)
	if err != nil || got == nil {
		t.Fatalf("the stored policy: %v %v", got, err)
	}
	until := gatehouse.Time(time.Date(2026, 12, 1, 18, 0, 0, 0, time.UTC)) // the viewer's zone is UTC
	rank := 5
	want := gatehouse.Policy{Mode: gatehouse.ModeRules, FailMode: gatehouse.FailClosed,
		Schedule: &gatehouse.Schedule{TimeZone: "Europe/Berlin",
			Windows: []gatehouse.Window{{Days: []string{"MON", "TUE", "WED", "THU", "FRI"}, From: "09:00", To: "17:00"},
				{Days: []string{"FRI", "SAT"}, From: "22:00", To: "04:00"}},
			Exceptions: []gatehouse.Exception{{Date: "2026-12-25", Closed: true},
				{Date: "2026-12-31", Windows: []gatehouse.TimeRange{{From: "10:00", To: "14:00"}, {From: "18:00", To: "22:00"}}}}},
		Allow: []gatehouse.AllowRule{{GroupID: "4100", MinRank: &rank}, {GamepassID: "777"}},
		Deny:  []gatehouse.DenyRule{{PlatformUserID: "666", Until: &until}}}
	if g, w := string(gatehouse.PolicyBody(*got)), string(gatehouse.PolicyBody(want)); g != w || got.Version != 1 {
		t.Errorf("stored version %d:\n%s\nwant:\n%s", got.Version, g, w)
	}

	shown := b.do("GET", policyPath(acme.ap)+"?saved=1", nil)
	for _, want := range []string{"Saved as version 1.", `class="policy-version">1<`, "members of group 4100 of rank 5 or more", "owners of gamepass 777",
		"2026-12-25: closed", "2026-12-31: 10:00–14:00, 18:00–22:00", `name="ifVersion" value="1"`, `value="2026-12-01T18:00"`} {
		if !strings.Contains(shown.body, want) {
			t.Errorf("the page after saving lacks %s", want)
		}
	}
	// The week: five office blocks, two night blocks and their two
	// continuations after midnight (Saturday's and Sunday's mornings).
	if n := strings.Count(shown.body, `class="block"`); n != 7 {
		t.Errorf("the week draws %d blocks, want 7", n)
	}
	if n := strings.Count(shown.body, `class="block next"`); n != 2 || !strings.Contains(shown.body, "Window 2: FRI SAT 22:00–04:00 (from the day before)") {
		t.Errorf("the week draws %d continuations past midnight, want 2", n)
	}

	again := b.do("POST", policyPath(acme.ap), staffPolicyForm(csrf, "1"))
	if again.status != http.StatusSeeOther || again.header.Get("Location") != policyPath(acme.ap)+"?unchanged=1" {
		t.Errorf("saving the same policy: %d %s", again.status, again.header.Get("Location"))
	}
	if p := b.do("GET", policyPath(acme.ap)+"?unchanged=1", nil); !strings.Contains(p.body, "Nothing changed: the policy is still version 1.") {
		t.Error("an unchanged save does not say so")
	}
	if p := b.do("GET", policyPath(acme.ap)+"?saved=1.+Call+555", nil); strings.Contains(p.body, "Call 555") || strings.Contains(p.body, "Saved as") {
		t.Error("a crafted link puts its words on the page")
	}
}

// TestPolicyEditorRefusesAStaleVersion: two admins edit version 1; the
// second to save gets a conflict that says so, nothing of theirs is
// stored, the form keeps what they typed and now edits version 2, so
// that only a deliberate second save replaces it.
func TestPolicyEditorRefusesAStaleVersion(t *testing.T) {
	s := newSite(t)
	acme := s.tenant("Acme")
	ctx := context.Background()
	alice := s.signedIn(acme)
	bob := s.member(acme, "bob@example.test", gatehouse.RoleAdmin)
	csrfA := csrfOf(t, alice.do("GET", policyPath(acme.ap), nil).body)
	csrfB := csrfOf(t, bob.do("GET", policyPath(acme.ap), nil).body)
	if r := alice.do("POST", policyPath(acme.ap), staffPolicyForm(csrfA, "0")); r.status != http.StatusSeeOther {
		t.Fatalf("the first save: %d", r.status)
	}
	locked := url.Values{"csrf": {csrfB}, "ifVersion": {"0"}, "mode": {"LOCKED"}, "failMode": {"CLOSED"}, "schedule.timeZone": {""}}
	r := bob.do("POST", policyPath(acme.ap), locked)
	if r.status != http.StatusConflict || !strings.Contains(r.body, "Not saved: someone else changed this policy while you edited no policy; it is now version 1") {
		t.Fatalf("a save over a change made meanwhile: %d %.600s", r.status, r.body)
	}
	if !regexp.MustCompile(`name="mode" value="LOCKED" checked`).MatchString(r.body) || !strings.Contains(r.body, `name="ifVersion" value="1"`) {
		t.Error("the conflict's form does not keep LOCKED, or does not edit version 1")
	}
	if p, _ := s.store.FindPolicy(ctx, acme.org.ID, acme.ap.ID); p == nil || p.Version != 1 || p.Mode != gatehouse.ModeRules {
		t.Fatalf("the conflict changed the policy: %+v", p)
	}
	locked.Set("ifVersion", "1")
	if r := bob.do("POST", policyPath(acme.ap), locked); r.status != http.StatusSeeOther || r.header.Get("Location") != policyPath(acme.ap)+"?saved=2" {
		t.Fatalf("the deliberate second save: %d %.300s", r.status, r.body)
	}
	if p, _ := s.store.FindPolicy(ctx, acme.org.ID, acme.ap.ID); p == nil || p.Version != 2 || p.Mode != gatehouse.ModeLocked || p.Schedule != nil {
		t.Errorf("after the second save: %+v", p)
	}
}

// TestPolicyEditorShowsProblemsNextToTheirFields: a form with mistakes
// is refused as a whole; each problem, named by the service's path, is
// shown in the row of the input it concerns, and every value comes back
// as typed. More rows are added without saving anything.
func TestPolicyEditorShowsProblemsNextToTheirFields(t *testing.T) {
	s := newSite(t)
	acme := s.tenant("Acme")
	ctx := context.Background()
	b := s.signedIn(acme)
	csrf := csrfOf(t, b.do("GET", policyPath(acme.ap), nil).body)
	form := url.Values{"csrf": {csrf}, "ifVersion": {"0"}, "mode": {"RULES"}, "failMode": {"CLOSED"},
		"schedule.timeZone":        {"Mars/Olympus"},
		"schedule.windows[0].days": {"MON"}, "schedule.windows[0].from": {"09:00"}, "schedule.windows[0].to": {"17:00"},
		"schedule.windows[1].days": {"TUE"}, "schedule.windows[1].from": {"10:00"}, "schedule.windows[1].to": {"10:00"},
		"schedule.windows[2].from": {"25:00"}, "schedule.windows[2].to": {"26:00"},
		"schedule.exceptions[0].date": {"2026-12-31"}, "schedule.exceptions[0].kind": {"hours"}, "schedule.exceptions[0].hours": {"10:00-99:00"},
		"allow[0].type": {"groupId"}, "allow[0].id": {"4100"}, "allow[0].minRank": {"lots"},
		"allow[1].type": {"badgeId"}, "allow[1].id": {"abc"},
		"deny[0].platformUserId": {"x1"}, "deny[0].until": {"soon"},
	}
	r := b.do("POST", policyPath(acme.ap), form)
	if r.status != http.StatusBadRequest || !strings.Contains(r.body, "The policy was not saved") {
		t.Fatalf("a form with mistakes: %d %.300s", r.status, r.body)
	}
	// Each problem follows its input, before the next row begins.
	for input, path := range map[string]string{
		`name="schedule.timeZone"`:                    "schedule.timeZone",
		`name="schedule.windows[1].to"`:               "schedule.windows[1].to",
		`name="schedule.windows[2].from"`:             "schedule.windows[2].from",
		`name="schedule.windows[2].days" value="MON"`: "schedule.windows[2].days",
		`name="schedule.exceptions[0].hours"`:         "schedule.exceptions[0].windows[0].to",
		`name="allow[0].minRank"`:                     "allow[0].minRank",
		`name="allow[1].id"`:                          "allow[1].badgeId",
		`name="deny[0].platformUserId"`:               "deny[0].platformUserId",
		`name="deny[0].until"`:                        "deny[0].until",
		`name="schedule.windows[1].days" value="TUE"`: "", // no problem of its own
	} {
		at := strings.Index(r.body, input)
		if at < 0 {
			t.Errorf("the form lacks %s", input)
			continue
		}
		row := r.body[at:]
		if end := strings.Index(row, "</tr>"); end >= 0 {
			row = row[:end]
		}
		if path != "" && !strings.Contains(row, `<span class="mono">`+path+`</span>`) {
			t.Errorf("no problem %s next to %s", path, input)
		}
	}
	for _, typed := range []string{`value="Mars/Olympus"`, `value="25:00"`, `value="10:00-99:00"`, `value="lots"`, `value="abc"`, `value="x1"`, `value="soon"`} {
		if !strings.Contains(r.body, typed) {
			t.Errorf("the form does not keep %s", typed)
		}
	}
	if !strings.Contains(r.body, `aria-invalid="true"`) {
		t.Error("no input is marked invalid")
	}

	form.Set("add", "allow")
	more := b.do("POST", policyPath(acme.ap), form)
	if more.status != http.StatusOK || !strings.Contains(more.body, `name="allow[6].id"`) || strings.Contains(more.body, `name="allow[7].id"`) ||
		!strings.Contains(more.body, `value="lots"`) {
		t.Errorf("More allow rows: %d, rows allow[6] %v", more.status, strings.Contains(more.body, `name="allow[6].id"`))
	}
	if p, err := s.store.FindPolicy(ctx, acme.org.ID, acme.ap.ID); p != nil || err != nil {
		t.Errorf("a refused form stored a policy: %+v %v", p, err)
	}
}

// TestPolicyPageRoles: a viewer sees the policy and neither the editor
// nor the test; an operator sees the policy and tests decisions, and has
// no editor; their forged saves and the viewer's test are refused by the
// service and change nothing. Another organization's access point is
// not found, for every role and every route.
func TestPolicyPageRoles(t *testing.T) {
	s := newSite(t)
	acme, rival := s.tenant("Acme"), s.tenant("Rival")
	ctx := context.Background()
	admin := s.signedIn(acme)
	csrf := csrfOf(t, admin.do("GET", policyPath(acme.ap), nil).body)
	if r := admin.do("POST", policyPath(acme.ap), staffPolicyForm(csrf, "0")); r.status != http.StatusSeeOther {
		t.Fatalf("save: %d", r.status)
	}
	adminPage := admin.do("GET", policyPath(acme.ap), nil).body
	if !strings.Contains(adminPage, `method="post" action="`+policyPath(acme.ap)+`"`) || !strings.Contains(adminPage, `action="`+policyPath(acme.ap)+`/test#test"`) {
		t.Error("the admin has no editor or no test form")
	}
	test := "/test?platformUserId=42&gamepasses=777&at=2026-11-20T11%3A00"
	for _, c := range []struct {
		role     gatehouse.Role
		testCode int
	}{{gatehouse.RoleViewer, http.StatusForbidden}, {gatehouse.RoleOperator, http.StatusOK}} {
		b := s.member(acme, string(c.role)+"@example.test", c.role)
		page := b.do("GET", policyPath(acme.ap), nil)
		if page.status != http.StatusOK || !strings.Contains(page.body, "owners of gamepass 777") || strings.Contains(page.body, `method="post" action="`+policyPath(acme.ap)+`"`) ||
			strings.Contains(page.body, "Save the policy") {
			t.Errorf("%s: the page %d shows the editor, or not the policy", c.role, page.status)
		}
		if has := strings.Contains(page.body, "Test a decision"); has != (c.testCode == http.StatusOK) {
			t.Errorf("%s: the test form shown: %v", c.role, has)
		}
		r := b.do("GET", policyPath(acme.ap)+test, nil, "Accept", "text/html")
		if r.status != c.testCode || c.testCode == http.StatusOK && !strings.Contains(r.body, `<strong class="reason">ALLOWLIST</strong>`) {
			t.Errorf("%s: a test answers %d", c.role, r.status)
		}
		form := url.Values{"csrf": {csrfOf(t, page.body)}, "ifVersion": {"1"}, "mode": {"OPEN"}, "failMode": {"OPEN"}}
		if r := b.do("POST", policyPath(acme.ap), form); r.status != http.StatusForbidden || !strings.Contains(r.body, `"code":"forbidden"`) {
			t.Errorf("%s: a forged save answers %d %.200s", c.role, r.status, r.body)
		}
		for _, path := range []string{policyPath(rival.ap), policyPath(rival.ap) + test} {
			if r := b.do("GET", path, nil); r.status != http.StatusNotFound && r.status != http.StatusForbidden || strings.Contains(r.body, "Rival door") {
				t.Errorf("%s: GET %s answers %d", c.role, path, r.status)
			}
		}
	}
	for _, path := range []string{policyPath(rival.ap), policyPath(rival.ap) + test, "/dashboard/access-points/not-an-id/policy"} {
		if r := admin.do("GET", path, nil); r.status != http.StatusNotFound || strings.Contains(r.body, "Rival door") {
			t.Errorf("admin: GET %s answers %d", path, r.status)
		}
	}
	if r := admin.do("POST", policyPath(rival.ap), staffPolicyForm(csrf, "0")); r.status != http.StatusNotFound {
		t.Errorf("admin: a save of another organization's policy answers %d", r.status)
	}
	if p, _ := s.store.FindPolicy(ctx, acme.org.ID, acme.ap.ID); p == nil || p.Version != 1 || p.Mode != gatehouse.ModeRules {
		t.Errorf("the forged saves changed the policy: %+v", p)
	}
	if p, _ := s.store.FindPolicy(ctx, rival.org.ID, rival.ap.ID); p != nil {
		t.Errorf("another organization's access point got a policy: %+v", p)
	}
}

// TestPolicyEditorAsJSON: the advanced editor saves the policy as the API
// takes it, refuses text that is no policy or a policy with problems
// (each named by its path) and keeps the text as typed; a deny's instant
// to the second survives a save of the structured form unchanged.
func TestPolicyEditorAsJSON(t *testing.T) {
	s := newSite(t)
	acme := s.tenant("Acme")
	ctx := context.Background()
	b := s.signedIn(acme)
	page := b.do("GET", policyPath(acme.ap), nil)
	if !strings.Contains(page.body, `&#34;mode&#34;: &#34;RULES&#34;`) || !strings.Contains(page.body, "Advanced: edit the policy as JSON") {
		t.Fatalf("the advanced editor is not offered with a policy to start from")
	}
	csrf := csrfOf(t, page.body)
	bad := b.do("POST", policyPath(acme.ap), url.Values{"csrf": {csrf}, "ifVersion": {"0"}, "policyJSON": {`{"mode": "RULES", "colour": "red"}`}})
	if bad.status != http.StatusBadRequest || !strings.Contains(bad.body, "unknown field") || !strings.Contains(bad.body, "colour") ||
		!strings.Contains(bad.body, `<details class="advanced" open>`) || strings.Contains(bad.body, "must be one of RULES") {
		t.Errorf("JSON with an unknown field: %d", bad.status)
	}
	checked := b.do("POST", policyPath(acme.ap), url.Values{"csrf": {csrf}, "ifVersion": {"0"},
		"policyJSON": {`{"mode": "SOMETIMES", "deny": [{"platformUserId": "x"}]}`}})
	for _, want := range []string{`<span class="mono">mode</span> must be one of RULES, OPEN, LOCKED`, `<span class="mono">deny[0].platformUserId</span>`, `SOMETIMES`} {
		if checked.status != http.StatusBadRequest || !strings.Contains(checked.body, want) {
			t.Errorf("JSON with problems: %d, lacks %s", checked.status, want)
		}
	}
	text := `{"mode": "OPEN", "deny": [{"platformUserId": "666", "until": "2026-12-01T18:00:30Z"}]}`
	if r := b.do("POST", policyPath(acme.ap), url.Values{"csrf": {csrf}, "ifVersion": {"0"}, "policyJSON": {text}}); r.status != http.StatusSeeOther ||
		r.header.Get("Location") != policyPath(acme.ap)+"?saved=1" {
		t.Fatalf("JSON save: %d %.300s", r.status, r.body)
	}
	p, err := s.store.FindPolicy(ctx, acme.org.ID, acme.ap.ID)
	if err != nil || p == nil || p.Mode != gatehouse.ModeOpen || len(p.Deny) != 1 || p.FailMode != gatehouse.FailClosed {
		t.Fatalf("the JSON's policy: %+v %v", p, err)
	}
	shown := b.do("GET", policyPath(acme.ap), nil)
	if !strings.Contains(shown.body, `name="deny[0].until" value="2026-12-01T18:00:30"`) {
		t.Fatalf("the deny's instant is not shown to the second")
	}
	same := url.Values{"csrf": {csrf}, "ifVersion": {"1"}, "mode": {"OPEN"}, "failMode": {"CLOSED"}, "schedule.timeZone": {""},
		"deny[0].platformUserId": {"666"}, "deny[0].until": {"2026-12-01T18:00:30"}}
	if r := b.do("POST", policyPath(acme.ap), same); r.header.Get("Location") != policyPath(acme.ap)+"?unchanged=1" {
		t.Errorf("the form saved unchanged: %d %s", r.status, r.header.Get("Location"))
	}
}
