package server_test

import (
	"context"
	"net/http"
	"regexp"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gatehouse/gatehouse"
	"github.com/gatehouse/gatehouse/internal/app"
	"github.com/gatehouse/gatehouse/internal/auth"
	"github.com/gatehouse/gatehouse/internal/ratelimit"
)

func withKeyLimit(rate gatehouse.Rate, burst int) envOption {
	return func(c *app.Settings) { c.KeyLimit = ratelimit.Limit{Rate: rate, Burst: burst} }
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
	// While the address is blocked, a good key this instance has never
	// seen waits like any other guess: the block comes before any lookup
	// of a key not known to be valid, which keeps a flood off the database.
	if r := e.get("/api/consumer/v1/events", o.readKey); r.status != 429 {
		t.Errorf("never-seen good key from a blocked address: %d", r.status)
	}
	e.clock.Advance(time.Second)
	if r := e.get("/api/consumer/v1/events", o.readKey); r.status != 200 {
		t.Errorf("after the block: %d", r.status)
	}
}

// lookupCounter is the real store, counting key lookups; with hold set,
// each lookup first reports on arrived and waits until hold is closed.
type lookupCounter struct {
	gatehouse.Store
	lookups       atomic.Int32
	arrived, hold chan struct{}
}

func (s *lookupCounter) FindAPIKeyByHash(ctx context.Context, h gatehouse.KeyHash) (gatehouse.APIKey, error) {
	s.lookups.Add(1)
	if s.hold != nil {
		s.arrived <- struct{}{}
		<-s.hold
	}
	return s.Store.FindAPIKeyByHash(ctx, h)
}

// TestConcurrentUnknownKeysAreBoundedByTheAddressBurst: 100 unknown keys
// sent at once from one address reach the store at most the address's
// burst of 20 times. Lookups are held until every request has either
// reached one or been answered, so all 100 are truly at once: a check
// made before the lookup and paid for after it lets all of them through.
func TestConcurrentUnknownKeysAreBoundedByTheAddressBurst(t *testing.T) {
	counter := &lookupCounter{arrived: make(chan struct{}), hold: make(chan struct{})}
	e := newEnv(t, func(c *app.Settings) {
		c.AuthStore = func(s gatehouse.Store) gatehouse.Store { counter.Store = s; return counter }
	})
	const n = 100
	answered := make(chan int)
	for range n {
		bad, _, _ := gatehouse.GenerateKey()
		go func() {
			req, _ := http.NewRequest(http.MethodGet, e.url+"/api/consumer/v1/events", nil)
			req.Header.Set("Authorization", "Bearer "+bad)
			res, err := e.client.Do(req)
			if err != nil {
				t.Error(err)
				answered <- 0
				return
			}
			res.Body.Close()
			answered <- res.StatusCode
		}()
	}
	statuses := map[int]int{}
	arrived, done, released := 0, 0, false
	for done < n {
		select {
		case <-counter.arrived:
			arrived++
		case status := <-answered:
			statuses[status]++
			done++
		}
		if arrived+done == n && !released {
			close(counter.hold) // nothing is left on its way to a lookup
			released = true
		}
	}
	if arrived > 20 || statuses[401] != arrived || statuses[429] != n-arrived {
		t.Fatalf("%d unknown keys at once: %d store lookups, answers %v; want at most 20 lookups, one 401 each, the rest 429", n, arrived, statuses)
	}
}

// TestAValidKeyIsNotRefusedForOthersFailures: game servers of many
// studios share egress addresses. One client exhausting the address's
// failures must not lock out another's good key, also when its cache
// entry has expired and it must be looked up again.
func TestAValidKeyIsNotRefusedForOthersFailures(t *testing.T) {
	e := newEnv(t, func(c *app.Settings) {
		c.FailedAuthLimit = ratelimit.Limit{Rate: gatehouse.Rate{Count: 1, Per: time.Minute}, Burst: 20}
	})
	o := e.newOrg("Acme")
	if r := e.get("/api/consumer/v1/events", o.readKey); r.status != 200 {
		t.Fatalf("good key: %d", r.status)
	}
	bad, _, _ := gatehouse.GenerateKey()
	for range 30 {
		e.get("/api/consumer/v1/events", bad)
	}
	if r := e.get("/api/consumer/v1/events", bad); r.status != 429 {
		t.Fatalf("the address is not exhausted: %d", r.status)
	}
	for _, wait := range []time.Duration{0, auth.CacheTTL, time.Minute} {
		e.clock.Advance(wait)
		if r := e.get("/api/consumer/v1/events", o.readKey); r.status != 200 {
			t.Fatalf("good key from the exhausted address, %v later: %d %s", wait, r.status, r.body)
		}
	}
}

// TestTrustedProxiesSeparateClients: behind a trusted load balancer each
// client address of X-Forwarded-For has its own failure budget; from a
// peer that is not trusted the header is ignored.
func TestTrustedProxiesSeparateClients(t *testing.T) {
	proxies, err := ratelimit.ParseProxies("127.0.0.0/8, ::1")
	if err != nil {
		t.Fatal(err)
	}
	for _, trusted := range []bool{true, false} {
		e := newEnv(t, func(c *app.Settings) {
			if trusted {
				c.TrustedProxies = proxies
			}
		})
		bad, _, _ := gatehouse.GenerateKey()
		from := func(client string) int {
			return e.do(http.MethodGet, "/api/consumer/v1/events", bad, nil, "X-Forwarded-For", "192.0.2.1, "+client).status
		}
		for range 20 {
			from("198.51.100.1")
		}
		if got := from("198.51.100.1"); got != 429 {
			t.Fatalf("trusted %v: the 21st failure of one client: %d", trusted, got)
		}
		want := 401
		if !trusted {
			want = 429 // one address, the peer's, for everyone
		}
		if got := from("198.51.100.2"); got != want {
			t.Errorf("trusted %v: another client behind the proxy: %d, want %d", trusted, got, want)
		}
	}
}
