package server_test

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
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
		"GET /api/consumer/v1/events", "GET /api/consumer/v1/locations", "GET /api/consumer/v1/openapi.json",
		"GET /healthz", "GET /metrics", "GET /readyz", "POST /api/consumer/v1/events",
	}
	if !slices.Equal(documented, served) {
		t.Errorf("documented %v, served %v", documented, served)
	}
	for _, op := range served {
		method, path, _ := strings.Cut(op, " ")
		if r := e.do(method, path, "", nil); r.status == 404 || r.status == 405 {
			t.Errorf("%s is documented but answers %d", op, r.status)
		}
	}
}
