package dashboard_test

import (
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/gatehouse/gatehouse/internal/app"
	"github.com/gatehouse/gatehouse/internal/sso"
	"github.com/gatehouse/gatehouse/internal/sso/ssotest"
)

// newProviderSite is a site whose users may sign in through a real
// OpenID provider the test starts (the zitadel example OP).
func newProviderSite(t *testing.T) (*site, *ssotest.Provider) {
	t.Helper()
	var p *ssotest.Provider
	s := newSiteAt(t, nil, func(url string, st *app.Settings) {
		p = ssotest.Start(t, url+sso.CallbackPath)
		st.PublicURL = url
		st.OIDC = sso.Config{Issuer: p.Issuer, ClientID: ssotest.ClientID, ClientSecret: ssotest.ClientSecret}
	})
	return s, p
}

// providerPassword is every person's password at the provider.
const providerPassword = "the provider's password"

// beginAtProvider starts a sign-in through the provider in b and returns
// the provider's page it is sent to, and the flow's cookie.
func beginAtProvider(t *testing.T, b *browser) (authURL, cookie string) {
	t.Helper()
	return beginAt(t, b, "/dashboard/login/oidc")
}

// beginAt is beginAtProvider from the button whose path is path.
func beginAt(t *testing.T, b *browser, path string) (authURL, cookie string) {
	t.Helper()
	r := b.do("GET", path, nil)
	if r.status != http.StatusSeeOther {
		t.Fatalf("begin: %d %.300s", r.status, r.body)
	}
	for _, c := range r.header.Values("Set-Cookie") {
		if v, ok := strings.CutPrefix(c, "gatehouse_oidc="); ok {
			cookie, _, _ = strings.Cut(v, ";")
			for _, want := range []string{"HttpOnly", "SameSite=Lax", "Path=/dashboard/login/oidc"} {
				if !strings.Contains(c, want) {
					t.Errorf("the flow's cookie %q lacks %s", c, want)
				}
			}
		}
	}
	if cookie == "" {
		t.Fatal("no flow cookie")
	}
	return r.header.Get("Location"), cookie
}

// callbackPath is the site's path of the provider's answer.
func callbackPath(t *testing.T, s *site, back string) string {
	t.Helper()
	path, ok := strings.CutPrefix(back, s.url)
	if !ok || !strings.HasPrefix(path, sso.CallbackPath+"?") {
		t.Fatalf("the provider sends the browser to %q, not the callback", back)
	}
	return path
}

// TestSignInThroughTheProvider: the authorization code flow end to end
// against a real provider: PKCE (S256), state and nonce on the way out,
// a session for the member whose verified email it returns; the same
// answer replayed, with or without the flow's cookie, signs nobody in.
func TestSignInThroughTheProvider(t *testing.T) {
	s, p := newProviderSite(t)
	acme := s.tenant("Acme")
	p.AddUser(acme.email, providerPassword, true)

	b := s.browser()
	if page := b.do("GET", "/dashboard/login", nil); !strings.Contains(page.body, "Sign in with "+strings.TrimPrefix(p.Issuer, "http://")) {
		t.Errorf("the sign-in page offers no provider: %.600s", page.body)
	}
	authURL, cookie := beginAtProvider(t, b)
	q := mustURL(t, authURL).Query()
	if !strings.HasPrefix(authURL, p.Issuer) || q.Get("code_challenge_method") != "S256" || len(q.Get("code_challenge")) != 43 ||
		len(q.Get("state")) != 43 || len(q.Get("nonce")) != 43 || q.Get("client_id") != ssotest.ClientID || q.Get("response_type") != "code" {
		t.Fatalf("the authorization request: %s", authURL)
	}
	back := callbackPath(t, s, p.SignIn(t, b.client, authURL, acme.email, providerPassword))
	r := b.do("GET", back, nil)
	if r.status != http.StatusSeeOther || r.header.Get("Location") != "/dashboard/events" {
		t.Fatalf("the callback: %d to %q %.300s", r.status, r.header.Get("Location"), r.body)
	}
	if log := b.do("GET", "/dashboard/events", nil); log.status != http.StatusOK || !strings.Contains(log.body, acme.denied.ID.String()) {
		t.Fatalf("signed in through the provider, the Event Log: %d", log.status)
	}

	// The same answer again: the flow's cookie is spent.
	if r := b.do("GET", back, nil); r.status != http.StatusUnauthorized || !strings.Contains(r.body, "failed or expired") {
		t.Errorf("the answer replayed: %d", r.status)
	}
	// With the cookie kept back: the provider refuses a code used once.
	thief := s.browser()
	if r := thief.do("GET", back, nil, "Cookie", "gatehouse_oidc="+cookie); r.status != http.StatusUnauthorized {
		t.Errorf("the code replayed with its flow's cookie: %d", r.status)
	}
	if r := thief.do("GET", "/dashboard/events", nil); r.status != http.StatusSeeOther {
		t.Errorf("the replay signed in: %d", r.status)
	}
}

// TestProviderAnswersThatAreRefused: a nonce changed on the way to the
// provider, an answer brought to another browser than the one that
// began, an email the provider has not verified, and an email nobody
// invited each sign nobody in; a provider that does not answer is said
// to.
func TestProviderAnswersThatAreRefused(t *testing.T) {
	s, p := newProviderSite(t)
	acme := s.tenant("Acme")
	p.AddUser(acme.email, providerPassword, true)
	p.AddUser("unverified@example.test", providerPassword, false)
	p.AddUser("stranger@example.test", providerPassword, true)
	admin := s.signedIn(acme)
	users := admin.do("GET", "/dashboard/users", nil)
	if r := admin.do("POST", "/dashboard/users", url.Values{"csrf": {csrfOf(t, users.body)}, "email": {"unverified@example.test"}, "role": {"viewer"}}); r.status != http.StatusCreated {
		t.Fatalf("invite: %d", r.status)
	}

	refused := func(what string, b *browser, back string, status int, says string) {
		t.Helper()
		r := b.do("GET", back, nil)
		if r.status != status || !strings.Contains(r.body, says) {
			t.Errorf("%s: %d %.400s, want %d saying %q", what, r.status, r.body, status, says)
		}
		if r := b.do("GET", "/dashboard/events", nil); r.status != http.StatusSeeOther {
			t.Errorf("%s signed in: %d", what, r.status)
		}
	}

	// A nonce changed in the request to the provider: the ID token
	// carries it back, and it is not the flow's.
	b := s.browser()
	authURL, _ := beginAtProvider(t, b)
	u := mustURL(t, authURL)
	q := u.Query()
	q.Set("nonce", "a-nonce-of-another-flow-aaaaaaaaaaaaaaaaaaaaaa")
	u.RawQuery = q.Encode()
	refused("a wrong nonce", b, callbackPath(t, s, p.SignIn(t, b.client, u.String(), acme.email, providerPassword)), http.StatusUnauthorized, "failed or expired")

	// An answer brought to another browser (a sign-in forged into the
	// victim's browser): one with no flow, and one with a flow of its own
	// (another state, another verifier).
	b = s.browser()
	authURL, _ = beginAtProvider(t, b)
	back := callbackPath(t, s, p.SignIn(t, b.client, authURL, acme.email, providerPassword))
	refused("another browser's answer", s.browser(), back, http.StatusUnauthorized, "failed or expired")
	victim := s.browser()
	beginAtProvider(t, victim)
	b = s.browser()
	authURL, _ = beginAtProvider(t, b)
	back = callbackPath(t, s, p.SignIn(t, b.client, authURL, acme.email, providerPassword))
	refused("an answer to a browser that began its own flow", victim, back, http.StatusUnauthorized, "failed or expired")

	b = s.browser()
	authURL, _ = beginAtProvider(t, b)
	refused("an unverified email", b, callbackPath(t, s, p.SignIn(t, b.client, authURL, "unverified@example.test", providerPassword)),
		http.StatusForbidden, "has not verified your email")
	if u := findUser(t, s, acme.org.ID, "unverified@example.test"); u.Proven {
		t.Error("an unverified email accepted an invitation")
	}

	b = s.browser()
	authURL, _ = beginAtProvider(t, b)
	refused("an email nobody invited", b, callbackPath(t, s, p.SignIn(t, b.client, authURL, "stranger@example.test", providerPassword)),
		http.StatusForbidden, "Ask an admin of your organization to invite you")

	b = s.browser()
	authURL, _ = beginAtProvider(t, b)
	back = callbackPath(t, s, p.SignIn(t, b.client, authURL, acme.email, providerPassword))
	p.FailTokens(1)
	refused("a provider that does not answer", b, back, http.StatusServiceUnavailable, "does not answer")
}

// TestJoiningThroughTheProvider: an invited user signs in through the
// provider with the email they were invited with, is shown the
// invitation, and joins by picking it; an organization that requires the
// provider refuses passwords, and its join page offers only the
// provider.
func TestJoiningThroughTheProvider(t *testing.T) {
	s, p := newProviderSite(t)
	acme := s.tenant("Acme")
	admin := s.signedIn(acme)
	users := admin.do("GET", "/dashboard/users", nil)
	csrf := csrfOf(t, users.body)
	added := admin.do("POST", "/dashboard/users", url.Values{"csrf": {csrf}, "email": {"nova@example.test"}, "role": {"viewer"}})
	link := invitationLink.FindStringSubmatch(added.body)
	if link == nil {
		t.Fatalf("invite: %d", added.status)
	}
	if r := admin.do("POST", "/dashboard/users/provider/required", url.Values{"csrf": {csrf}, "required": {"on"}}); r.status != http.StatusSeeOther {
		t.Fatalf("require the provider: %d %.300s", r.status, r.body)
	}
	joinPath := strings.TrimPrefix(link[1], s.url)
	visitor := s.browser()
	page := visitor.do("GET", joinPath, nil)
	if page.status != http.StatusOK || strings.Contains(page.body, `name="password"`) || !strings.Contains(page.body, "Join with") {
		t.Errorf("the join page of an organization that requires the provider: %d %.500s", page.status, page.body)
	}
	p.AddUser("nova@example.test", providerPassword, true)
	// Through the provider, the invitation is listed, and joined only
	// when picked.
	authURL, _ := beginAtProvider(t, visitor)
	page = visitor.do("GET", callbackPath(t, s, p.SignIn(t, visitor.client, authURL, "nova@example.test", providerPassword)), nil)
	form := regexp.MustCompile(`name="user" value="([0-9a-f-]{36})">`).FindStringSubmatch(page.body)
	if page.status != http.StatusOK || !strings.Contains(page.body, "Join Acme") || form == nil || strings.Contains(page.body, "Continue without joining") {
		t.Fatalf("the invitations through the provider: %d %.600s", page.status, page.body)
	}
	if u := findUser(t, s, acme.org.ID, "nova@example.test"); u.Proven {
		t.Error("the sign-in joined by itself")
	}
	if r := s.browser().do("POST", "/dashboard/login/oidc/accept", url.Values{"csrf": {csrfOf(t, page.body)}, "user": {form[1]}},
		"Cookie", "gatehouse_login="+csrfOf(t, page.body)); r.status != http.StatusUnauthorized {
		t.Errorf("the page's form from another browser, its CSRF token copied: %d, want 401", r.status)
	}
	r := visitor.do("POST", "/dashboard/login/oidc/accept", url.Values{"csrf": {csrfOf(t, page.body)}, "user": {form[1]}})
	if r.status != http.StatusSeeOther || r.header.Get("Location") != "/dashboard/events" {
		t.Fatalf("joining through the provider: %d to %q %.300s", r.status, r.header.Get("Location"), r.body)
	}
	if u := findUser(t, s, acme.org.ID, "nova@example.test"); !u.Proven {
		t.Error("the invitation is not accepted")
	}
	if r := s.browser().do("GET", joinPath, nil); r.status != http.StatusNotFound {
		t.Errorf("the link after joining through the provider: %d", r.status)
	}
}

func mustURL(t *testing.T, s string) *url.URL {
	t.Helper()
	u, err := url.Parse(s)
	if err != nil {
		t.Fatal(err)
	}
	return u
}
