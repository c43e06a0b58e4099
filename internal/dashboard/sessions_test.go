package dashboard_test

import (
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
)

var endSessionForm = regexp.MustCompile(`name="id" value="([0-9a-f-]{36})">\s*<button type="submit" aria-label="Sign out ([^"]*)">Sign out there`)

// TestSessionsOnTheAccountPage: a user sees where they are signed in,
// by browser and address, this browser marked, and signs another out;
// an admin signs a user out everywhere from the Users page.
func TestSessionsOnTheAccountPage(t *testing.T) {
	s := newSite(t)
	acme := s.tenant("Acme")
	laptop, phone := s.browser(), s.browser()
	signIn := func(b *browser, ua string) {
		t.Helper()
		form := b.do("GET", "/dashboard/login", nil, "User-Agent", ua)
		r := b.do("POST", "/dashboard/login", url.Values{"csrf": {csrfOf(t, form.body)}, "email": {acme.email}, "password": {testPassword}}, "User-Agent", ua)
		if r.status != http.StatusSeeOther {
			t.Fatalf("sign in: %d", r.status)
		}
	}
	signIn(laptop, "Mozilla/5.0 (X11; Linux x86_64; rv:140.0) Gecko/20100101 Firefox/140.0")
	signIn(phone, "Mozilla/5.0 (iPhone; CPU iPhone OS 18_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.0 Mobile/15E148 Safari/604.1")

	page := laptop.do("GET", "/dashboard/account", nil)
	if page.status != http.StatusOK || !strings.Contains(page.body, "Firefox on Linux <strong>(this browser)</strong>") || !strings.Contains(page.body, "Safari on iPhone") {
		t.Fatalf("the account page: %d %.3000s", page.status, page.body)
	}
	m := endSessionForm.FindStringSubmatch(page.body)
	if m == nil || !strings.HasPrefix(m[2], "Safari on iPhone") {
		t.Fatalf("no form to sign the phone out: %v", m)
	}
	if r := laptop.do("POST", "/dashboard/account/sessions/end", url.Values{"csrf": {csrfOf(t, page.body)}, "id": {m[1]}}); r.status != http.StatusSeeOther {
		t.Fatalf("signing the phone out: %d", r.status)
	}
	if r := phone.do("GET", "/dashboard/events", nil); r.status != http.StatusSeeOther || !strings.HasPrefix(r.header.Get("Location"), "/dashboard/login") {
		t.Errorf("the phone after it was signed out: %d %q", r.status, r.header.Get("Location"))
	}
	if r := laptop.do("GET", "/dashboard/events", nil); r.status != http.StatusOK {
		t.Errorf("the laptop after signing the phone out: %d", r.status)
	}

	users := laptop.do("GET", "/dashboard/users", nil)
	if r := laptop.do("POST", "/dashboard/users/sessions/end", url.Values{"csrf": {csrfOf(t, users.body)}, "email": {acme.email}}); r.status != http.StatusSeeOther {
		t.Errorf("signing oneself out everywhere: %d", r.status)
	}
	if r := laptop.do("GET", "/dashboard/events", nil); r.status != http.StatusSeeOther {
		t.Errorf("the laptop after signing out everywhere: %d", r.status)
	}
}

// TestChangeOwnPassword: on the account page, a wrong current password
// is refused and changes nothing; the right one changes it, signs every
// other browser out and keeps this one signed in.
func TestChangeOwnPassword(t *testing.T) {
	s := newSite(t)
	acme := s.tenant("Acme")
	here, there := s.signedIn(acme), s.signedIn(acme)
	page := here.do("GET", "/dashboard/account", nil)
	change := func(current string) answer {
		return here.do("POST", "/dashboard/account/password", url.Values{"csrf": {csrfOf(t, page.body)}, "current": {current}, "password": {"a brand new password"}})
	}
	if r := change("not my password"); r.status != http.StatusUnauthorized || !strings.Contains(r.body, "not your current password") {
		t.Errorf("a wrong current password: %d", r.status)
	}
	if r := there.do("GET", "/dashboard/events", nil); r.status != http.StatusOK {
		t.Errorf("the other browser after a refused change: %d", r.status)
	}
	if r := change(testPassword); r.status != http.StatusSeeOther {
		t.Fatalf("the change: %d %.500s", r.status, r.body)
	}
	if r := there.do("GET", "/dashboard/events", nil); r.status != http.StatusSeeOther {
		t.Errorf("the other browser after the change: %d", r.status)
	}
	if r := here.do("GET", "/dashboard/events", nil); r.status != http.StatusOK {
		t.Errorf("this browser after the change: %d", r.status)
	}
	if r := s.browser().signIn(acme.email, "a brand new password"); r.status != http.StatusSeeOther {
		t.Errorf("signing in with the new password: %d", r.status)
	}
}
