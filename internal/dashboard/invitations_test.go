package dashboard_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/gatehouse/gatehouse"
	"github.com/google/uuid"
)

// TestALookAlikeUserIsAnInvitation: Rival's admin adds Acme's user's
// email and knows the password made for it, yet cannot sign in with it,
// and Rival's log gets none of Acme's user's failed sign-ins. Acme's
// user, signed in, is shown the invitation and may accept it.
func TestALookAlikeUserIsAnInvitation(t *testing.T) {
	s := newSite(t)
	acme, rival := s.tenant("Acme"), s.tenant("Rival")
	s.signedIn(acme) // Acme's user proves membership
	admin := s.signedIn(rival)
	users := admin.do("GET", "/dashboard/users", nil)
	added := admin.do("POST", "/dashboard/users", url.Values{"csrf": {csrfOf(t, users.body)}, "email": {acme.email}, "role": {"viewer"}})
	m := initialPassword.FindStringSubmatch(added.body)
	if added.status != http.StatusCreated || m == nil {
		t.Fatalf("add the look-alike: %d", added.status)
	}
	if page := admin.do("GET", "/dashboard/users", nil); !strings.Contains(page.body, "invited: not signed in yet") {
		t.Error("the users page does not say the look-alike is an invitation")
	}
	if r := s.browser().signIn(acme.email, m[1]); r.status != http.StatusUnauthorized {
		t.Errorf("the look-alike's password: %d, want 401", r.status)
	}
	if r := s.browser().signIn(acme.email, "a wrong password!"); r.status != http.StatusUnauthorized {
		t.Errorf("a wrong password: %d", r.status)
	}
	ctx := context.Background()
	rivalLog, err := s.svc.ListAuditLog(ctx, rival.org.ID, gatehouse.AuditFilter{Limit: gatehouse.MaxLimit})
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range rivalLog.Entries {
		if e.Target.Name == acme.email && (e.Action == gatehouse.AuditSignInFailed || e.Action == gatehouse.AuditSignedIn) {
			t.Errorf("Rival's log has %s of %s from %s", e.Action, e.Target.Name, e.ClientAddress)
		}
	}

	b := s.browser()
	in := b.signIn(acme.email, testPassword)
	if in.status != http.StatusSeeOther || in.header.Get("Location") != "/dashboard/invitations" {
		t.Fatalf("Acme's user signs in: %d to %q, want the invitations", in.status, in.header.Get("Location"))
	}
	page := b.do("GET", "/dashboard/invitations", nil)
	if !strings.Contains(page.body, "Join Rival") {
		t.Fatalf("the invitations page: %d %.400s", page.status, page.body)
	}
	lookAlike := findUser(t, s, rival.org.ID, acme.email)
	if r := b.do("POST", "/dashboard/invitations/accept", url.Values{"csrf": {csrfOf(t, page.body)}, "user": {lookAlike.ID.String()}}); r.status != http.StatusSeeOther {
		t.Fatalf("accept: %d %.300s", r.status, r.body)
	}
	if u := findUser(t, s, rival.org.ID, acme.email); !u.Proven {
		t.Error("the accepted invitation is not proven")
	}
	if r := b.do("GET", "/dashboard/users", nil); r.status != http.StatusForbidden {
		t.Errorf("now Rival's viewer, the users page: %d, want 403", r.status)
	}
}

func findUser(t *testing.T, s *site, org uuid.UUID, email string) gatehouse.User {
	t.Helper()
	users, err := s.svc.ListUsers(context.Background(), org)
	if err != nil {
		t.Fatal(err)
	}
	for _, u := range users {
		if u.Email == email {
			return u
		}
	}
	t.Fatalf("no user %s", email)
	return gatehouse.User{}
}
