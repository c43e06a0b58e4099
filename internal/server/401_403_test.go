package server_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/gatehouse/gatehouse"
	"github.com/gatehouse/gatehouse/internal/auth"
)

func TestUnauthenticated(t *testing.T) {
	e := newEnv(t)
	o := e.newOrg("Acme")
	revoked := e.newKey(o.ID, gatehouse.ScopeEventsRead)
	expired := e.newKeyWith(o.ID, func(k *gatehouse.APIKey) { k.ExpiresAt = ptr(e.clock.Now().Add(time.Minute)) }, gatehouse.ScopeEventsRead)
	unknown, _, _ := gatehouse.GenerateKey()
	// Revoke and expire after a first successful use, so a cached key is tested too.
	for _, k := range []string{revoked, expired} {
		if r := e.get("/api/consumer/v1/events", k); r.status != 200 {
			t.Fatalf("fresh key: %d", r.status)
		}
	}
	keys, _ := e.store.ListAPIKeys(context.Background(), o.ID)
	for _, k := range keys {
		if k.Prefix == revoked[:11] {
			must(t, errOnly(e.store.RevokeAPIKey(context.Background(), gatehouse.SystemEntry(gatehouse.AuditAPIKeyRevoked), o.ID, k.ID, e.clock.Now())))
		}
	}
	e.clock.Advance(time.Minute + auth.CacheTTL)

	for _, tc := range []struct {
		name, header, challenge string
	}{
		{"missing", "", `Bearer realm="gatehouse"`},
		{"not bearer", "Basic " + o.readKey, `Bearer realm="gatehouse", error="invalid_token"`},
		{"malformed", "Bearer gk_short", `Bearer realm="gatehouse", error="invalid_token"`},
		{"bad checksum", "Bearer " + otherLast(o.readKey), `Bearer realm="gatehouse", error="invalid_token"`},
		{"unknown", "Bearer " + unknown, `Bearer realm="gatehouse", error="invalid_token"`},
		{"revoked", "Bearer " + revoked, `Bearer realm="gatehouse", error="invalid_token"`},
		{"expired", "Bearer " + expired, `Bearer realm="gatehouse", error="invalid_token"`},
	} {
		r := e.do(http.MethodGet, "/api/consumer/v1/events", "", nil, "Authorization", tc.header)
		if r.status != http.StatusUnauthorized {
			t.Errorf("%s: status %d", tc.name, r.status)
			continue
		}
		if got := r.header.Get("WWW-Authenticate"); got != tc.challenge {
			t.Errorf("%s: WWW-Authenticate %q, want %q", tc.name, got, tc.challenge)
		}
		if code := r.apiError(t).Code; code != "unauthenticated" {
			t.Errorf("%s: code %q", tc.name, code)
		}
	}
	// The scheme is case-insensitive.
	if r := e.do(http.MethodGet, "/api/consumer/v1/events", "", nil, "Authorization", "bearer "+o.readKey); r.status != 200 {
		t.Errorf("lower-case scheme: %d", r.status)
	}
}

func errOnly[T any](_ T, err error) error { return err }

func TestInsufficientScope(t *testing.T) {
	e := newEnv(t)
	o := e.newOrg("Acme")
	for _, tc := range []struct {
		method, path, body string
		scope              gatehouse.Scope
	}{
		{"GET", "/api/consumer/v1/events", "", gatehouse.ScopeEventsRead},
		{"POST", "/api/consumer/v1/events", `{"events":[]}`, gatehouse.ScopeEventsWrite},
		{"GET", "/api/consumer/v1/locations", "", gatehouse.ScopeLocationsRead},
		{"GET", "/api/consumer/v1/audit-log", "", gatehouse.ScopeAuditRead},
		// A game server decides and reads its universe's policies; only a
		// policies:write key reads or changes one access point's policy.
		{"POST", "/api/consumer/v1/decisions", `{"accessPointId": "` + o.accessPoints[0].ID.String() + `", "platformUserId": "1", "record": true}`, gatehouse.ScopeGameServer},
		{"GET", "/api/consumer/v1/policies?universeId=42", "", gatehouse.ScopeGameServer},
		{"GET", "/api/consumer/v1/access-points/" + o.accessPoints[0].ID.String() + "/policy", "", gatehouse.ScopePoliciesWrite},
		{"PUT", "/api/consumer/v1/access-points/" + o.accessPoints[0].ID.String() + "/policy", `{"mode": "OPEN"}`, gatehouse.ScopePoliciesWrite},
		// Archiving, restoring and deleting need locations:write, which
		// no other scope implies (locations:read included).
		{"POST", "/api/consumer/v1/locations/" + o.locations[0].ID.String() + "/archive", "", gatehouse.ScopeLocationsWrite},
		{"POST", "/api/consumer/v1/locations/" + o.locations[0].ID.String() + "/restore", "", gatehouse.ScopeLocationsWrite},
		{"DELETE", "/api/consumer/v1/locations/" + o.locations[0].ID.String(), "", gatehouse.ScopeLocationsWrite},
		{"POST", "/api/consumer/v1/access-points/" + o.accessPoints[0].ID.String() + "/archive", "", gatehouse.ScopeLocationsWrite},
		{"POST", "/api/consumer/v1/access-points/" + o.accessPoints[0].ID.String() + "/restore", "", gatehouse.ScopeLocationsWrite},
		{"DELETE", "/api/consumer/v1/access-points/" + o.accessPoints[0].ID.String(), "", gatehouse.ScopeLocationsWrite},
	} {
		var others []gatehouse.Scope
		for _, s := range gatehouse.Scopes {
			if s != tc.scope {
				others = append(others, s)
			}
		}
		key := e.newKey(o.ID, others...)
		var r response
		switch tc.method {
		case "GET":
			r = e.get(tc.path, key)
		case "PUT":
			r = e.put(tc.path, key, tc.body)
		case "DELETE":
			r = e.do(http.MethodDelete, tc.path, key, nil)
		default:
			r = e.post(tc.path, key, tc.body)
		}
		if r.status != http.StatusForbidden {
			t.Errorf("%s %s: status %d", tc.method, tc.path, r.status)
			continue
		}
		want := `Bearer realm="gatehouse", error="insufficient_scope", scope="` + string(tc.scope) + `"`
		if got := r.header.Get("WWW-Authenticate"); got != want {
			t.Errorf("%s %s: WWW-Authenticate %q, want %q", tc.method, tc.path, got, want)
		}
		if r.apiError(t).Code != "insufficient_scope" || r.header.Get("RateLimit-Policy") == "" {
			t.Errorf("%s %s: %s %v", tc.method, tc.path, r.body, r.header)
		}
	}
}

// otherLast changes a key's last checksum character, so the checksum fails.
func otherLast(raw string) string {
	if raw[40] == 'x' {
		return raw[:40] + "y"
	}
	return raw[:40] + "x"
}

// TestWebhooksWriteAloneReadsNoEvents: a key with webhooks:write but not
// events:read could read every event through an endpoint of its own,
// replayed from the feed's start, and without commands:write every
// command. Making, changing into, or replaying an endpoint that receives
// events needs events:read as well; making or changing one that receives
// command changes needs commands:write as well.
func TestWebhooksWriteAloneReadsNoEvents(t *testing.T) {
	e := newEnv(t)
	o := e.newOrg("Acme")
	hooksOnly := e.newKey(o.ID, gatehouse.ScopeWebhooksWrite)
	both := e.newKey(o.ID, gatehouse.ScopeWebhooksWrite, gatehouse.ScopeEventsRead)
	commands := e.newKey(o.ID, gatehouse.ScopeWebhooksWrite, gatehouse.ScopeCommandsWrite)
	refusedFor := func(scope, what string, r response) {
		t.Helper()
		want := `Bearer realm="gatehouse", error="insufficient_scope", scope="` + scope + `"`
		if r.status != http.StatusForbidden || r.header.Get("WWW-Authenticate") != want || r.apiError(t).Code != "insufficient_scope" {
			t.Errorf("%s without %s: %d %s %q, want 403 insufficient_scope naming it",
				what, scope, r.status, r.body, r.header.Get("WWW-Authenticate"))
		}
	}
	refused := func(what string, r response) { t.Helper(); refusedFor("events:read", what, r) }
	refused("POST /webhooks (events by default)", e.post("/api/consumer/v1/webhooks", hooksOnly, `{"url": "https://hooks.example.com/x"}`))
	refused("POST /webhooks event.created", e.post("/api/consumer/v1/webhooks", hooksOnly,
		`{"url": "https://hooks.example.com/x", "types": ["command.updated", "event.created"]}`))

	refusedFor("commands:write", "POST /webhooks command.updated", e.post("/api/consumer/v1/webhooks", hooksOnly,
		`{"url": "https://hooks.example.com/c", "types": ["command.updated"]}`))
	cmds := e.createWebhook(commands, `{"url": "https://hooks.example.com/c", "types": ["command.updated"]}`)
	refusedFor("commands:write", "PATCH the URL of a command endpoint", e.do(http.MethodPatch, "/api/consumer/v1/webhooks/"+cmds.ID.String(), hooksOnly,
		strings.NewReader(`{"url": "https://attacker.example.com/c"}`), "Content-Type", "application/json"))
	refused("PATCH types to event.created", e.do(http.MethodPatch, "/api/consumer/v1/webhooks/"+cmds.ID.String(), commands,
		strings.NewReader(`{"types": ["event.created"]}`), "Content-Type", "application/json"))
	refused("POST /replay", e.post("/api/consumer/v1/webhooks/"+cmds.ID.String()+"/replay", commands, `{"from": "start"}`))

	events := e.createWebhook(both, `{"url": "https://hooks.example.com/e"}`)
	refused("PATCH the URL of an events endpoint", e.do(http.MethodPatch, "/api/consumer/v1/webhooks/"+events.ID.String(), hooksOnly,
		strings.NewReader(`{"url": "https://attacker.example.com/e"}`), "Content-Type", "application/json"))
	refused("POST /replay of an events endpoint", e.post("/api/consumer/v1/webhooks/"+events.ID.String()+"/replay", hooksOnly, `{"from": "start"}`))
	if r := e.post("/api/consumer/v1/webhooks/"+events.ID.String()+"/replay", both, `{"from": "start"}`); r.status != http.StatusOK {
		t.Errorf("replay with both scopes: %d %s", r.status, r.body)
	}
	if r := e.get("/api/consumer/v1/webhooks/"+events.ID.String(), hooksOnly); r.status != http.StatusOK || strings.Contains(string(r.body), "attacker") {
		t.Errorf("GET after the refused change: %d %s", r.status, r.body)
	}
}
