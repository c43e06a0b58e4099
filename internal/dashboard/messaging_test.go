package dashboard_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/gatehouse/gatehouse"
	"github.com/gatehouse/gatehouse/internal/service"
)

// TestMessagingKeys: an admin sets a universe's key in a password field,
// sees it by hint only (never the key, not even on a form with a
// problem), and removes it; another organization's admin sees nothing of
// it and cannot remove it; an operator is refused.
func TestMessagingKeys(t *testing.T) {
	s := newSite(t)
	acme, rival := s.tenant("Acme"), s.tenant("Rival")
	admin := s.signedIn(acme)
	// The link says what the page does: a bare "Push" meant nothing
	// until opened.
	if nav := admin.do("GET", "/dashboard/events", nil).body; !strings.Contains(nav, `href="/dashboard/messaging"`) ||
		!strings.Contains(nav, ">Push to servers</a>") {
		t.Error("the admin's nav lacks the page that pushes commands to servers, named so")
	}
	page := admin.do("GET", "/dashboard/messaging", nil)
	if page.status != http.StatusOK || !strings.Contains(page.body, `type="password"`) {
		t.Fatalf("the page: %d, no password field", page.status)
	}
	csrf := csrfOf(t, page.body)
	const key = "oc-key-typed-into-the-form-9f3A"
	bad := admin.do("POST", "/dashboard/messaging", url.Values{"csrf": {csrf}, "universeId": {"x42"}, "apiKey": {key}})
	if bad.status != http.StatusBadRequest || !strings.Contains(bad.body, "universeId") || strings.Contains(bad.body, key) {
		t.Errorf("a bad universe: %d; the key must not be rendered back", bad.status)
	}
	set := admin.do("POST", "/dashboard/messaging", url.Values{"csrf": {csrf}, "universeId": {"42"}, "apiKey": {key}})
	if set.status != http.StatusSeeOther || set.header.Get("Location") != "/dashboard/messaging?set=42" {
		t.Fatalf("set: %d to %q", set.status, set.header.Get("Location"))
	}
	list := admin.do("GET", "/dashboard/messaging?set=42", nil)
	if !strings.Contains(list.body, "…9f3A") || !strings.Contains(list.body, "universe 42 is set") || strings.Contains(list.body, key) {
		t.Errorf("the list after setting: want the hint and the notice, never the key")
	}
	if got, err := service.New(service.Config{Store: s.store}).OpenMessagingKey(context.Background(), acme.org.ID, "42"); err != nil || got != key {
		t.Errorf("the stored key opens as %q, %v", got, err)
	}

	other := s.signedIn(rival)
	if body := other.do("GET", "/dashboard/messaging", nil).body; strings.Contains(body, "9f3A") {
		t.Error("another organization sees Acme's key")
	}
	if r := other.do("POST", "/dashboard/messaging/remove", url.Values{"csrf": {csrfOf(t, other.do("GET", "/dashboard/messaging", nil).body)}, "universeId": {"42"}}); r.status != http.StatusNotFound {
		t.Errorf("another organization removes Acme's key: %d", r.status)
	}
	operator := s.member(acme, "door@acme.test", gatehouse.RoleOperator)
	if nav := operator.do("GET", "/dashboard/events", nil).body; strings.Contains(nav, `href="/dashboard/messaging"`) {
		t.Error("the operator's nav offers the push page")
	}
	opCSRF := csrfOf(t, operator.do("GET", "/dashboard/events", nil).body)
	if r := operator.do("POST", "/dashboard/messaging/remove", url.Values{"csrf": {opCSRF}, "universeId": {"42"}}); r.status != http.StatusForbidden {
		t.Errorf("an operator removes a key: %d, want 403", r.status)
	}
	if r := operator.do("GET", "/dashboard/messaging", nil); r.status != http.StatusForbidden {
		t.Errorf("an operator opens the push page: %d, want 403", r.status)
	}

	removed := admin.do("POST", "/dashboard/messaging/remove", url.Values{"csrf": {csrf}, "universeId": {"42"}})
	if removed.status != http.StatusSeeOther || removed.header.Get("Location") != "/dashboard/messaging?removed=42" {
		t.Fatalf("remove: %d to %q", removed.status, removed.header.Get("Location"))
	}
	if body := admin.do("GET", "/dashboard/messaging", nil).body; strings.Contains(body, "…9f3A") || !strings.Contains(body, "No universe pushes") {
		t.Error("the key is still listed after removal")
	}
}
