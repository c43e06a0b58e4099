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

// TestKeysNeverLeak runs a session with valid, revoked, expired,
// wrong-scope and malformed keys, sent in headers and pasted into query
// parameters, and checks that no raw key appears in any log line, response
// header or body.
func TestKeysNeverLeak(t *testing.T) {
	e := newEnv(t)
	o := e.newOrg("Acme")
	wrongScope := e.newKey(o.ID, gatehouse.ScopeLocationsRead)
	revoked := e.newKey(o.ID, gatehouse.ScopeEventsRead)
	expired := e.newKeyWith(o.ID, func(k *gatehouse.APIKey) { k.ExpiresAt = ptr(e.clock.Now()) }, gatehouse.ScopeEventsRead)
	keys, _ := e.store.ListAPIKeys(context.Background(), o.ID)
	for _, k := range keys {
		if k.Prefix == revoked[:11] {
			must(t, errOnly(e.store.RevokeAPIKey(context.Background(), gatehouse.SystemEntry(gatehouse.AuditAPIKeyRevoked), o.ID, k.ID, e.clock.Now())))
		}
	}
	e.clock.Advance(auth.CacheTTL)
	malformed := o.readKey[:40] + "!"
	secrets := []string{o.readKey, o.allKey, wrongScope, revoked, expired, malformed}
	e.ingest(o, e.ev(o.accessPoints[0], gatehouse.EventAccessGranted, 1))

	var seen []response
	for _, k := range secrets {
		seen = append(seen,
			e.get("/api/consumer/v1/events", k),
			e.get("/api/consumer/v1/events?q="+k, k),
			e.get("/api/consumer/v1/events?platformUserId="+k+"&limit=0", k),
			e.get("/api/consumer/v1/events?"+k+"=1", k),
			e.get("/api/consumer/v1/locations", k),
			e.get("/nope/"+k, k),
			e.post("/api/consumer/v1/events", k, `{"events":[{"type":"`+k+`"}]}`),
			e.post("/api/consumer/v1/events", k, `{"events":[{"`+k+`":1}]}`), // a key as a field name
			e.post("/api/consumer/v1/events", k, `{"`+k+`":[]}`),
			e.do(http.MethodGet, "/api/consumer/v1/events", k, nil, "X-Request-Id", k),
			e.do(http.MethodGet, "/nope", "", nil, "X-Request-Id", k),
			e.do(k, "/api/consumer/v1/events", "", nil), // a key as the method: 405, and the access log
			e.do(http.MethodGet, "/api/consumer/v1/events", "", nil, "Authorization", "Basic "+k),
			e.do(http.MethodGet, "/api/consumer/v1/events", "", nil, "Authorization", "Bearer "+k+" extra"),
		)
		e.clock.Advance(time.Second) // keep the address out of the failed-auth block
	}
	logs := e.logs.String()
	if !strings.Contains(logs, `"status":401`) || !strings.Contains(logs, o.readKey[:11]) {
		t.Fatalf("the log does not show the session:\n%s", logs)
	}
	for _, k := range secrets {
		if strings.Contains(logs, k) {
			t.Errorf("log contains key %s…", k[:11])
		}
		for _, r := range seen {
			if strings.Contains(string(r.body), k) {
				t.Errorf("response body contains key %s…: %s", k[:11], r.body)
			}
			for name, vals := range r.header {
				if strings.Contains(strings.Join(vals, " "), k) {
					t.Errorf("response header %s contains key %s…", name, k[:11])
				}
			}
		}
	}
}
