package server_test

import (
	"encoding/json"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gatehouse/gatehouse"
	"github.com/gatehouse/gatehouse/internal/apitest"
)

// TestOpenAPIDescribesEveryRoute checks the served document against the
// routes: every documented operation is served, and every route that
// answers is documented.
func TestOpenAPIDescribesEveryRoute(t *testing.T) {
	e := newEnv(t)
	var doc struct {
		OpenAPI string                                `json:"openapi"`
		Paths   map[string]map[string]json.RawMessage `json:"paths"`
	}
	e.get("/api/consumer/v1/openapi.json", "").decode(t, &doc)
	if doc.OpenAPI != "3.1.0" {
		t.Fatalf("openapi %q", doc.OpenAPI)
	}
	var documented []string
	for path, ops := range doc.Paths {
		for method := range ops {
			documented = append(documented, strings.ToUpper(method)+" "+path)
		}
	}
	slices.Sort(documented)
	served := []string{
		"DELETE /api/consumer/v1/messaging/{universeId}",
		"GET /api/consumer/v1/access-points/{id}/policy",
		"GET /api/consumer/v1/audit-log", "GET /api/consumer/v1/commands", "GET /api/consumer/v1/commands/{id}", "GET /api/consumer/v1/events",
		"GET /api/consumer/v1/events/feed",
		"GET /api/consumer/v1/locations", "GET /api/consumer/v1/locations/{id}/live", "GET /api/consumer/v1/messaging", "GET /api/consumer/v1/openapi.json", "GET /api/consumer/v1/policies",
		"GET /docs", "GET /docs/assets/redoc.standalone.js", "GET /healthz", "GET /metrics", "GET /readyz",
		"POST /api/consumer/v1/commands", "POST /api/consumer/v1/commands/{id}/cancel", "POST /api/consumer/v1/decisions", "POST /api/consumer/v1/events",
		"POST /api/consumer/v1/servers/{serverJobId}/sync",
		"PUT /api/consumer/v1/access-points/{id}/policy", "PUT /api/consumer/v1/messaging/{universeId}",
		"DELETE /api/consumer/v1/webhooks/{id}", "GET /api/consumer/v1/webhooks", "GET /api/consumer/v1/webhooks/{id}",
		"GET /api/consumer/v1/webhooks/{id}/deliveries", "PATCH /api/consumer/v1/webhooks/{id}", "POST /api/consumer/v1/webhooks",
		"POST /api/consumer/v1/webhooks/{id}/deliveries/{deliveryId}/redeliver", "POST /api/consumer/v1/webhooks/{id}/replay",
		"POST /api/consumer/v1/webhooks/{id}/test", "POST /api/consumer/v1/webhooks/{id}/rotate-secret",
		"DELETE /api/consumer/v1/platform-users/{platformUserId}", "GET /api/consumer/v1/organization/settings",
		"PATCH /api/consumer/v1/organization/settings", "GET /api/consumer/v1/privacy/erasure-requests",
		"POST /api/consumer/v1/integrations/roblox/erasure/{token}",
		"GET /api/consumer/v1/keys", "PATCH /api/consumer/v1/keys/{id}",
		"POST /api/consumer/v1/alert-rules", "GET /api/consumer/v1/alert-rules", "GET /api/consumer/v1/alert-rules/{id}",
		"PATCH /api/consumer/v1/alert-rules/{id}", "DELETE /api/consumer/v1/alert-rules/{id}", "POST /api/consumer/v1/alert-rules/{id}/test",
		"GET /api/consumer/v1/alerts", "GET /api/consumer/v1/alerts/{id}",
		"GET /api/consumer/v1/insights",
		"POST /api/consumer/v1/grants", "GET /api/consumer/v1/grants", "GET /api/consumer/v1/grants/{id}", "DELETE /api/consumer/v1/grants/{id}",
		"POST /api/consumer/v1/lockdowns", "GET /api/consumer/v1/lockdowns", "GET /api/consumer/v1/lockdowns/{id}",
		"POST /api/consumer/v1/lockdowns/{id}/release",
		"POST /api/consumer/v1/locations/{id}/archive", "POST /api/consumer/v1/locations/{id}/restore", "DELETE /api/consumer/v1/locations/{id}",
		"POST /api/consumer/v1/access-points/{id}/archive", "POST /api/consumer/v1/access-points/{id}/restore",
		"DELETE /api/consumer/v1/access-points/{id}",
	}
	slices.Sort(served)
	if !slices.Equal(documented, served) {
		t.Errorf("documented %v, served %v", documented, served)
	}
	for _, op := range served {
		method, path, _ := strings.Cut(op, " ")
		path = strings.NewReplacer("{id}", "01a203e2-9b00-7000-8a1b-2c3d4e5f6a01", "{serverJobId}", "job-1",
			"{deliveryId}", "01a203e2-9b00-7000-8a1b-2c3d4e5f6a02", "{platformUserId}", "261", "{token}", "t").Replace(path)
		if r := e.do(method, path, "", nil); r.status == 404 && strings.Contains(string(r.body), "no route") || r.status == 405 {
			t.Errorf("%s is documented but answers %d", op, r.status)
		}
	}
}

// TestOpenAPICheckCatchesDrift shows that the check every exchange of this
// suite goes through fails on what the document does not describe: each
// case changes one real, valid exchange the way a code change would.
func TestOpenAPICheckCatchesDrift(t *testing.T) {
	e := newEnv(t)
	o := e.newOrg("Acme")
	e.ingest(o, gatehouse.NewEvent{Type: gatehouse.EventAccessGranted, OccurredAt: e.clock.Now().Add(-time.Minute),
		Allowed: ptr(gatehouse.Granted), AccessPointID: o.accessPoints[0].ID, PlatformUserID: ptr("111")})
	path := "/api/consumer/v1/events?limit=10"
	r := e.get(path, o.readKey) // checked on the way, and valid
	if r.status != 200 {
		t.Fatalf("%d %s", r.status, r.body)
	}
	req, _ := http.NewRequest("GET", e.url+path, nil)
	req.Header.Set("Authorization", "Bearer "+o.readKey)
	check := apitest.Document(t)
	if err := check.Check(req, nil, r.status, r.header, r.body); err != nil {
		t.Fatalf("the unchanged exchange fails: %v", err)
	}
	withHeader := func(name, value string) http.Header {
		h := r.header.Clone()
		h.Set(name, value)
		return h
	}
	without := func(name string) http.Header {
		h := r.header.Clone()
		h.Del(name)
		return h
	}
	replace := func(old, new string) []byte {
		if !strings.Contains(string(r.body), old) {
			t.Fatalf("the body has no %s", old)
		}
		return []byte(strings.Replace(string(r.body), old, new, 1))
	}
	for _, tc := range []struct {
		name   string
		status int
		header http.Header
		body   []byte
	}{
		{"a field added to an event", 200, r.header, replace(`"type":`, `"color":"red","type":`)},
		{"a field added to the envelope", 200, r.header, replace(`"nextCursor":`, `"total":1,"nextCursor":`)},
		{"a field added to meta", 200, r.header, replace(`"limit":`, `"offset":0,"limit":`)},
		{"a field removed", 200, r.header, replace(`"receivedAt":`, `"receivedAtX":`)},
		{"a value outside its enum", 200, r.header, replace(`"ACCESS_GRANTED"`, `"ACCESS_MAYBE"`)},
		{"a timestamp that is not one", 200, r.header, replace(`"occurredAt":"`, `"occurredAt":"yesterday `)},
		{"an undocumented status", 418, r.header, r.body},
		{"an undocumented header", 200, withHeader("X-Powered-By", "Go"), r.body},
		{"a required header missing", 200, without("X-Request-Id"), r.body},
	} {
		if err := check.Check(req, nil, tc.status, tc.header, tc.body); err == nil {
			t.Errorf("%s: the check passed", tc.name)
		}
	}
	// A request the document rejects, which the server must not accept.
	bad, _ := http.NewRequest("GET", e.url+"/api/consumer/v1/events?limit=5000", nil)
	bad.Header.Set("Authorization", "Bearer "+o.readKey)
	if err := check.Check(bad, nil, 200, r.header, r.body); err == nil {
		t.Error("a 200 to limit=5000 passed the check")
	}
}

// TestReferencePage serves the reference renderer from the binary, and
// the page points it at the served document.
func TestReferencePage(t *testing.T) {
	e := newEnv(t)
	page := e.get("/docs", "")
	if page.status != 200 || !strings.HasPrefix(page.header.Get("Content-Type"), "text/html") {
		t.Fatalf("/docs: %d %s", page.status, page.header.Get("Content-Type"))
	}
	for _, want := range []string{`spec-url="/api/consumer/v1/openapi.json"`, `src="/docs/assets/redoc.standalone.js"`} {
		if !strings.Contains(string(page.body), want) {
			t.Errorf("/docs lacks %s", want)
		}
	}
	if csp := page.header.Get("Content-Security-Policy"); !strings.Contains(csp, "script-src 'self'") {
		t.Errorf("Content-Security-Policy %q", csp)
	}
	script := e.get("/docs/assets/redoc.standalone.js", "")
	if script.status != 200 || len(script.body) < 500_000 || !strings.Contains(string(script.body[:200]), "license") {
		t.Errorf("renderer: %d, %d bytes", script.status, len(script.body))
	}
}

// TestOpenAPIListsEveryAuditAction: every list of audit actions in the
// document (the audit log's filter, its entries' action, an audit alert
// rule's actions) names each action Gatehouse records, and no other. The
// entries' list once lacked policy.changed, so that a client checking
// answers against the document refused an audit log with a policy change.
func TestOpenAPIListsEveryAuditAction(t *testing.T) {
	e := newEnv(t)
	var doc any
	e.get("/api/consumer/v1/openapi.json", "").decode(t, &doc)
	var want []string
	for _, a := range gatehouse.AuditActions {
		want = append(want, string(a))
	}
	slices.Sort(want)
	lists := 0
	var walk func(at string, v any)
	walk = func(at string, v any) {
		switch v := v.(type) {
		case map[string]any:
			if enum, ok := v["enum"].([]any); ok && slices.Contains(enum, any(string(gatehouse.AuditSignedIn))) {
				lists++
				var got []string
				for _, a := range enum {
					got = append(got, a.(string))
				}
				slices.Sort(got)
				if !slices.Equal(got, want) {
					t.Errorf("%s lists %v, want %v", at, got, want)
				}
			}
			for k, e := range v {
				walk(at+"/"+k, e)
			}
		case []any:
			for i, e := range v {
				walk(at+"/"+strconv.Itoa(i), e)
			}
		}
	}
	walk("", doc)
	if lists < 3 {
		t.Errorf("found %d lists of audit actions, want the filter's, the entries' and the alert rules'", lists)
	}
}
