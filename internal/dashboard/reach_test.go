package dashboard_test

import (
	"context"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/gatehouse/gatehouse"
)

// TestARoleLimitedToALocation: an admin limits an admin's role to HQ on
// the Users page. The limited admin's pages (the Event Log, its export
// and chart, locations, commands, grants, lockdowns, insights) show HQ
// alone, Annex's records are not found, the nav offers nothing that
// concerns the whole organization, and a key they make is limited to HQ
// with the scopes such a key may hold.
func TestARoleLimitedToALocation(t *testing.T) {
	s := newSite(t)
	acme := s.tenant("Acme")
	ctx := context.Background()
	annex, err := s.store.CreateLocation(ctx, gatehouse.SystemEntry(gatehouse.AuditLocationCreated), acme.org.ID, "Annex")
	if err != nil {
		t.Fatal(err)
	}
	door, err := s.store.CreateAccessPoint(ctx, gatehouse.SystemEntry(gatehouse.AuditAccessPointCreated), acme.org.ID, annex.ID, "Annex gate")
	if err != nil {
		t.Fatal(err)
	}
	denied := gatehouse.Denied
	theirs := gatehouse.NewEvent{ID: gatehouse.NewID(), Type: gatehouse.EventAccessDenied, Allowed: &denied, Reason: ptr("OUTSIDE_SCHEDULE"),
		OccurredAt: s.now.Add(-30 * 60 * 1e9), AccessPointID: door.ID, PlatformUserID: ptr("333")}
	if _, err := s.store.IngestEvents(ctx, acme.org.ID, []gatehouse.NewEvent{theirs}); err != nil {
		t.Fatal(err)
	}

	admin := s.signedIn(acme)
	limited := s.member(acme, "hq@example.test", gatehouse.RoleAdmin)
	users := admin.do("GET", "/dashboard/users", nil)
	if !strings.Contains(users.body, `name="locations" value="`+annex.ID.String()+`"`) {
		t.Fatalf("the Users page offers no location to limit a role to")
	}
	if r := admin.do("POST", "/dashboard/users/role", url.Values{"csrf": {csrfOf(t, users.body)}, "email": {"hq@example.test"},
		"role": {"admin"}, "locations": {acme.loc.ID.String()}}); r.status != http.StatusSeeOther {
		t.Fatalf("limiting the role: %d %.300s", r.status, r.body)
	}
	if r := admin.do("GET", "/dashboard/users", nil); !strings.Contains(r.body, "<summary>Acme HQ<") {
		t.Error("the Users page does not name the limited role's location")
	}
	limited.signIn("hq@example.test", testPassword) // narrowing signed them out
	checkDeletedLocationKept(t, s, acme, admin)

	for _, path := range []string{"/dashboard/events", "/dashboard/events?locationId=" + annex.ID.String(), "/dashboard/events/export.ndjson",
		"/dashboard/locations", "/dashboard/commands", "/dashboard/grants", "/dashboard/lockdowns", "/dashboard/insights?groupBy=locationId",
		"/dashboard/keys", "/dashboard/account"} {
		r := limited.do("GET", path, nil)
		if r.status != http.StatusOK {
			t.Errorf("GET %s: %d %.300s", path, r.status, r.body)
		}
		for _, leak := range []string{theirs.ID.String(), "Annex", "333"} {
			if strings.Contains(r.body, leak) {
				t.Errorf("GET %s shows %s", path, leak)
			}
		}
	}
	if r := limited.do("GET", "/dashboard/lockdowns", nil); strings.Contains(r.body, "scope=ORGANIZATION") || strings.Contains(r.body, "scope=UNIVERSE") ||
		!strings.Contains(r.body, "scope=LOCATION&amp;locationId="+acme.loc.ID.String()) {
		t.Error("the limited admin's Lockdowns page offers more than their location's lockdown")
	}
	log := limited.do("GET", "/dashboard/events", nil).body
	if !strings.Contains(log, acme.denied.ID.String()) {
		t.Error("the limited admin's Event Log lacks HQ's event")
	}
	for _, nav := range []string{"/dashboard/users", "/dashboard/audit", "/dashboard/webhooks", "/dashboard/privacy", "/dashboard/messaging", "/dashboard/alerts"} {
		if strings.Contains(log, `href="`+nav+`"`) {
			t.Errorf("the limited admin's nav offers %s", nav)
		}
		if r := limited.do("GET", nav, nil, "Accept", "text/html"); r.status != http.StatusForbidden {
			t.Errorf("GET %s: %d, want 403", nav, r.status)
		}
	}
	for _, path := range []string{"/dashboard/events/" + theirs.ID.String(), "/dashboard/locations/" + annex.ID.String() + "/live",
		"/dashboard/access-points/" + door.ID.String() + "/policy"} {
		if r := limited.do("GET", path, nil, "Accept", "text/html"); r.status != http.StatusNotFound {
			t.Errorf("GET %s: %d, want 404", path, r.status)
		}
	}

	keys := limited.do("GET", "/dashboard/keys", nil)
	if strings.Contains(keys.body, `value="server"`) || !strings.Contains(keys.body, `value="commands:write"`) {
		t.Error("the limited admin's key form offers the wrong scopes")
	}
	if r := limited.do("POST", "/dashboard/keys", url.Values{"csrf": {csrfOf(t, keys.body)}, "name": {"hq-bot"}, "scope": {"events:read"}, "expires": {"30"}}); r.status != http.StatusSeeOther {
		t.Fatalf("creating a key: %d %.300s", r.status, r.body)
	}
	all, err := s.store.ListAPIKeys(ctx, acme.org.ID)
	if err != nil || len(all) != 1 || !slices.Equal(all[0].Reach, gatehouse.Reach{acme.loc.ID}) {
		t.Fatalf("the limited admin's key: %+v %v, want one limited to HQ", all, err)
	}
	if r := limited.do("POST", "/dashboard/keys", url.Values{"csrf": {csrfOf(t, keys.body)}, "name": {"annex-bot"}, "scope": {"events:read"},
		"expires": {"30"}, "locations": {annex.ID.String()}}); r.status != http.StatusBadRequest || !strings.Contains(r.body, "is not a location of your organization") {
		t.Errorf("a key of Annex: %d %.300s", r.status, r.body)
	}
}

// checkDeletedLocationKept: a user whose only location was deleted sees
// nothing, and the Users page's form, sent again as it stands (a
// demotion, say), keeps it so: the choice of all locations is explicit,
// and the deleted id rides along hidden.
func checkDeletedLocationKept(t *testing.T, s *site, acme tenant, admin *browser) {
	t.Helper()
	ctx := context.Background()
	popup, err := s.store.CreateLocation(ctx, gatehouse.SystemEntry(gatehouse.AuditLocationCreated), acme.org.ID, "Pop-up")
	if err != nil {
		t.Fatal(err)
	}
	s.member(acme, "popup@example.test", gatehouse.RoleOperator)
	csrf := csrfOf(t, admin.do("GET", "/dashboard/users", nil).body)
	if r := admin.do("POST", "/dashboard/users/role", url.Values{"csrf": {csrf}, "email": {"popup@example.test"}, "role": {"operator"},
		"reach": {"limited"}, "locations": {popup.ID.String()}}); r.status != http.StatusSeeOther {
		t.Fatalf("limiting to Pop-up: %d", r.status)
	}
	if err := s.store.DeleteLocation(ctx, gatehouse.SystemEntry(gatehouse.AuditLocationDeleted), acme.org.ID, popup.ID); err != nil {
		t.Fatal(err)
	}
	page := admin.do("GET", "/dashboard/users", nil).body
	if !strings.Contains(page, "No location left") || !strings.Contains(page, `type="hidden" name="locations" value="`+popup.ID.String()+`"`) {
		t.Fatal("the Users page does not carry the deleted location of a user")
	}
	if r := admin.do("POST", "/dashboard/users/role", url.Values{"csrf": {csrf}, "email": {"popup@example.test"}, "role": {"viewer"},
		"reach": {"limited"}, "locations": {popup.ID.String()}}); r.status != http.StatusSeeOther {
		t.Fatalf("demoting: %d", r.status)
	}
	if r := admin.do("POST", "/dashboard/users/role", url.Values{"csrf": {csrf}, "email": {"popup@example.test"}, "role": {"viewer"},
		"reach": {"limited"}}); r.status != http.StatusBadRequest {
		t.Errorf("limited to nothing ticked: %d, want 400", r.status)
	}
	users, err := s.store.FindUsersByEmail(ctx, "popup@example.test")
	if err != nil || len(users) != 1 || !slices.Equal(users[0].Reach, gatehouse.Reach{popup.ID}) {
		t.Errorf("the demoted user's reach: %+v %v, want the deleted location alone", users, err)
	}
}
