package server_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/gatehouse/gatehouse"
	"github.com/gatehouse/gatehouse/internal/app"
	"github.com/gatehouse/gatehouse/internal/testenv"
)

// TestSyncRateLimit: one server's syncs under one key fit 60 a minute
// with a burst of 10; another server, or another key, has its own bucket.
func TestSyncRateLimit(t *testing.T) {
	e := newEnv(t)
	o := e.newUnlockOrg("Acme")
	for i := range 10 {
		if r := e.syncNow(o.serverKey, "job-1", ""); r.status != 200 {
			t.Fatalf("sync %d: %d %s", i, r.status, r.body)
		}
	}
	r := e.syncNow(o.serverKey, "job-1", "")
	if r.status != http.StatusTooManyRequests || r.header.Get("Retry-After") != "1" || r.apiError(t).Code != "rate_limited" {
		t.Fatalf("the 11th sync: %d Retry-After %q %s", r.status, r.header.Get("Retry-After"), r.body)
	}
	if r := e.syncNow(o.serverKey, "job-2", ""); r.status != 200 {
		t.Errorf("another server: %d", r.status)
	}
	other := e.newKey(o.ID, gatehouse.ScopeGameServer)
	if r := e.syncNow(other, "job-1", ""); r.status != 200 {
		t.Errorf("another key: %d", r.status)
	}
	e.clock.Advance(time.Second)
	if r := e.syncNow(o.serverKey, "job-1", ""); r.status != 200 {
		t.Errorf("a second later: %d", r.status)
	}
	if !strings.Contains(string(e.get("/metrics", "").body), `gatehouse_rate_limited_total{limit="sync"} 1`) {
		t.Error("the refused sync is not counted")
	}
}

// TestSyncRateLimitAcrossInstances: two instances sharing a database and
// Redis share each server's bucket, so a game server that alternates
// between them still meets its limit.
func TestSyncRateLimitAcrossInstances(t *testing.T) {
	redisURL := testenv.RedisURL(t)
	shared := func(s *app.Settings) { s.Limiter, s.Redis = nil, redisURL }
	e := newEnv(t, shared)
	o := e.newUnlockOrg("Acme")
	settings := app.Settings{DB: app.Use(e.store), Now: e.clock.Now}
	shared(&settings)
	second, err := app.New(context.Background(), settings)
	must(t, err)
	other := httptest.NewServer(second.Handler)
	t.Cleanup(other.Close)
	urls := []string{e.url, other.URL}
	// Redis's buckets run on real time: 15 syncs within 4 s overdraw a
	// burst of 10 refilled at 1 a second.
	start := time.Now()
	statuses := map[int]int{}
	for i := range 15 {
		e.url = urls[i%2]
		r := e.syncNow(o.serverKey, "job-1", "")
		statuses[r.status]++
		if r.status == http.StatusTooManyRequests && r.header.Get("Retry-After") == "" {
			t.Error("429 without Retry-After")
		}
	}
	e.url = urls[0]
	if time.Since(start) < 4*time.Second && statuses[http.StatusTooManyRequests] == 0 {
		t.Errorf("15 syncs over two instances: %v, want some 429", statuses)
	}
	if statuses[200] < 10 {
		t.Errorf("15 syncs over two instances: %v, want the burst of 10 served", statuses)
	}
}
