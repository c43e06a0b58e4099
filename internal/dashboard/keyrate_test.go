package dashboard_test

import (
	"context"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/gatehouse/gatehouse"
	"github.com/gatehouse/gatehouse/internal/auth"
)

// TestGameServerPresetFillsTheForm: the "Game server" preset checks
// exactly the scopes the game SDK calls, never expires, and fills the
// rate for hundreds of servers; the key created from it has them.
func TestGameServerPresetFillsTheForm(t *testing.T) {
	s := newSite(t)
	acme := s.tenant("Acme")
	b := s.signedIn(acme)
	page := b.do("GET", "/dashboard/keys?preset=game-server", nil)
	checked := regexp.MustCompile(`name="scope" value="([^"]+)" checked`).FindAllStringSubmatch(page.body, -1)
	var scopes []string
	for _, m := range checked {
		scopes = append(scopes, m[1])
	}
	if strings.Join(scopes, ",") != "events:write,server" {
		t.Errorf("the preset checks %v, want server and events:write only", scopes)
	}
	if !strings.Contains(page.body, `<option value="" selected>never</option>`) {
		t.Error("the preset's key expires")
	}
	if !strings.Contains(page.body, `name="rate" value="150/s"`) {
		t.Error("the preset's rate is not 150/s")
	}
	form := url.Values{"csrf": {csrfOf(t, page.body)}, "name": {"game-servers"}, "scope": scopes, "expires": {""}, "rate": {"150/s"}}
	if r := b.do("POST", "/dashboard/keys", form); r.status != http.StatusSeeOther {
		t.Fatalf("create from the preset: %d %.300s", r.status, r.body)
	}
	keys, _ := s.store.ListAPIKeys(context.Background(), acme.org.ID)
	if len(keys) != 1 || keys[0].ExpiresAt != nil || keys[0].RateLimit == nil || *keys[0].RateLimit != gatehouse.GameServerRate {
		t.Fatalf("the preset's key: %+v", keys)
	}
	form.Set("rate", "fast")
	if r := b.do("POST", "/dashboard/keys", form); r.status != http.StatusBadRequest || !strings.Contains(r.body, "want N/s or N/m") {
		t.Errorf("a bad rate: %d", r.status)
	}
}

// TestKeyRateChangedOnTheDashboard: an admin changes a key's rate, which
// the API applies within CacheTTL, and clears it; a bad rate is shown
// back; another organization's key is out of reach; a viewer may not.
func TestKeyRateChangedOnTheDashboard(t *testing.T) {
	s := newSite(t)
	acme, rival := s.tenant("Acme"), s.tenant("Rival")
	ctx := context.Background()
	k, raw, err := s.svc.CreateAPIKey(ctx, gatehouse.NewAPIKey{OrgID: acme.org.ID, Name: "game-servers", Scopes: gatehouse.GameServerScopes})
	if err != nil {
		t.Fatal(err)
	}
	rk, _, err := s.svc.CreateAPIKey(ctx, gatehouse.NewAPIKey{OrgID: rival.org.ID, Name: "theirs", Scopes: []gatehouse.Scope{gatehouse.ScopeEventsRead}})
	if err != nil {
		t.Fatal(err)
	}
	b := s.signedIn(acme)
	list := b.do("GET", "/dashboard/keys", nil)
	if !strings.Contains(list.body, "/dashboard/keys/"+k.ID.String()+"/rate") || !strings.Contains(list.body, "server default") {
		t.Fatal("the keys page offers no rate change, or does not show the default")
	}
	form := b.do("GET", "/dashboard/keys/"+k.ID.String()+"/rate", nil)
	csrf := csrfOf(t, form.body)
	if r := b.do("POST", "/dashboard/keys/"+k.ID.String()+"/rate", url.Values{"csrf": {csrf}, "rate": {"150/s"}}); r.status != http.StatusSeeOther {
		t.Fatalf("set 150/s: %d %.300s", r.status, r.body)
	}
	if !strings.Contains(b.do("GET", "/dashboard/keys", nil).body, "<td>150/s</td>") {
		t.Error("the keys page does not show the new rate")
	}
	s.now = s.now.Add(auth.CacheTTL)
	req, _ := http.NewRequest("GET", s.url+"/api/consumer/v1/policies?universeId=1", nil)
	req.Header.Set("Authorization", "Bearer "+raw)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if got := res.Header.Get("RateLimit-Policy"); got != `"default";q=300;w=2` {
		t.Errorf("the API after the change: RateLimit-Policy %q, want q=300 (two seconds of 150/s)", got)
	}

	if r := b.do("POST", "/dashboard/keys/"+k.ID.String()+"/rate", url.Values{"csrf": {csrf}, "rate": {"fast"}}); r.status != http.StatusBadRequest ||
		!strings.Contains(r.body, "want N/s or N/m") || !strings.Contains(r.body, `value="fast"`) {
		t.Errorf("a bad rate: %d", r.status)
	}
	if r := b.do("POST", "/dashboard/keys/"+k.ID.String()+"/rate", url.Values{"csrf": {csrf}, "rate": {""}}); r.status != http.StatusSeeOther {
		t.Errorf("back to the default: %d", r.status)
	}
	if got, _ := s.store.FindAPIKey(ctx, acme.org.ID, k.ID); got.RateLimit != nil {
		t.Errorf("after clearing: rate %v", got.RateLimit)
	}
	for _, m := range []string{"GET", "POST"} {
		if r := b.do(m, "/dashboard/keys/"+rk.ID.String()+"/rate", url.Values{"csrf": {csrf}, "rate": {"1/m"}}); r.status != http.StatusNotFound {
			t.Errorf("%s another organization's key: %d", m, r.status)
		}
	}
	viewer := s.member(acme, "viewer@example.test", gatehouse.RoleViewer)
	vcsrf := csrfOf(t, viewer.do("GET", "/dashboard/events", nil).body)
	if r := viewer.do("POST", "/dashboard/keys/"+k.ID.String()+"/rate", url.Values{"csrf": {vcsrf}, "rate": {"1000/s"}}); r.status != http.StatusForbidden {
		t.Errorf("a viewer's forged change: %d", r.status)
	}
	if got, _ := s.store.FindAPIKey(ctx, rival.org.ID, rk.ID); got.RateLimit != nil {
		t.Errorf("another organization's key changed: %v", got.RateLimit)
	}
	if got, _ := s.store.FindAPIKey(ctx, acme.org.ID, k.ID); got.RateLimit != nil {
		t.Errorf("the viewer's change went through: %v", got.RateLimit)
	}
}

// TestKeysExpiringSoonAreShown: a key that expires within 14 days is
// marked on the keys page, and both it and the Event Log (where an admin
// looks first) warn of it; a viewer's Event Log does not.
func TestKeysExpiringSoonAreShown(t *testing.T) {
	s := newSite(t)
	acme := s.tenant("Acme")
	ctx := context.Background()
	b := s.signedIn(acme)
	if strings.Contains(b.do("GET", "/dashboard/events", nil).body, "within 14 days") {
		t.Fatal("a warning with no key")
	}
	for _, days := range []int{3, 30} {
		if _, _, err := s.svc.CreateAPIKey(ctx, gatehouse.NewAPIKey{OrgID: acme.org.ID, Name: "k", Scopes: gatehouse.GameServerScopes,
			Lifetime: time.Duration(days) * 24 * time.Hour}); err != nil {
			t.Fatal(err)
		}
	}
	keys := b.do("GET", "/dashboard/keys", nil).body
	if !strings.Contains(keys, "1 key expires</strong>") && !strings.Contains(keys, "1 key expires within 14 days") {
		t.Error("the keys page does not warn of the key expiring in 3 days")
	}
	if n := strings.Count(keys, "expires soon</span>"); n != 1 {
		t.Errorf("%d keys marked as expiring soon, want 1", n)
	}
	if log := b.do("GET", "/dashboard/events", nil).body; !strings.Contains(log, "1 API key expires within 14 days") || !strings.Contains(log, `href="/dashboard/keys"`) {
		t.Error("the Event Log does not warn the admin")
	}
	viewer := s.member(acme, "viewer@example.test", gatehouse.RoleViewer)
	if log := viewer.do("GET", "/dashboard/events", nil); log.status != http.StatusOK || strings.Contains(log.body, "within 14 days") {
		t.Errorf("a viewer's Event Log: %d, or it warns of keys they cannot manage", log.status)
	}
	s.now = s.now.Add(4 * 24 * time.Hour) // the key has expired: no more warning
	if log := b.do("GET", "/dashboard/events", nil).body; strings.Contains(log, "within 14 days") {
		t.Error("the Event Log still warns of an expired key")
	}
}
