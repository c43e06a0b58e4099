package server_test

import (
	"net/http"
	"testing"
)

func TestUnknownRoutesAnswerJSON(t *testing.T) {
	e := newEnv(t)
	for _, tc := range []struct {
		method, path string
		status       int
		code, allow  string
	}{
		{"GET", "/nope", 404, "not_found", ""},
		{"GET", "/api/consumer/v1/events/123", 404, "not_found", ""},
		{"GET", "/api/consumer/v2/events", 404, "not_found", ""},
		{"DELETE", "/api/consumer/v1/events", 405, "method_not_allowed", "GET, HEAD, POST"},
		{"POST", "/api/consumer/v1/locations", 405, "method_not_allowed", "GET, HEAD"},
		{"PUT", "/healthz", 405, "method_not_allowed", "GET, HEAD"},
		{"GET", "/api/consumer/v1/decisions", 405, "method_not_allowed", "POST"},
		{"POST", "/api/consumer/v1/policies", 405, "method_not_allowed", "GET, HEAD"},
		{"DELETE", "/api/consumer/v1/access-points/01a203e2-982e-77e9-8468-123320466514/policy", 405, "method_not_allowed", "GET, HEAD, PUT"},
		{"GET", "/api/consumer/v1/access-points/01a203e2-982e-77e9-8468-123320466514", 405, "method_not_allowed", "DELETE"},
		{"GET", "/api/consumer/v1/access-points/01a203e2-982e-77e9-8468-123320466514/nope", 404, "not_found", ""},
	} {
		r := e.do(tc.method, tc.path, "", nil)
		if r.status != tc.status || r.header.Get("Content-Type") != "application/json" {
			t.Errorf("%s %s: %d %q", tc.method, tc.path, r.status, r.header.Get("Content-Type"))
			continue
		}
		if got := r.apiError(t).Code; got != tc.code {
			t.Errorf("%s %s: code %q", tc.method, tc.path, got)
		}
		if got := r.header.Get("Allow"); got != tc.allow {
			t.Errorf("%s %s: Allow %q, want %q", tc.method, tc.path, got, tc.allow)
		}
	}
}

func TestEveryResponseHasARequestID(t *testing.T) {
	e := newEnv(t)
	seen := map[string]bool{}
	for _, path := range []string{"/healthz", "/readyz", "/metrics", "/api/consumer/v1/openapi.json", "/api/consumer/v1/events", "/nope"} {
		r := e.get(path, "")
		id := r.header.Get("X-Request-Id")
		if id == "" || seen[id] {
			t.Errorf("%s: X-Request-Id %q (seen before: %v)", path, id, seen[id])
		}
		seen[id] = true
	}
	// A sane id from a proxy is kept; anything else is replaced.
	r := e.do(http.MethodGet, "/healthz", "", nil, "X-Request-Id", "lb-1234.abc")
	if r.header.Get("X-Request-Id") != "lb-1234.abc" {
		t.Errorf("proxy id not kept: %q", r.header.Get("X-Request-Id"))
	}
	r = e.do(http.MethodGet, "/healthz", "", nil, "X-Request-Id", "evil\"id with spaces")
	if r.header.Get("X-Request-Id") == "evil\"id with spaces" {
		t.Error("unsafe request id echoed")
	}
}
