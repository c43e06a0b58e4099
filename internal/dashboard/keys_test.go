package dashboard_test

import (
	"context"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/gatehouse/gatehouse/internal/auth"
)

func TestAPIKeysCreateUseRevoke(t *testing.T) {
	s := newSite(t)
	acme := s.tenant("Acme")
	b := s.signedIn(acme)
	page := b.do("GET", "/dashboard/keys", nil)
	csrf := csrfOf(t, page.body)

	bad := b.do("POST", "/dashboard/keys", url.Values{"csrf": {csrf}, "name": {" "}, "expires": {"7"}})
	if bad.status != http.StatusBadRequest || !strings.Contains(bad.body, "choose at least one scope") {
		t.Errorf("a bad form: %d", bad.status)
	}
	posted := b.do("POST", "/dashboard/keys", url.Values{"csrf": {csrf}, "name": {"warehouse"},
		"scope": {"events:read", "locations:read"}, "expires": {"30"}})
	if posted.status != http.StatusSeeOther || posted.header.Get("Location") != "/dashboard/keys" {
		t.Fatalf("create: %d to %q, want 303 to the keys page", posted.status, posted.header.Get("Location"))
	}
	if sc := posted.header.Get("Set-Cookie"); !strings.Contains(sc, "HttpOnly") || !strings.Contains(sc, "Max-Age=60") ||
		!strings.Contains(sc, "Path=/dashboard/keys") {
		t.Errorf("the new key's cookie is not a short-lived HttpOnly one: %s", sc)
	}
	created := b.do("GET", "/dashboard/keys", nil)
	raw := regexp.MustCompile(`gk_[0-9A-Za-z]{38}`).FindString(created.body)
	if created.status != http.StatusOK || raw == "" {
		t.Fatalf("the page after creating: %d, no key", created.status)
	}
	if reloaded := b.do("GET", "/dashboard/keys", nil); strings.Contains(reloaded.body, raw) ||
		strings.Count(reloaded.body, "<td>warehouse</td>") != 1 {
		t.Errorf("a reload shows the key again or another key")
	}
	if !strings.Contains(created.body, "only time") {
		t.Error("no warning that the key is shown once")
	}

	api := func(key string) int {
		req, _ := http.NewRequest("GET", s.url+"/api/consumer/v1/events", nil)
		req.Header.Set("Authorization", "Bearer "+key)
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		return res.StatusCode
	}
	if got := api(raw); got != 200 {
		t.Fatalf("the new key against the API: %d", got)
	}

	list := b.do("GET", "/dashboard/keys", nil)
	if !strings.Contains(list.body, raw[:11]+"…") || !strings.Contains(list.body, "events:read, locations:read") {
		t.Errorf("the list lacks the key's prefix or scopes")
	}
	id := regexp.MustCompile(`/dashboard/keys/([0-9a-f-]{36})/revoke`).FindStringSubmatch(list.body)
	if id == nil {
		t.Fatal("no revoke link")
	}
	confirm := b.do("GET", "/dashboard/keys/"+id[1]+"/revoke", nil)
	if confirm.status != 200 || !strings.Contains(confirm.body, "cannot be undone") {
		t.Fatalf("confirmation: %d", confirm.status)
	}
	if r := b.do("POST", "/dashboard/keys/"+id[1]+"/revoke", url.Values{"csrf": {csrf}}); r.status != http.StatusSeeOther {
		t.Fatalf("revoke: %d", r.status)
	}
	s.now = s.now.Add(auth.CacheTTL + time.Millisecond)
	if got := api(raw); got != http.StatusUnauthorized {
		t.Errorf("the revoked key against the API: %d", got)
	}
	if after := b.do("GET", "/dashboard/keys", nil); !strings.Contains(after.body, "revoked") {
		t.Error("the list does not show the key revoked")
	}

	shown := 0
	for _, body := range b.seen {
		shown += strings.Count(body, raw)
	}
	if shown != 1 {
		t.Errorf("the raw key appears %d times across the session's responses, want exactly once", shown)
	}
}

func TestKeysOfAnotherOrganizationAreOutOfReach(t *testing.T) {
	s := newSite(t)
	acme, rival := s.tenant("Acme"), s.tenant("Rival")
	rb := s.browser()
	rb.signIn(rival.email, testPassword)
	rp := rb.do("GET", "/dashboard/keys", nil)
	rb.do("POST", "/dashboard/keys", url.Values{"csrf": {csrfOf(t, rp.body)}, "name": {"rival-key"}, "scope": {"events:read"}})
	keys, _ := s.store.ListAPIKeys(context.Background(), rival.org.ID)
	if len(keys) != 1 {
		t.Fatalf("rival keys: %d", len(keys))
	}
	b := s.signedIn(acme)
	page := b.do("GET", "/dashboard/keys", nil)
	if strings.Contains(page.body, "rival-key") || strings.Contains(page.body, keys[0].Prefix) {
		t.Error("the key list shows another organization's key")
	}
	csrf := csrfOf(t, page.body)
	if r := b.do("GET", "/dashboard/keys/"+keys[0].ID.String()+"/revoke", nil); r.status != http.StatusNotFound {
		t.Errorf("confirming another organization's key: %d", r.status)
	}
	if r := b.do("POST", "/dashboard/keys/"+keys[0].ID.String()+"/revoke", url.Values{"csrf": {csrf}}); r.status != http.StatusNotFound {
		t.Errorf("revoking another organization's key: %d", r.status)
	}
	if keys, _ := s.store.ListAPIKeys(context.Background(), rival.org.ID); keys[0].RevokedAt != nil {
		t.Error("another organization's key was revoked")
	}
}

// TestAKeyFormWithAnyProblemCreatesNothing: a lifetime the form does not
// offer, with an otherwise good key, is refused and stores no key; a form
// with several problems lists them all.
func TestAKeyFormWithAnyProblemCreatesNothing(t *testing.T) {
	s := newSite(t)
	acme := s.tenant("Acme")
	b := s.signedIn(acme)
	csrf := csrfOf(t, b.do("GET", "/dashboard/keys", nil).body)
	r := b.do("POST", "/dashboard/keys", url.Values{"csrf": {csrf}, "name": {"sync"}, "scope": {"events:read"}, "expires": {"7"}})
	if r.status != http.StatusBadRequest || !strings.Contains(r.body, "choose one of the offered lifetimes") {
		t.Errorf("an unoffered lifetime: %d", r.status)
	}
	if keys, _ := s.store.ListAPIKeys(context.Background(), acme.org.ID); len(keys) != 0 {
		t.Errorf("a refused form stored %d keys", len(keys))
	}
	r = b.do("POST", "/dashboard/keys", url.Values{"csrf": {csrf}, "name": {" "}, "expires": {"7"}})
	for _, want := range []string{"choose one of the offered lifetimes", "choose at least one scope", "is required"} {
		if !strings.Contains(r.body, want) {
			t.Errorf("the form does not say %q", want)
		}
	}
}

func TestLocationsCreateRenameAndIsolation(t *testing.T) {
	s := newSite(t)
	acme, rival := s.tenant("Acme"), s.tenant("Rival")
	b := s.signedIn(acme)
	page := b.do("GET", "/dashboard/locations", nil)
	if !strings.Contains(page.body, "Acme HQ") || !strings.Contains(page.body, "Acme door") || strings.Contains(page.body, "Rival") {
		t.Fatalf("locations page: %.300s", page.body)
	}
	csrf := csrfOf(t, page.body)
	if r := b.do("POST", "/dashboard/locations", url.Values{"csrf": {csrf}, "name": {"Nightclub"}}); r.status != http.StatusSeeOther {
		t.Fatalf("create: %d %.300s", r.status, r.body)
	}
	if r := b.do("POST", "/dashboard/locations", url.Values{"csrf": {csrf}, "name": {"  "}}); r.status != http.StatusBadRequest {
		t.Errorf("an empty name: %d", r.status)
	}
	if r := b.do("POST", "/dashboard/locations/"+acme.loc.ID.String()+"/rename", url.Values{"csrf": {csrf}, "name": {"Head office"}}); r.status != http.StatusSeeOther {
		t.Errorf("rename: %d", r.status)
	}
	if r := b.do("POST", "/dashboard/locations/"+acme.loc.ID.String()+"/access-points", url.Values{"csrf": {csrf}, "name": {"Roof"}}); r.status != http.StatusSeeOther {
		t.Errorf("add an access point: %d", r.status)
	}
	after := b.do("GET", "/dashboard/locations", nil)
	for _, want := range []string{"Nightclub", "Head office", "Roof"} {
		if !strings.Contains(after.body, want) {
			t.Errorf("the list lacks %s", want)
		}
	}
	// Another organization's location cannot be renamed or extended.
	for _, path := range []string{"/rename", "/access-points"} {
		r := b.do("POST", "/dashboard/locations/"+rival.loc.ID.String()+path, url.Values{"csrf": {csrf}, "name": {"Taken"}})
		if r.status != http.StatusNotFound && r.status != http.StatusBadRequest {
			t.Errorf("%s on another organization's location: %d", path, r.status)
		}
	}
	locs, _, _ := s.store.ListLocations(context.Background(), rival.org.ID, 10, nil, false, nil)
	if locs[0].Name != "Rival HQ" || len(locs[0].AccessPoints) != 1 {
		t.Errorf("another organization's location changed: %+v", locs[0])
	}
}
