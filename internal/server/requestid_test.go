package server_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gatehouse/gatehouse"
	"github.com/gatehouse/gatehouse/internal/app"
	"github.com/gatehouse/gatehouse/internal/dashboard"
	"github.com/gatehouse/gatehouse/internal/server"
	"github.com/gatehouse/gatehouse/internal/service"
	"github.com/gatehouse/gatehouse/internal/sqlite"
)

// logLines decodes every JSON line of the log.
func logLines(t *testing.T, logs string) []map[string]any {
	t.Helper()
	var lines []map[string]any
	for l := range strings.Lines(logs) {
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("log line is not JSON: %s", l)
		}
		lines = append(lines, m)
	}
	return lines
}

// Every line logged while serving a request names it, including the
// dashboard's log of a store failure, so an operator can find the cause
// of a 500 from the request id its answer shows.
func TestErrorLogLinesCarryTheRequestID(t *testing.T) {
	ctx := context.Background()
	broken, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "broken.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { broken.Close() })
	// Not migrated: every store call fails with an internal error.
	e := newEnv(t, func(s *app.Settings) {
		s.Configure = func(c *server.Config) {
			c.Dashboard = dashboard.New(dashboard.Config{
				Service: service.New(service.Config{Store: broken, Secret: []byte("0123456789abcdef0123456789abcdef"), Now: c.Now}),
				Logger:  c.Logger, Now: c.Now,
			})
		}
	})
	req := httptest.NewRequest(http.MethodGet, "/dashboard/events", nil)
	req.AddCookie(&http.Cookie{Name: "gatehouse_session", Value: "any"})
	w := httptest.NewRecorder()
	e.handler.ServeHTTP(w, req)
	id := w.Header().Get("X-Request-Id")
	if w.Code != http.StatusInternalServerError || id == "" {
		t.Fatalf("a failing store: %d %s", w.Code, w.Body)
	}
	errorLines := 0
	for _, l := range logLines(t, e.logs.String()) {
		if l["level"] != "ERROR" {
			continue
		}
		errorLines++
		if l["requestId"] != id {
			t.Errorf("error log line without the request id %s: %v", id, l)
		}
	}
	if errorLines < 2 { // the dashboard's cause and the access log's 500
		t.Errorf("%d error lines, want the cause and the access log:\n%s", errorLines, e.logs)
	}
}

// A request id from a proxy is kept when it has a safe shape; any other is
// replaced by a fresh one, never refused and never echoed.
func TestRequestIDShape(t *testing.T) {
	e := newEnv(t)
	key, _, _ := gatehouse.GenerateKey()
	for sent, kept := range map[string]bool{
		"0193a5b2-7c1e-7d3f-9a4b-5c6d7e8f9a0b": true,
		"1-67891233-abcdef012345678912345678":  true,
		"trace.span:7_a":                       true,
		strings.Repeat("a", 64):                true,
		strings.Repeat("a", 65):                false,
		key:                                    false, // a key in the wrong header
		"x-" + key[:20]:                        false, // part of one
		"a b":                                  false,
		"a=b;c":                                false,
		"<script>":                             false,
		"ümlaut":                               false,
	} {
		r := e.get("/healthz", "")
		if sent != "" {
			r = e.do(http.MethodGet, "/healthz", "", nil, "X-Request-Id", sent)
		}
		got := r.header.Get("X-Request-Id")
		if kept && got != sent || !kept && (got == sent || got == "" || strings.Contains(got, "gk_")) {
			t.Errorf("sent %q, answered with %q", sent, got)
		}
	}
	if strings.Contains(e.logs.String(), key[:20]) {
		t.Error("the log holds a key sent as the request id")
	}
}
