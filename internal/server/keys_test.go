package server_test

import (
	"context"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gatehouse/gatehouse"
	"github.com/gatehouse/gatehouse/internal/auth"
)

// keyView is an API key as GET /keys and PATCH /keys/{id} answer it.
type keyView struct {
	ID          string   `json:"id"`
	Prefix      string   `json:"prefix"`
	Scopes      []string `json:"scopes"`
	RateLimit   *string  `json:"rateLimit"`
	Status      string   `json:"status"`
	ExpiresSoon bool     `json:"expiresSoon"`
}

func (e *env) patch(path, key, body string) response {
	e.t.Helper()
	return e.do(http.MethodPatch, path, key, strings.NewReader(body), "Content-Type", "application/json")
}

// keyID finds the id of a raw key through the store.
func (e *env) keyID(raw string) string {
	e.t.Helper()
	h, err := gatehouse.ParseKey(raw)
	must(e.t, err)
	k, err := e.store.FindAPIKeyByHash(context.Background(), h)
	must(e.t, err)
	return k.ID.String()
}

// TestKeysListedWithoutSecrets: GET /keys lists the organization's keys
// only, never a raw key, and marks those that expire within 14 days.
func TestKeysListedWithoutSecrets(t *testing.T) {
	e := newEnv(t)
	o, rival := e.newOrg("Acme"), e.newOrg("Rival")
	manager := e.newKey(o.ID, gatehouse.ScopeKeysWrite)
	soon := e.newKeyWith(o.ID, func(k *gatehouse.APIKey) { k.ExpiresAt = ptr(e.clock.Now().Add(3 * 24 * time.Hour)) }, gatehouse.ScopeEventsRead)
	later := e.newKeyWith(o.ID, func(k *gatehouse.APIKey) { k.ExpiresAt = ptr(e.clock.Now().Add(30 * 24 * time.Hour)) }, gatehouse.ScopeEventsRead)

	r := e.get("/api/consumer/v1/keys", manager)
	var list struct{ Data []keyView }
	r.decode(t, &list)
	if r.status != 200 || len(list.Data) != 5 {
		t.Fatalf("GET /keys: %d, %d keys, want the organization's 5: %s", r.status, len(list.Data), r.body)
	}
	for _, raw := range []string{o.readKey, o.allKey, manager, soon, later, rival.readKey} {
		if strings.Contains(string(r.body), raw[len(gatehouse.KeyPrefix)+8:]) {
			t.Errorf("GET /keys shows more of a key than its prefix: %s", r.body)
		}
	}
	for _, k := range list.Data {
		if k.ID == e.keyID(rival.readKey) {
			t.Error("GET /keys lists another organization's key")
		}
		if want := k.ID == e.keyID(soon); k.ExpiresSoon != want {
			t.Errorf("key %s: expiresSoon %v, want %v", k.Prefix, k.ExpiresSoon, want)
		}
	}
	if r := e.get("/api/consumer/v1/keys", o.readKey); r.status != 403 || r.apiError(t).Code != "insufficient_scope" {
		t.Errorf("GET /keys without keys:write: %d %s", r.status, r.body)
	}
}

// TestKeyRateChangedThroughTheAPI: a key with keys:write changes a game
// server key's rate; the new rate, and its burst, apply within CacheTTL;
// null brings back the server's. A key never changes itself nor another
// key manager, nor a key of another organization.
func TestKeyRateChangedThroughTheAPI(t *testing.T) {
	e := newEnv(t, withKeyLimit(gatehouse.Rate{Count: 2, Per: time.Second}, 3))
	o, rival := e.newOrg("Acme"), e.newOrg("Rival")
	manager := e.newKey(o.ID, gatehouse.ScopeKeysWrite)
	otherManager := e.newKey(o.ID, gatehouse.ScopeKeysWrite, gatehouse.ScopeEventsRead)
	game := e.newKey(o.ID, gatehouse.ScopeGameServer, gatehouse.ScopeEventsWrite, gatehouse.ScopeLocationsRead)
	path := "/api/consumer/v1/keys/" + e.keyID(game)

	for range 3 {
		e.get("/api/consumer/v1/locations", game)
	}
	if r := e.get("/api/consumer/v1/locations", game); r.status != 429 {
		t.Fatalf("past the server's burst of 3: %d", r.status)
	}
	r := e.patch(path, manager, `{"rateLimit":"150/s"}`)
	var got keyView
	r.decode(t, &got)
	if r.status != 200 || got.RateLimit == nil || *got.RateLimit != "150/s" || got.ID != e.keyID(game) {
		t.Fatalf("PATCH rateLimit 150/s: %d %s", r.status, r.body)
	}
	e.clock.Advance(auth.CacheTTL)
	r = e.get("/api/consumer/v1/locations", game)
	if r.status != 200 || r.header.Get("RateLimit-Policy") != `"default";q=300;w=2` {
		t.Fatalf("after the change: %d, RateLimit-Policy %q, want q=300 (two seconds of 150/s)", r.status, r.header.Get("RateLimit-Policy"))
	}

	r = e.patch(path, manager, `{"rateLimit":null}`)
	if r.decode(t, &got); r.status != 200 || got.RateLimit != nil {
		t.Fatalf("PATCH rateLimit null: %d %s", r.status, r.body)
	}
	e.clock.Advance(auth.CacheTTL)
	if r := e.get("/api/consumer/v1/locations", game); r.header.Get("RateLimit-Policy") != `"default";q=3;w=2` {
		t.Errorf("back to the server's rate: RateLimit-Policy %q", r.header.Get("RateLimit-Policy"))
	}
	if r := e.patch(path, manager, `{}`); r.status != 200 {
		t.Errorf("PATCH without rateLimit: %d %s", r.status, r.body)
	}

	for _, c := range []struct {
		what, key, path, body string
		status                int
		code                  string
	}{
		{"its own rate", manager, "/api/consumer/v1/keys/" + e.keyID(manager), `{"rateLimit":"1000/s"}`, 403, "key_not_changeable"},
		{"another key manager's", manager, "/api/consumer/v1/keys/" + e.keyID(otherManager), `{"rateLimit":"1000/s"}`, 403, "key_not_changeable"},
		{"another organization's key", manager, "/api/consumer/v1/keys/" + e.keyID(rival.readKey), `{"rateLimit":"1/m"}`, 404, "not_found"},
		{"without keys:write", o.readKey, path, `{"rateLimit":"1000/s"}`, 403, "insufficient_scope"},
		{"a malformed rate", manager, path, `{"rateLimit":"fast"}`, 400, "validation_failed"},
		{"a zero rate", manager, path, `{"rateLimit":"0/s"}`, 400, "validation_failed"},
		{"an unknown field", manager, path, `{"burst":100}`, 400, "validation_failed"},
		{"a malformed id", manager, "/api/consumer/v1/keys/nope", `{"rateLimit":"1/s"}`, 400, "validation_failed"},
	} {
		e.clock.Advance(time.Second) // the manager's bucket of 2/s refills
		r := e.patch(c.path, c.key, c.body)
		if r.status != c.status || r.apiError(t).Code != c.code {
			t.Errorf("%s: %d %s, want %d %s", c.what, r.status, r.body, c.status, c.code)
		}
	}
	keys, err := e.store.ListAPIKeys(context.Background(), o.ID)
	must(t, err)
	if i := slices.IndexFunc(keys, func(k gatehouse.APIKey) bool { return k.RateLimit != nil }); i >= 0 {
		t.Errorf("a refused change went through: %s has rate %v", keys[i].Prefix, keys[i].RateLimit)
	}
	entries, err := e.svc.ListAuditLog(context.Background(), o.ID, gatehouse.AuditFilter{Action: gatehouse.AuditAPIKeyRateChanged, Limit: 10})
	must(t, err)
	if len(entries.Entries) != 2 || entries.Entries[0].Actor.Type != gatehouse.ActorKey {
		t.Errorf("audit: %+v, want two changes by the key", entries.Entries)
	}
}

// TestMetricsCountKeysExpiringSoon: /metrics, which needs no key, counts
// the keys of every organization that expire within 14 days, and names
// no organization nor key.
func TestMetricsCountKeysExpiringSoon(t *testing.T) {
	e := newEnv(t)
	o, rival := e.newOrg("Acme"), e.newOrg("Rival")
	metric := func() string {
		for line := range strings.SplitSeq(string(e.get("/metrics", "").body), "\n") {
			if strings.HasPrefix(line, "gatehouse_api_keys_expiring") {
				return line
			}
		}
		return ""
	}
	if got := metric(); got != "gatehouse_api_keys_expiring 0" {
		t.Fatalf("with no key expiring: %q", got)
	}
	in := func(d time.Duration) func(*gatehouse.APIKey) {
		return func(k *gatehouse.APIKey) { k.ExpiresAt = ptr(e.clock.Now().Add(d)) }
	}
	soon := e.newKeyWith(o.ID, in(3*24*time.Hour), gatehouse.ScopeGameServer)
	e.newKeyWith(rival.ID, in(13*24*time.Hour), gatehouse.ScopeEventsRead)
	e.newKeyWith(o.ID, in(30*24*time.Hour), gatehouse.ScopeEventsRead)
	if got := metric(); got != "gatehouse_api_keys_expiring 2" {
		t.Errorf("with two keys of two organizations expiring: %q", got)
	}
	body := string(e.get("/metrics", "").body)
	for _, secret := range []string{o.ID.String(), rival.ID.String(), "Acme", "Rival", e.keyID(soon), soon[:11]} {
		if strings.Contains(body, secret) {
			t.Errorf("/metrics names %q", secret)
		}
	}
	e.clock.Advance(4 * 24 * time.Hour)
	if got := metric(); got != "gatehouse_api_keys_expiring 1" {
		t.Errorf("once one has expired: %q", got)
	}
}
