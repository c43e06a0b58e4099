package dashboard_test

import (
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/gatehouse/gatehouse"
)

var revokeLink = regexp.MustCompile(`href="/dashboard/grants/([0-9a-f-]{36})/revoke"`)

// TestGrantsPage: an admin grants a pass from the Grants page (a bad
// duration is shown back, nothing granted), finds it by player and by
// access point, and revokes it after a confirmation; a viewer reads the
// page but is offered no form, and the service refuses their forged
// posts. The nav, the locations and an event link to grants.
func TestGrantsPage(t *testing.T) {
	s := newSite(t)
	acme := s.tenant("Acme")
	admin := s.signedIn(acme)
	page := admin.do("GET", "/dashboard/grants", nil)
	if page.status != http.StatusOK || !strings.Contains(page.body, "Grant a pass") || !strings.Contains(page.body, `href="/dashboard/grants">Grants</a>`) {
		t.Fatalf("the Grants page answers %d: %.400s", page.status, page.body)
	}
	csrf := csrfOf(t, page.body)
	bad := admin.do("POST", "/dashboard/grants", url.Values{"csrf": {csrf}, "platformUserId": {"156"}, "target": {"ap:" + acme.ap.ID.String()}, "for": {"400d"}})
	if bad.status != http.StatusBadRequest || !strings.Contains(bad.body, "Nothing was granted") || !strings.Contains(bad.body, "366 days") {
		t.Errorf("a grant of 400 days: %d %.600s", bad.status, bad.body)
	}
	made := admin.do("POST", "/dashboard/grants", url.Values{"csrf": {csrf}, "platformUserId": {"156"}, "target": {"ap:" + acme.ap.ID.String()},
		"for": {"24h"}, "note": {"VIP night"}})
	if made.status != http.StatusSeeOther || !strings.Contains(made.header.Get("Location"), "saved=granted") {
		t.Fatalf("granting answers %d %s: %.600s", made.status, made.header.Get("Location"), made.body)
	}
	admin.do("POST", "/dashboard/grants", url.Values{"csrf": {csrf}, "platformUserId": {"157"}, "target": {"loc:" + acme.loc.ID.String()}, "for": {"2h"}})
	// The test form of the door's policy sees the grant (the door has no
	// policy: a grant passes even the fail mode).
	if r := admin.do("GET", "/dashboard/access-points/"+acme.ap.ID.String()+"/policy/test?platformUserId=156", nil); !strings.Contains(r.body, `<strong class="reason">GRANT</strong>`) ||
		!strings.Contains(r.body, "A grant of this player") {
		t.Errorf("testing a decision for the granted player: %d %.600s", r.status, r.body)
	}
	list := admin.do("GET", "/dashboard/grants?platformUserId=156&saved=granted", nil)
	if !strings.Contains(list.body, "Granted.") || !strings.Contains(list.body, "VIP night") || !strings.Contains(list.body, "running") || strings.Contains(list.body, ">157<") {
		t.Errorf("the player's grants: %.2000s", list.body)
	}
	byDoor := admin.do("GET", "/dashboard/grants?accessPointId="+acme.ap.ID.String(), nil)
	if !strings.Contains(byDoor.body, ">156<") || !strings.Contains(byDoor.body, ">157<") || !strings.Contains(byDoor.body, "every access point of Acme HQ") {
		t.Errorf("the door's grants (listed, and of its location): %.2000s", byDoor.body)
	}
	m := revokeLink.FindStringSubmatch(list.body)
	if m == nil {
		t.Fatalf("no Revoke link in %.2000s", list.body)
	}
	confirm := admin.do("GET", "/dashboard/grants/"+m[1]+"/revoke", nil)
	if confirm.status != http.StatusOK || !strings.Contains(confirm.body, "Revoke player 156") {
		t.Fatalf("the confirmation answers %d: %.600s", confirm.status, confirm.body)
	}
	revoked := admin.do("POST", "/dashboard/grants/"+m[1]+"/revoke", url.Values{"csrf": {csrf}})
	if revoked.status != http.StatusSeeOther {
		t.Fatalf("revoking answers %d", revoked.status)
	}
	if after := admin.do("GET", "/dashboard/grants?platformUserId=156", nil); !strings.Contains(after.body, "revoked") || revokeLink.MatchString(after.body) {
		t.Errorf("after the revocation: %.2000s", after.body)
	}
	for path, want := range map[string]string{
		"/dashboard/locations":                         "/dashboard/grants?accessPointId=" + acme.ap.ID.String(),
		"/dashboard/events/" + acme.denied.ID.String(): "/dashboard/grants?platformUserId=111",
	} {
		if r := admin.do("GET", path, nil); !strings.Contains(r.body, want) {
			t.Errorf("%s does not link to %s", path, want)
		}
	}

	viewer := s.member(acme, "viewer@example.test", gatehouse.RoleViewer)
	vp := viewer.do("GET", "/dashboard/grants", nil)
	if vp.status != http.StatusOK || strings.Contains(vp.body, "Grant a pass") || !strings.Contains(vp.body, ">157<") || revokeLink.MatchString(vp.body) {
		t.Errorf("the viewer's Grants page: %d %.1000s", vp.status, vp.body)
	}
	vcsrf := csrfOf(t, vp.body)
	if r := viewer.do("POST", "/dashboard/grants", url.Values{"csrf": {vcsrf}, "platformUserId": {"158"}, "target": {"ap:" + acme.ap.ID.String()}, "for": {"1h"}}); r.status != http.StatusForbidden {
		t.Errorf("a viewer's forged grant: %d", r.status)
	}
	if r := viewer.do("GET", "/dashboard/grants/"+m[1]+"/revoke", nil, "Accept", "text/html"); r.status != http.StatusForbidden {
		t.Errorf("a viewer's revoke confirmation: %d", r.status)
	}
}
