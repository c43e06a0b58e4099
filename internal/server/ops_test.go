package server_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/gatehouse/gatehouse"
	"github.com/gatehouse/gatehouse/internal/app"
	"github.com/gatehouse/gatehouse/internal/server"
)

func TestOperationsEndpoints(t *testing.T) {
	e := newEnv(t)
	o := e.newOrg("Acme")
	e.get("/api/consumer/v1/events", o.readKey)
	e.get("/api/consumer/v1/events", "gk_bad")

	// /healthz names the running build, as the version command and the start-up line do.
	if r := e.get("/healthz", ""); r.status != 200 || string(r.body) != `{"status":"ok","version":"`+gatehouse.Version()+"\"}\n" {
		t.Errorf("healthz: %d %s", r.status, r.body)
	}
	if r := e.get("/readyz", ""); r.status != 200 {
		t.Errorf("readyz: %d %s", r.status, r.body)
	}
	r := e.get("/api/consumer/v1/openapi.json", "")
	var doc map[string]any
	if r.status != 200 || json.Unmarshal(r.body, &doc) != nil || doc["openapi"] != "3.1.0" {
		t.Errorf("openapi.json: %d %.100s", r.status, r.body)
	}
	m := e.get("/metrics", "")
	for _, family := range []string{
		`gatehouse_http_requests_total{route="GET /api/consumer/v1/events",status="200"} 1`,
		`gatehouse_http_request_duration_seconds_bucket{route="GET /api/consumer/v1/events"`,
		`gatehouse_auth_failures_total{reason="malformed"} 1`,
		`gatehouse_rate_limited_total`,
	} {
		if !strings.Contains(string(m.body), family) {
			t.Errorf("/metrics lacks %s", family)
		}
	}
	// Closing the database makes the service unready, and API calls 503.
	e.store.Close()
	if r := e.get("/readyz", ""); r.status != http.StatusServiceUnavailable || r.apiError(t).Code != "unavailable" {
		t.Errorf("readyz on a closed store: %d %s", r.status, r.body)
	}
	if r := e.get("/api/consumer/v1/events", o.readKey); r.status != http.StatusServiceUnavailable || r.header.Get("Retry-After") != "2" {
		t.Errorf("events on a closed store: %d Retry-After %q %s", r.status, r.header.Get("Retry-After"), r.body)
	}
}

func TestPanicIsAJSON500(t *testing.T) {
	e := newEnv(t, func(s *app.Settings) {
		s.Configure = func(c *server.Config) { server.PanicOnPath(c, "/api/consumer/v1/panic") }
	})
	e.client = http.DefaultClient // the route exists only here: the document cannot describe it
	r := e.get("/api/consumer/v1/panic", "")
	if r.status != 500 || r.apiError(t).Code != "internal_error" {
		t.Fatalf("panic: %d %s", r.status, r.body)
	}
	if !strings.Contains(e.logs.String(), `"msg":"panic"`) {
		t.Error("the panic was not logged")
	}
	if r := e.get("/healthz", ""); r.status != 200 {
		t.Error("the server stopped serving after a panic")
	}
}

func TestClientDisconnectIsNoServerError(t *testing.T) {
	reached := make(chan struct{}, 1)
	e := newEnv(t, func(s *app.Settings) {
		s.Configure = func(c *server.Config) { server.WaitForCancelOnPath(c, "/api/consumer/v1/slow", reached) }
	})
	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, "GET", e.url+"/api/consumer/v1/slow", nil)
	done := make(chan error, 1)
	go func() { _, err := e.client.Do(req); done <- err }()
	<-reached
	cancel()
	<-done
	deadline := time.Now().Add(2 * time.Second)
	for !strings.Contains(e.logs.String(), `"status":499`) {
		if time.Now().After(deadline) {
			t.Fatalf("no 499 logged:\n%s", e.logs.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
	if strings.Contains(e.logs.String(), `"level":"ERROR"`) {
		t.Errorf("a client disconnect was logged as an error:\n%s", e.logs.String())
	}
}
