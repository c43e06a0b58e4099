package dashboard_test

import (
	"context"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/gatehouse/gatehouse"
)

// TestLockdownFromTheDashboard: an operator presses a location's Lock
// down button, confirms with a reason (a missing reason comes back next
// to its field), sees the banner on every page, and the test form of the
// door's policy answers LOCKDOWN; a viewer sees the banner, no button, and
// a forged start or release is refused; the operator releases it from the
// banner, after a confirmation, and the door decides by its policy again.
func TestLockdownFromTheDashboard(t *testing.T) {
	s := newSite(t)
	acme := s.tenant("Acme")
	ctx := context.Background()
	if _, err := s.store.PutPolicy(ctx, gatehouse.SystemEntry(gatehouse.AuditPolicyChanged), acme.org.ID, acme.ap.ID,
		gatehouse.Policy{Mode: gatehouse.ModeOpen}, nil, s.now); err != nil {
		t.Fatal(err)
	}
	op := s.member(acme, "operator@example.test", gatehouse.RoleOperator)
	viewer := s.member(acme, "viewer@example.test", gatehouse.RoleViewer)
	testPath := "/dashboard/access-points/" + acme.ap.ID.String() + "/policy/test?platformUserId=156"

	locs := op.do("GET", "/dashboard/locations", nil)
	button := "/dashboard/lockdowns/new?scope=LOCATION&amp;locationId=" + acme.loc.ID.String()
	if !strings.Contains(locs.body, button) {
		t.Fatalf("the locations page has no Lock down button for the operator")
	}
	confirm := op.do("GET", strings.ReplaceAll(button, "&amp;", "&"), nil)
	if confirm.status != http.StatusOK || !strings.Contains(confirm.body, "Lock down every access point of Acme HQ?") {
		t.Fatalf("confirmation: %d %.300s", confirm.status, confirm.body)
	}
	form := url.Values{"csrf": {csrfOf(t, confirm.body)}, "scope": {"LOCATION"}, "locationId": {acme.loc.ID.String()}, "reason": {""}}
	if r := op.do("POST", "/dashboard/lockdowns", form); r.status != http.StatusBadRequest || !strings.Contains(r.body, "field-error") {
		t.Errorf("no reason: %d", r.status)
	}
	form.Set("reason", "Intruder in the lobby")
	form.Set("for", "1h")
	if r := op.do("POST", "/dashboard/lockdowns", form); r.status != http.StatusSeeOther {
		t.Fatalf("lock down: %d %.300s", r.status, r.body)
	}
	events := op.do("GET", "/dashboard/events", nil)
	if !strings.Contains(events.body, `class="lockdown-banner"`) || !strings.Contains(events.body, "Intruder in the lobby") {
		t.Errorf("no banner on the Event Log")
	}
	if d := op.do("GET", testPath, nil); !strings.Contains(d.body, "LOCKDOWN") || !strings.Contains(d.body, "A lockdown covers this access point") {
		t.Errorf("the test form under the lockdown: %.500s", d.body)
	}

	seen := viewer.do("GET", "/dashboard/lockdowns", nil)
	if !strings.Contains(seen.body, `class="lockdown-banner"`) || strings.Contains(seen.body, "Release…") || strings.Contains(seen.body, "/dashboard/lockdowns/new") {
		t.Errorf("the viewer's lockdown page: banner, but no buttons expected")
	}
	release := regexp.MustCompile(`/dashboard/lockdowns/([0-9a-f-]{36})/release`).FindStringSubmatch(events.body)
	if release == nil {
		t.Fatal("the banner has no Release")
	}
	vcsrf := csrfOf(t, seen.body)
	for path, f := range map[string]url.Values{
		"/dashboard/lockdowns": {"scope": {"ORGANIZATION"}, "reason": {"forged"}},
		release[0]:             {},
	} {
		f.Set("csrf", vcsrf)
		if r := viewer.do("POST", path, f, "Accept", "text/html"); r.status != http.StatusForbidden {
			t.Errorf("the viewer's POST %s: %d", path, r.status)
		}
	}

	ask := op.do("GET", release[0], nil)
	if ask.status != http.StatusOK || !strings.Contains(ask.body, "Release the lockdown of Acme HQ?") {
		t.Fatalf("release confirmation: %d", ask.status)
	}
	if r := op.do("POST", release[0], url.Values{"csrf": {csrfOf(t, ask.body)}}); r.status != http.StatusSeeOther {
		t.Fatalf("release: %d", r.status)
	}
	if after := op.do("GET", "/dashboard/events", nil); strings.Contains(after.body, `class="lockdown-banner"`) {
		t.Error("the banner stays after the release")
	}
	if d := op.do("GET", testPath, nil); strings.Contains(d.body, "A lockdown covers") || !strings.Contains(d.body, "OPEN") {
		t.Errorf("the test form after the release: %.500s", d.body)
	}
}
