package server_test

import (
	"net/http"
	"regexp"
	"strconv"
	"testing"
	"time"

	"github.com/gatehouse/gatehouse"
	"github.com/gatehouse/gatehouse/internal/ratelimit"
	"github.com/gatehouse/gatehouse/internal/server"
)

func withKeyLimit(rate gatehouse.Rate, burst int) envOption {
	return func(c *server.Config) { c.KeyLimit = ratelimit.Limit{Rate: rate, Burst: burst} }
}

func TestRateLimitPerKey(t *testing.T) {
	e := newEnv(t, withKeyLimit(gatehouse.Rate{Count: 2, Per: time.Second}, 3))
	o := e.newOrg("Acme")
	policy := regexp.MustCompile(`^"default";q=3;w=2$`)
	state := regexp.MustCompile(`^"default";r=(\d+);t=(\d+)$`)
	for i := range 3 {
		r := e.get("/api/consumer/v1/events", o.readKey)
		if r.status != 200 || !policy.MatchString(r.header.Get("RateLimit-Policy")) {
			t.Fatalf("request %d: %d, RateLimit-Policy %q", i, r.status, r.header.Get("RateLimit-Policy"))
		}
		m := state.FindStringSubmatch(r.header.Get("RateLimit"))
		if m == nil || m[1] != strconv.Itoa(2-i) {
			t.Fatalf("request %d: RateLimit %q, want r=%d", i, r.header.Get("RateLimit"), 2-i)
		}
	}
	r := e.get("/api/consumer/v1/events", o.readKey)
	if r.status != http.StatusTooManyRequests || r.header.Get("Retry-After") != "1" || r.apiError(t).Code != "rate_limited" {
		t.Fatalf("over the burst: %d Retry-After %q %s", r.status, r.header.Get("Retry-After"), r.body)
	}
	// Another key of the same organization has its own bucket.
	if r := e.get("/api/consumer/v1/events", o.allKey); r.status != 200 {
		t.Errorf("other key: %d", r.status)
	}
	e.clock.Advance(500 * time.Millisecond)
	if r := e.get("/api/consumer/v1/events", o.readKey); r.status != 200 {
		t.Errorf("after refill: %d", r.status)
	}
}

func TestRateLimitPerKeyOverride(t *testing.T) {
	e := newEnv(t, withKeyLimit(gatehouse.Rate{Count: 100, Per: time.Second}, 2))
	o := e.newOrg("Acme")
	slow := e.newKeyWith(o.ID, func(k *gatehouse.APIKey) { k.RateLimit = &gatehouse.Rate{Count: 1, Per: time.Minute} }, gatehouse.ScopeEventsRead)
	e.get("/api/consumer/v1/events", slow)
	e.get("/api/consumer/v1/events", slow)
	r := e.get("/api/consumer/v1/events", slow)
	if r.status != 429 || r.header.Get("Retry-After") != "60" {
		t.Fatalf("override 1/m: %d Retry-After %q", r.status, r.header.Get("Retry-After"))
	}
}

func TestFailedAuthenticationLimitedPerAddress(t *testing.T) {
	e := newEnv(t)
	o := e.newOrg("Acme")
	bad, _, _ := gatehouse.GenerateKey()
	statuses := map[int]int{}
	for range 30 {
		statuses[e.get("/api/consumer/v1/events", bad).status]++
	}
	if statuses[401] != 20 || statuses[429] != 10 {
		t.Fatalf("30 bad keys: %v, want 20×401 then 10×429", statuses)
	}
	r := e.get("/api/consumer/v1/events", bad)
	if r.header.Get("Retry-After") == "" {
		t.Error("429 without Retry-After")
	}
	// While the address is blocked even a good key waits: the block comes
	// before any lookup, which is what keeps a flood off the database.
	if r := e.get("/api/consumer/v1/events", o.readKey); r.status != 429 {
		t.Errorf("good key from a blocked address: %d", r.status)
	}
	e.clock.Advance(time.Second)
	if r := e.get("/api/consumer/v1/events", o.readKey); r.status != 200 {
		t.Errorf("after the block: %d", r.status)
	}
}
