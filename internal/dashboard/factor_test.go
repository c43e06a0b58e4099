package dashboard_test

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/gatehouse/gatehouse"
	"github.com/gatehouse/gatehouse/internal/app"
	"github.com/gatehouse/gatehouse/internal/password"
	"github.com/gatehouse/gatehouse/internal/ratelimit"
	"github.com/pquerna/otp/totp"
)

var (
	secretField  = regexp.MustCompile(`id="totp-secret" class="secret" data-secret="([A-Z2-7]+)"`)
	pendingField = regexp.MustCompile(`name="pending" value="([^"]+)"`)
)

// TestRequiredSecondFactorLeadsToEnrolment: once an admin requires a
// second factor, a member without one who signs in reaches the
// enrolment and nothing else: every page sends them to it, every form
// but sign-out is refused. Enrolled, the dashboard is theirs; the admin
// sees the factor on the Users page and resets it there.
func TestRequiredSecondFactorLeadsToEnrolment(t *testing.T) {
	s := newSite(t)
	acme := s.tenant("Acme")
	admin := s.signedIn(acme)
	users := admin.do("GET", "/dashboard/users", nil)
	if r := admin.do("POST", "/dashboard/users/second-factor/required", url.Values{"csrf": {csrfOf(t, users.body)}, "required": {"on"}}); r.status != http.StatusSeeOther {
		t.Fatalf("requiring a second factor: %d", r.status)
	}

	hash, err := password.Hash(testPassword)
	if err != nil {
		t.Fatal(err)
	}
	const email = "viewer@example.test"
	if _, err := s.store.CreateUser(context.Background(), gatehouse.SystemEntry(gatehouse.AuditUserAdded), gatehouse.User{OrgID: acme.org.ID, Email: email, Name: "Viewer", Role: gatehouse.RoleViewer, PasswordHash: hash, Proven: true}, nil); err != nil {
		t.Fatal(err)
	}
	member := s.browser()
	r := member.signIn(email, testPassword)
	if r.status != http.StatusSeeOther || r.header.Get("Location") != "/dashboard/account/second-factor" {
		t.Fatalf("signing in without a factor: %d to %q", r.status, r.header.Get("Location"))
	}
	for _, page := range []string{"/dashboard/events", "/dashboard/locations", "/dashboard/account"} {
		if r := member.do("GET", page, nil); r.status != http.StatusSeeOther || r.header.Get("Location") != "/dashboard/account/second-factor" {
			t.Errorf("GET %s before enrolling: %d to %q", page, r.status, r.header.Get("Location"))
		}
	}
	enrol := member.do("GET", "/dashboard/account/second-factor", nil)
	if enrol.status != http.StatusOK || !strings.Contains(enrol.body, "requires a second factor") || !strings.Contains(enrol.body, `src="data:image/png;base64,`) {
		t.Fatalf("the enrolment: %d %.500s", enrol.status, enrol.body)
	}
	csrf := csrfOf(t, enrol.body)
	if r := member.do("POST", "/dashboard/keys", url.Values{"csrf": {csrf}, "name": {"sneaky"}, "scopes": {"events:read"}}); r.status != http.StatusForbidden {
		t.Errorf("a form before enrolling: %d", r.status)
	}
	secret, pending := secretField.FindStringSubmatch(enrol.body), pendingField.FindStringSubmatch(enrol.body)
	if secret == nil || pending == nil {
		t.Fatalf("no secret or pending enrolment in %.800s", enrol.body)
	}
	code, err := totp.GenerateCode(secret[1], s.now) // the site's clock
	if err != nil {
		t.Fatal(err)
	}
	done := member.do("POST", "/dashboard/account/second-factor", url.Values{"csrf": {csrf}, "pending": {pending[1]}, "code": {code}})
	if done.status != http.StatusCreated || strings.Count(done.body, "-") < 10 || done.header.Get("Cache-Control") != "no-store" {
		t.Fatalf("enrolled: %d %q %.800s", done.status, done.header.Get("Cache-Control"), done.body)
	}
	if r := member.do("GET", "/dashboard/events", nil); r.status != http.StatusOK {
		t.Errorf("the Event Log after enrolling: %d", r.status)
	}
	// The recovery codes' page carries the new session's token: signing
	// out from it works.
	if r := member.do("POST", "/dashboard/logout", url.Values{"csrf": {csrfOf(t, done.body)}}); r.status != http.StatusSeeOther {
		t.Errorf("signing out from the recovery codes' page: %d", r.status)
	}
	if r := member.signIn(email, testPassword); r.status != http.StatusOK || !strings.Contains(r.body, "Two-factor code") {
		t.Fatalf("signing in again asks for no code: %d", r.status)
	}
	step := member.seen[len(member.seen)-1]
	code, err = totp.GenerateCode(secret[1], s.now.Add(30*time.Second)) // the enrolment used the step of s.now
	if err != nil {
		t.Fatal(err)
	}
	s.now = s.now.Add(30 * time.Second)
	if r := member.do("POST", "/dashboard/login/code", url.Values{"csrf": {csrfOf(t, step)}, "code": {code}}); r.status != http.StatusSeeOther {
		t.Fatalf("the code of the next step: %d", r.status)
	}

	// The admin sees the factor and resets it (a lost phone): the
	// member's session ends, and their next sign-in enrols again. The
	// admin has no Reset of their own.
	users = admin.do("GET", "/dashboard/users", nil)
	if !strings.Contains(users.body, "Reset the second factor of "+email) {
		t.Fatalf("the users page shows no reset: %.1500s", users.body)
	}
	own := url.Values{"csrf": {csrfOf(t, users.body)}, "email": {acme.email}}
	if r := admin.do("POST", "/dashboard/users/second-factor/reset", own); r.status != http.StatusConflict || !strings.Contains(r.body, "your account page") {
		t.Errorf("a reset of the admin's own: %d", r.status)
	}
	if r := admin.do("POST", "/dashboard/users/second-factor/reset", url.Values{"csrf": {csrfOf(t, users.body)}, "email": {email}}); r.status != http.StatusSeeOther {
		t.Errorf("reset: %d", r.status)
	}
	if r := member.do("GET", "/dashboard/events", nil); r.status != http.StatusSeeOther || !strings.HasPrefix(r.header.Get("Location"), "/dashboard/login") {
		t.Errorf("the reset left the session alive: %d %q", r.status, r.header.Get("Location"))
	}
	if r := member.signIn(email, testPassword); r.header.Get("Location") != "/dashboard/account/second-factor" {
		t.Errorf("after the reset, under the requirement: %q", r.header.Get("Location"))
	}
}

// TestWrongCodesAreLimited: a thief with the password guesses codes of
// the user's second factor; after the user's burst of 10, every network
// is refused (429) before its code is checked, the owner's right code
// too, and /metrics counts the refusals by the second factor's limit.
func TestWrongCodesAreLimited(t *testing.T) {
	proxies, _ := ratelimit.ParseProxies("127.0.0.1")
	s := newSiteWith(t, nil, func(st *app.Settings) { st.TrustedProxies = proxies })
	acme := s.tenant("Acme")
	users, err := s.store.ListUsers(context.Background(), acme.org.ID)
	if err != nil {
		t.Fatal(err)
	}
	u := users[0]
	as := gatehouse.WithActor(context.Background(), gatehouse.Actor{Type: gatehouse.ActorUser, ID: u.ID, Label: u.Email, OrgID: u.OrgID, Role: u.Role})
	e, err := s.svc.BeginEnrolment(as)
	if err != nil {
		t.Fatal(err)
	}
	code, _ := totp.GenerateCode(e.Secret, s.now)
	if _, _, _, err := s.svc.EnrolSecondFactor(as, e.Pending, code); err != nil {
		t.Fatal(err)
	}
	guess := func(addr, code string) int {
		b := s.browser()
		step := b.signInFrom(addr, acme.email, testPassword)
		if step.status != http.StatusOK || !strings.Contains(step.body, "Two-factor code") {
			t.Fatalf("the password asks for no code: %d", step.status)
		}
		return b.do("POST", "/dashboard/login/code", url.Values{"csrf": {csrfOf(t, step.body)}, "code": {code}}, "X-Forwarded-For", addr).status
	}
	wrong := "000000"
	if wrong == code {
		wrong = "000001"
	}
	for i := range 10 {
		if status := guess(fmt.Sprintf("198.51.%d.7", i), wrong); status != http.StatusUnauthorized {
			t.Fatalf("wrong code %d: %d", i, status)
		}
	}
	if status := guess("203.0.113.9", wrong); status != http.StatusTooManyRequests {
		t.Errorf("the 11th wrong code, from yet another network: %d, want 429", status)
	}
	metrics := s.browser().do("GET", "/metrics", nil).body
	if !strings.Contains(metrics, `gatehouse_signin_refused_total{limit="second_factor"} 1`) {
		t.Error("/metrics does not count the refusal by the second factor's limit")
	}
}
