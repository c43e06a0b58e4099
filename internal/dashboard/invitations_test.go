package dashboard_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/gatehouse/gatehouse"
	"github.com/google/uuid"
)

// TestALookAlikeUserIsAnInvitation: Rival's admin adds Acme's user's
// email and joins it through the link they were shown: that is Rival's
// own member, with a password Rival's admin chose. Rival's log gets none
// of Acme's user's failed sign-ins (Acme proved the email first), Acme's
// user's password signs in to Acme only, and with no provider to prove
// the email no organization's invitation is offered across.
func TestALookAlikeUserIsAnInvitation(t *testing.T) {
	s := newSite(t)
	acme, rival := s.tenant("Acme"), s.tenant("Rival")
	admin := s.signedIn(rival)
	users := admin.do("GET", "/dashboard/users", nil)
	added := admin.do("POST", "/dashboard/users", url.Values{"csrf": {csrfOf(t, users.body)}, "email": {acme.email}, "role": {"viewer"}})
	m := invitationLink.FindStringSubmatch(added.body)
	if added.status != http.StatusCreated || m == nil {
		t.Fatalf("add the look-alike: %d", added.status)
	}
	if page := admin.do("GET", "/dashboard/users", nil); !strings.Contains(page.body, "invited until") {
		t.Error("the users page does not say the look-alike is an invitation")
	}
	path := strings.TrimPrefix(m[1], s.url)
	s.now = s.now.Add(time.Minute) // Acme's user was proven first
	lookAlike := s.browser()
	if r := lookAlike.do("POST", path, url.Values{"password": {"set by rival's admin"}, "confirm": {"set by rival's admin"}}); r.status != http.StatusSeeOther {
		t.Fatalf("Rival's admin joins through the look-alike's link: %d %.300s", r.status, r.body)
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
		if e.Target.Name == acme.email && e.Action == gatehouse.AuditSignInFailed {
			t.Errorf("Rival's log has %s of %s from %s", e.Action, e.Target.Name, e.ClientAddress)
		}
	}
	acmeLog, err := s.svc.ListAuditLog(ctx, acme.org.ID, gatehouse.AuditFilter{Action: gatehouse.AuditSignInFailed, Limit: gatehouse.MaxLimit})
	if err != nil || len(acmeLog.Entries) != 1 {
		t.Errorf("Acme's failed sign-ins: %+v %v, want the one", acmeLog.Entries, err)
	}

	b := s.browser()
	in := b.signIn(acme.email, testPassword)
	if in.status != http.StatusSeeOther || in.header.Get("Location") != "/dashboard/events" {
		t.Fatalf("Acme's user signs in: %d to %q, want the Event Log", in.status, in.header.Get("Location"))
	}
	if log := b.do("GET", "/dashboard/events", nil); !strings.Contains(log.body, acme.denied.ID.String()) {
		t.Error("Acme's user is not in Acme")
	}
	if page := b.do("GET", "/dashboard/invitations", nil); page.status != http.StatusNotFound {
		t.Errorf("an invitations page of a password's session: %d", page.status)
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

// TestInvitationLinkPages: a link used, replaced or expired says so and
// sets nothing; the users page makes a new link for a user who has not
// joined; and no link reaches the server's log.
func TestInvitationLinkPages(t *testing.T) {
	s := newSite(t)
	acme := s.tenant("Acme")
	admin := s.signedIn(acme)
	users := admin.do("GET", "/dashboard/users", nil)
	csrf := csrfOf(t, users.body)
	added := admin.do("POST", "/dashboard/users", url.Values{"csrf": {csrf}, "email": {"late@example.test"}, "role": {"viewer"}})
	first := invitationLink.FindStringSubmatch(added.body)
	if first == nil {
		t.Fatalf("add a user: %d", added.status)
	}
	renewed := admin.do("POST", "/dashboard/users/invitation", url.Values{"csrf": {csrf}, "email": {"late@example.test"}})
	second := invitationLink.FindStringSubmatch(renewed.body)
	if renewed.status != http.StatusOK || second == nil || second[1] == first[1] {
		t.Fatalf("a new link: %d %v", renewed.status, second)
	}
	visitor := s.browser()
	firstPath, secondPath := strings.TrimPrefix(first[1], s.url), strings.TrimPrefix(second[1], s.url)
	if r := visitor.do("GET", firstPath, nil); r.status != http.StatusNotFound || !strings.Contains(r.body, "replaced by a newer one") {
		t.Errorf("the replaced link: %d %.300s", r.status, r.body)
	}
	if r := visitor.do("POST", firstPath, url.Values{"password": {"late's own password"}, "confirm": {"late's own password"}}); r.status != http.StatusNotFound {
		t.Errorf("joining through the replaced link: %d", r.status)
	}
	s.now = s.now.Add(gatehouse.InvitationLifetime)
	if r := visitor.do("GET", secondPath, nil); r.status != http.StatusGone || !strings.Contains(r.body, "has expired") {
		t.Errorf("the expired link: %d %.300s", r.status, r.body)
	}
	admin = s.signedIn(acme) // a week later: the session of before has ended
	page := admin.do("GET", "/dashboard/users", nil)
	if !strings.Contains(page.body, "invited: no working link") {
		t.Error("the users page does not say the link expired")
	}
	csrf = csrfOf(t, page.body)
	third := invitationLink.FindStringSubmatch(admin.do("POST", "/dashboard/users/invitation", url.Values{"csrf": {csrf}, "email": {"late@example.test"}}).body)
	if third == nil {
		t.Fatal("no new link after the expiry")
	}
	thirdPath := strings.TrimPrefix(third[1], s.url)
	if r := visitor.do("POST", thirdPath, url.Values{"password": {"short"}, "confirm": {"short"}}); r.status != http.StatusBadRequest || !strings.Contains(r.body, "at least 12") {
		t.Errorf("a short password: %d %.300s", r.status, r.body)
	}
	if r := visitor.do("POST", thirdPath, url.Values{"password": {"late's own password"}, "confirm": {"late's own password"}}); r.status != http.StatusSeeOther {
		t.Fatalf("joining: %d %.300s", r.status, r.body)
	}
	if r := visitor.do("GET", "/dashboard/events", nil); r.status != http.StatusOK {
		t.Errorf("the Event Log after joining: %d", r.status)
	}
	if r := s.browser().do("GET", thirdPath, nil); r.status != http.StatusNotFound || !strings.Contains(r.body, "has been used") {
		t.Errorf("the used link: %d", r.status)
	}
	if renew := admin.do("POST", "/dashboard/users/invitation", url.Values{"csrf": {csrf}, "email": {"late@example.test"}}); renew.status != http.StatusConflict {
		t.Errorf("a new link for a member: %d", renew.status)
	}
	logs := s.logs.String()
	for _, link := range []string{first[1], second[1], third[1]} {
		if token := link[strings.LastIndex(link, "/")+1:]; strings.Contains(logs, token) {
			t.Errorf("the log holds an invitation's token: %.200s", logs[strings.Index(logs, token)-150:])
		}
	}
	if !strings.Contains(logs, `"path":"/dashboard/join/{token}"`) {
		t.Error("the log has no line of the join page, under its pattern")
	}
}
