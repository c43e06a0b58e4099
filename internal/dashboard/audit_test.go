package dashboard_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/gatehouse/gatehouse"
)

// TestAuditLogPage: an admin's nav links the Audit log; it shows the
// admin's own sign-in and changes, with who made them, filters and pages
// like the Event Log, and holds nothing of another organization.
func TestAuditLogPage(t *testing.T) {
	s := newSite(t)
	acme, beta := s.tenant("Acme"), s.tenant("Beta")
	admin := s.signedIn(acme)
	s.signedIn(beta)
	events := admin.do("GET", "/dashboard/events", nil)
	if !strings.Contains(events.body, `href="/dashboard/audit"`) {
		t.Errorf("the admin's nav lacks the Audit log")
	}
	created := admin.do("POST", "/dashboard/locations", url.Values{"csrf": {csrfOf(t, events.body)}, "name": {"Annex"}})
	if created.status >= 400 {
		t.Fatalf("create a location: %d", created.status)
	}

	page := admin.do("GET", "/dashboard/audit?action=location.created", nil)
	if page.status != http.StatusOK || !strings.Contains(page.body, "Annex") || !strings.Contains(page.body, acme.email) ||
		strings.Contains(page.body, "<td>user.signed_in</td>") {
		t.Errorf("filtered by action: %d %s", page.status, page.body)
	}
	all := admin.do("GET", "/dashboard/audit", nil)
	for _, want := range []string{"user.signed_in", "location.created", "organization.created", acme.email} {
		if !strings.Contains(all.body, want) {
			t.Errorf("the log lacks %s", want)
		}
	}
	if strings.Contains(all.body, beta.email) || strings.Contains(all.body, "Beta HQ") {
		t.Errorf("Acme's log shows Beta's entries")
	}
	bad := admin.do("GET", "/dashboard/audit?actorId=nobody", nil)
	if bad.status != http.StatusBadRequest || !strings.Contains(bad.body, "actorId") {
		t.Errorf("a malformed filter: %d", bad.status)
	}

	// One entry a page: Older leads on, Newer comes back.
	first := admin.do("GET", "/dashboard/audit?limit=1", nil)
	older := pagerLink(t, first.body, "next")
	second := admin.do("GET", older, nil)
	if second.status != http.StatusOK || !strings.Contains(second.body, `rel="prev"`) {
		t.Fatalf("the older page: %d", second.status)
	}
	back := admin.do("GET", pagerLink(t, second.body, "prev"), nil)
	if back.status != http.StatusOK || strings.Contains(back.body, `rel="prev"`) {
		t.Errorf("Newer from the second page does not lead to the first")
	}
}

// pagerLink returns the href of the pager's link with rel.
func pagerLink(t *testing.T, body, rel string) string {
	t.Helper()
	i := strings.Index(body, `rel="`+rel+`"`)
	if i < 0 {
		t.Fatalf("no %s link", rel)
	}
	start := strings.LastIndex(body[:i], `href="`) + len(`href="`)
	end := strings.Index(body[start:], `"`)
	return strings.ReplaceAll(body[start:start+end], "&amp;", "&")
}

// TestAuditLogIsForAdmins: a viewer and an operator have no link to the
// Audit log, and the service refuses them the page.
func TestAuditLogIsForAdmins(t *testing.T) {
	s := newSite(t)
	acme := s.tenant("Acme")
	for _, role := range []gatehouse.Role{gatehouse.RoleViewer, gatehouse.RoleOperator} {
		b := s.member(acme, string(role)+"@example.test", role)
		if log := b.do("GET", "/dashboard/events", nil); strings.Contains(log.body, `href="/dashboard/audit"`) {
			t.Errorf("%s: the nav offers the Audit log", role)
		}
		for _, path := range []string{"/dashboard/audit", "/dashboard/audit?actorId=bad"} {
			if r := b.do("GET", path, nil, "Accept", "text/html"); r.status != http.StatusForbidden {
				t.Errorf("%s: GET %s answers %d", role, path, r.status)
			}
		}
	}
}

// TestAuditLogTimesFollowTheChosenZone: the Audit log says its times in
// the zone the user chose, as the Event Log does.
func TestAuditLogTimesFollowTheChosenZone(t *testing.T) {
	s := newSite(t)
	admin := s.signedIn(s.tenant("Acme"))
	page := admin.do("GET", "/dashboard/events", nil)
	if r := admin.do("POST", "/dashboard/zone", url.Values{"csrf": {csrfOf(t, page.body)}, "zone": {"Asia/Tokyo"},
		"next": {"/dashboard/audit"}}); r.status != http.StatusSeeOther {
		t.Fatalf("choosing a zone: %d", r.status)
	}
	audit := admin.do("GET", "/dashboard/audit", nil)
	if !strings.Contains(audit.body, "Time (Asia/Tokyo)") || !strings.Contains(audit.body, " JST</time>") {
		t.Errorf("the Audit log's times are not in the chosen zone: %.2000s", audit.body)
	}
}
