// Package ssotest starts a real OpenID Connect provider for tests: the
// example OP of github.com/zitadel/oidc (authorization code flow with
// PKCE, signed ID tokens, a userinfo endpoint, codes good once), with
// users the test adds and faults it can inject in front of it.
package ssotest

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/zitadel/oidc/v3/example/server/exampleop"
	"github.com/zitadel/oidc/v3/example/server/storage"
	"github.com/zitadel/oidc/v3/pkg/op"
	"golang.org/x/text/language"
)

// The client the provider registers Gatehouse as.
const (
	ClientID     = "gatehouse"
	ClientSecret = "the client's secret"
)

// Provider is a running provider.
type Provider struct {
	// Issuer is its URL.
	Issuer string
	users  *users
	// tokenFaults is how many of the next token requests answer 503.
	tokenFaults atomic.Int64
}

// Start starts a provider for t, whose one client (ClientID,
// ClientSecret) sends people back to redirectURL.
func Start(t testing.TB, redirectURL string) *Provider {
	t.Helper()
	srv := httptest.NewUnstartedServer(nil)
	p := &Provider{Issuer: "http://" + srv.Listener.Addr().String(), users: &users{byName: map[string]*storage.User{}}}
	client := storage.WebClient(ClientID, ClientSecret, redirectURL)
	store := storage.NewStorageWithClients(p.users, map[string]*storage.Client{ClientID: client})
	router := exampleop.SetupServer(p.Issuer, store, nil, false, op.WithAllowInsecure())
	srv.Config.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/oauth/token" && p.tokenFaults.Add(-1) >= 0 {
			http.Error(w, "the provider is down", http.StatusServiceUnavailable)
			return
		}
		router.ServeHTTP(w, r)
	})
	srv.Start()
	t.Cleanup(srv.Close)
	return p
}

// AddUser adds a person who signs in with email and password; verified
// says whether the provider vouches for the email.
func (p *Provider) AddUser(email, password string, verified bool) {
	p.users.add(&storage.User{ID: "id-" + email, Username: email, Password: password, Email: email,
		EmailVerified: verified, FirstName: "Test", LastName: "Person", PreferredLanguage: language.English})
}

// FailTokens makes the next n requests to the token endpoint answer 503.
func (p *Provider) FailTokens(n int64) { p.tokenFaults.Store(n) }

// SignIn takes the browser of client (which must not follow redirects)
// through the provider from authURL, the page Gatehouse sent it to, as
// the person with that email and password, and returns where the
// provider sends it back: Gatehouse's callback with the code and state.
func (p *Provider) SignIn(t testing.TB, client *http.Client, authURL, email, password string) string {
	t.Helper()
	res, err := client.Get(authURL)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	login, err := url.Parse(res.Header.Get("Location"))
	if err != nil || res.StatusCode != http.StatusFound || !strings.HasPrefix(login.Path, "/login/username") {
		t.Fatalf("the provider's authorize: %d to %q", res.StatusCode, res.Header.Get("Location"))
	}
	form := url.Values{"id": {login.Query().Get("authRequestID")}, "username": {email}, "password": {password}}
	res, err = client.PostForm(p.Issuer+"/login/username", form)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusFound {
		t.Fatalf("the provider's login as %s: %d", email, res.StatusCode)
	}
	back := res.Header.Get("Location")
	if strings.HasPrefix(back, "/") {
		back = p.Issuer + back
	}
	res, err = client.Get(back)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusFound {
		t.Fatalf("the provider's callback: %d", res.StatusCode)
	}
	return res.Header.Get("Location")
}

// users is the provider's people.
type users struct {
	mu     sync.Mutex
	byName map[string]*storage.User
}

func (u *users) add(user *storage.User) {
	u.mu.Lock()
	defer u.mu.Unlock()
	u.byName[user.Username] = user
}

func (u *users) GetUserByID(id string) *storage.User {
	u.mu.Lock()
	defer u.mu.Unlock()
	for _, user := range u.byName {
		if user.ID == id {
			return user
		}
	}
	return nil
}

func (u *users) GetUserByUsername(name string) *storage.User {
	u.mu.Lock()
	defer u.mu.Unlock()
	return u.byName[name]
}

func (u *users) ExampleClientID() string { return "service" }
