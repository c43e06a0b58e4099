package dashboard_test

import (
	"context"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/gatehouse/gatehouse"
	"github.com/gatehouse/gatehouse/internal/password"
)

// member adds a user of role to the tenant's organization, with the test
// password, and returns a browser signed in as them.
func (s *site) member(tn tenant, email string, role gatehouse.Role) *browser {
	s.t.Helper()
	hash, err := password.Hash(testPassword)
	if err != nil {
		s.t.Fatal(err)
	}
	if _, err := s.store.CreateUser(context.Background(), gatehouse.SystemEntry(gatehouse.AuditUserAdded), gatehouse.User{OrgID: tn.org.ID, Email: email, Name: string(role), Role: role, PasswordHash: hash, Proven: true}, nil); err != nil {
		s.t.Fatal(err)
	}
	return s.signedIn(tenant{email: email})
}

// TestRolesAreEnforcedByTheService: a viewer and an operator see the
// Event Log and the locations, and neither the key nor the user pages;
// their forged posts (a valid session and CSRF token, a form the page
// never showed them) are refused with 403 by the service and change
// nothing. The admin's nav has what theirs lacks.
func TestRolesAreEnforcedByTheService(t *testing.T) {
	s := newSite(t)
	acme := s.tenant("Acme")
	ctx := context.Background()
	admin := s.signedIn(acme)
	if nav := admin.do("GET", "/dashboard/events", nil).body; !strings.Contains(nav, `href="/dashboard/keys"`) || !strings.Contains(nav, `href="/dashboard/users"`) {
		t.Errorf("the admin's nav lacks keys or users")
	}
	for _, role := range []gatehouse.Role{gatehouse.RoleViewer, gatehouse.RoleOperator} {
		b := s.member(acme, string(role)+"@example.test", role)
		log := b.do("GET", "/dashboard/events", nil)
		if log.status != http.StatusOK || !strings.Contains(log.body, acme.denied.ID.String()) {
			t.Fatalf("%s: the Event Log answers %d", role, log.status)
		}
		if strings.Contains(log.body, `href="/dashboard/keys"`) || strings.Contains(log.body, `href="/dashboard/users"`) {
			t.Errorf("%s: the nav offers keys or users", role)
		}
		locs := b.do("GET", "/dashboard/locations", nil)
		if locs.status != http.StatusOK || !strings.Contains(locs.body, acme.ap.Name) || strings.Contains(locs.body, "Create location") || strings.Contains(locs.body, "Rename") ||
			strings.Contains(locs.body, `action="/dashboard/access-points/`) {
			t.Errorf("%s: locations %d, or its forms are offered", role, locs.status)
		}
		for _, path := range []string{"/dashboard/keys", "/dashboard/users"} {
			if r := b.do("GET", path, nil, "Accept", "text/html"); r.status != http.StatusForbidden || !strings.Contains(r.body, "Your role does not allow this") {
				t.Errorf("%s: GET %s answers %d", role, path, r.status)
			}
		}
		csrf := csrfOf(t, log.body)
		for path, form := range map[string]url.Values{
			"/dashboard/keys":      {"name": {"forged"}, "scope": {"events:read"}, "expires": {"30"}},
			"/dashboard/locations": {"name": {"Forged"}},
			"/dashboard/locations/" + acme.loc.ID.String() + "/rename":        {"name": {"Forged"}},
			"/dashboard/locations/" + acme.loc.ID.String() + "/access-points": {"name": {"Forged"}},
			"/dashboard/access-points/" + acme.ap.ID.String() + "/rename":     {"name": {"Forged"}},
			"/dashboard/access-points/" + acme.ap.ID.String() + "/move":       {"locationId": {acme.loc.ID.String()}},
			"/dashboard/users":        {"email": {"forged@example.test"}, "role": {"admin"}},
			"/dashboard/users/role":   {"email": {acme.email}, "role": {"viewer"}},
			"/dashboard/users/remove": {"email": {acme.email}},
		} {
			form.Set("csrf", csrf)
			r := b.do("POST", path, form)
			if r.status != http.StatusForbidden || !strings.Contains(r.body, `"code":"forbidden"`) {
				t.Errorf("%s: forged POST %s answers %d %.200s, want 403 forbidden", role, path, r.status, r.body)
			}
		}
	}
	keys, _ := s.store.ListAPIKeys(ctx, acme.org.ID)
	locs, _, _ := s.store.ListLocations(ctx, acme.org.ID, 10, nil, false, nil)
	users, _ := s.store.ListUsers(ctx, acme.org.ID)
	if len(keys) != 0 || len(locs) != 1 || locs[0].Name != acme.loc.Name || len(locs[0].AccessPoints) != 1 || locs[0].AccessPoints[0].Name != acme.ap.Name || len(users) != 3 || users[0].Role != gatehouse.RoleAdmin {
		t.Errorf("the forged posts changed something: %d keys, locations %+v, users %+v", len(keys), locs, users)
	}
}

// invitationLink finds the link the users page shows once.
var invitationLink = regexp.MustCompile(`id="invitation-link" class="mono" readonly value="([^"]+)"`)

// TestAdminsManageUsers: an admin adds a user (Gatehouse shows their
// invitation link once; through it they choose their password), lowers
// their role, which signs them out, and removes them, which does too;
// the last admin can be neither demoted nor removed.
func TestAdminsManageUsers(t *testing.T) {
	s := newSite(t)
	acme := s.tenant("Acme")
	admin := s.signedIn(acme)
	page := admin.do("GET", "/dashboard/users", nil)
	if page.status != http.StatusOK || !strings.Contains(page.body, acme.email) {
		t.Fatalf("users page: %d", page.status)
	}
	csrf := csrfOf(t, page.body)
	added := admin.do("POST", "/dashboard/users", url.Values{"csrf": {csrf}, "email": {"Door@Example.test"}, "name": {"Dora"}, "role": {"operator"}})
	m := invitationLink.FindStringSubmatch(added.body)
	if added.status != http.StatusCreated || m == nil || !strings.HasPrefix(m[1], s.url+"/dashboard/join/") {
		t.Fatalf("add a user: %d, link shown: %v", added.status, m)
	}
	if again := admin.do("GET", "/dashboard/users", nil); strings.Contains(again.body, m[1]) || !strings.Contains(again.body, "invited until") {
		t.Error("the link shows a second time, or the user is not listed as invited")
	}
	if dup := admin.do("POST", "/dashboard/users", url.Values{"csrf": {csrf}, "email": {"door@example.test"}, "role": {"viewer"}}); dup.status != http.StatusConflict {
		t.Errorf("the same email again: %d", dup.status)
	}
	dora := s.browser()
	if r := dora.signIn("door@example.test", ""); r.status != http.StatusUnauthorized {
		t.Fatalf("an invited user signs in before joining: %d", r.status)
	}
	path := strings.TrimPrefix(m[1], s.url)
	if r := dora.do("GET", path, nil); r.status != http.StatusOK || !strings.Contains(r.body, "Join Acme") || !strings.Contains(r.body, "door@example.test") {
		t.Fatalf("the link's page: %d %.400s", r.status, r.body)
	}
	if r := dora.do("POST", path, url.Values{"password": {"dora's own password"}, "confirm": {"dora's own pasword"}}); r.status != http.StatusBadRequest {
		t.Errorf("a confirmation that differs: %d", r.status)
	}
	if r := dora.do("POST", path, url.Values{"password": {"dora's own password"}, "confirm": {"dora's own password"}}); r.status != http.StatusSeeOther ||
		r.header.Get("Location") != "/dashboard/events" {
		t.Fatalf("joining: %d to %q %.300s", r.status, r.header.Get("Location"), r.body)
	}
	if r := dora.do("GET", "/dashboard/events", nil); r.status != http.StatusOK || !strings.Contains(r.body, "operator") {
		t.Fatalf("the operator's Event Log: %d", r.status)
	}

	if r := admin.do("POST", "/dashboard/users/role", url.Values{"csrf": {csrf}, "email": {"door@example.test"}, "role": {"viewer"}}); r.status != http.StatusSeeOther {
		t.Fatalf("lower the role: %d %.300s", r.status, r.body)
	}
	if r := dora.do("GET", "/dashboard/events", nil); r.status != http.StatusSeeOther || !strings.HasPrefix(r.header.Get("Location"), "/dashboard/login") {
		t.Errorf("after the lowered role, the user's session answers %d, want a redirect to sign in", r.status)
	}
	dora.signIn("door@example.test", "dora's own password")
	if confirm := admin.do("GET", "/dashboard/users/remove?email=door@example.test", nil); confirm.status != http.StatusOK || !strings.Contains(confirm.body, "Remove user") {
		t.Errorf("the removal's confirmation: %d", confirm.status)
	}
	if r := admin.do("POST", "/dashboard/users/remove", url.Values{"csrf": {csrf}, "email": {"door@example.test"}}); r.status != http.StatusSeeOther {
		t.Fatalf("remove: %d", r.status)
	}
	if r := dora.do("GET", "/dashboard/events", nil); r.status != http.StatusSeeOther {
		t.Errorf("after the removal, the user's session answers %d", r.status)
	}

	for path, form := range map[string]url.Values{
		"/dashboard/users/role":   {"csrf": {csrf}, "email": {acme.email}, "role": {"operator"}},
		"/dashboard/users/remove": {"csrf": {csrf}, "email": {acme.email}},
	} {
		r := admin.do("POST", path, form, "Accept", "text/html")
		if r.status != http.StatusConflict || !strings.Contains(r.body, "must keep an admin") {
			t.Errorf("the last admin, %s: %d", path, r.status)
		}
	}
	if r := admin.do("GET", "/dashboard/users", nil); r.status != http.StatusOK {
		t.Errorf("the last admin is still signed in as admin: %d", r.status)
	}
}

// TestAPersonInSeveralOrganizationsPicksOne: one email, a member in each
// of two organizations. When the password matches both, the person picks
// one after signing in, and the session is that user's; when it matches
// one, that user is signed in at once.
func TestAPersonInSeveralOrganizationsPicksOne(t *testing.T) {
	s := newSite(t)
	acme, beta := s.tenant("Acme"), s.tenant("Beta")
	ctx := context.Background()
	hash, err := password.Hash(testPassword)
	if err != nil {
		t.Fatal(err)
	}
	both := "both@example.test"
	for _, tn := range []tenant{acme, beta} {
		if _, err := s.store.CreateUser(ctx, gatehouse.SystemEntry(gatehouse.AuditUserAdded), gatehouse.User{OrgID: tn.org.ID, Email: both, Name: "Both", Role: gatehouse.RoleViewer, PasswordHash: hash, Proven: true}, nil); err != nil {
			t.Fatal(err)
		}
	}
	b := s.browser()
	choose := b.signIn(both, testPassword)
	pick := regexp.MustCompile(`name="user" value="([0-9a-f-]{36})">Beta<`).FindStringSubmatch(choose.body)
	if choose.status != http.StatusOK || !strings.Contains(choose.body, ">Acme<") || pick == nil {
		t.Fatalf("sign-in matching two organizations: %d %.600s", choose.status, choose.body)
	}
	if r := b.do("GET", "/dashboard/events", nil); r.status != http.StatusSeeOther {
		t.Errorf("before choosing, the person is signed in: %d", r.status)
	}
	csrf := csrfOf(t, choose.body)
	if r := b.do("POST", "/dashboard/login/choose", url.Values{"csrf": {csrf}, "user": {acme.org.ID.String()}}); r.status != http.StatusUnauthorized {
		t.Errorf("choosing a user the sign-in did not match: %d", r.status)
	}
	choose = b.signIn(both, testPassword)
	r := b.do("POST", "/dashboard/login/choose", url.Values{"csrf": {csrfOf(t, choose.body)}, "user": {pick[1]}})
	if r.status != http.StatusSeeOther || r.header.Get("Location") != "/dashboard/events" {
		t.Fatalf("choose Beta: %d to %q %.300s", r.status, r.header.Get("Location"), r.body)
	}
	log := b.do("GET", "/dashboard/events", nil)
	if !strings.Contains(log.body, beta.denied.ID.String()) || strings.Contains(log.body, acme.denied.ID.String()) {
		t.Errorf("after choosing Beta, the Event Log is not Beta's")
	}

	// Another password in Beta: only Acme's user matches, signed in at once.
	other, _ := password.Hash("another long password")
	if _, err := s.store.SetUserPassword(ctx, gatehouse.SystemEntry(gatehouse.AuditUserPasswordSet), beta.org.ID, both, other); err != nil {
		t.Fatal(err)
	}
	direct := s.browser()
	if r := direct.signIn(both, testPassword); r.status != http.StatusSeeOther {
		t.Fatalf("a password matching one organization: %d", r.status)
	}
	if log := direct.do("GET", "/dashboard/events", nil); !strings.Contains(log.body, acme.denied.ID.String()) {
		t.Errorf("signed in, but not into Acme")
	}
}
