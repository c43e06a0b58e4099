package ratelimit_test

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/gatehouse/gatehouse"
	"github.com/gatehouse/gatehouse/internal/ratelimit"
	"github.com/gatehouse/gatehouse/internal/testenv"
	"github.com/prometheus/client_golang/prometheus"
)

func newRedis(t *testing.T, url string, logs *bytes.Buffer) *ratelimit.Redis {
	t.Helper()
	r, err := ratelimit.NewRedis(url, ratelimit.NewLocal(time.Now), slog.New(slog.NewTextHandler(logs, nil)), prometheus.NewRegistry())
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// TestRedisLimitIsShared plays two instances: a burst split between them is
// limited as one.
func TestRedisLimitIsShared(t *testing.T) {
	url := testenv.RedisURL(t)
	var logs bytes.Buffer
	a, b := newRedis(t, url, &logs), newRedis(t, url, &logs)
	key := "key:" + gatehouse.NewID().String()
	limit := ratelimit.Limit{Rate: gatehouse.Rate{Count: 1, Per: time.Hour}, Burst: 10}
	allowed := 0
	for i := range 30 {
		inst := a
		if i%2 == 1 {
			inst = b
		}
		res, err := inst.Allow(context.Background(), key, limit, 1)
		if err != nil {
			t.Fatal(err)
		}
		if res.Allowed {
			allowed++
		} else if res.RetryAfter <= 0 {
			t.Fatalf("denied without RetryAfter: %+v", res)
		}
	}
	if allowed != 10 {
		t.Fatalf("%d of 30 requests allowed across two instances, want the burst of 10", allowed)
	}
	if strings.Contains(logs.String(), "unreachable") {
		t.Errorf("fell back with Redis up: %s", logs.String())
	}
}

// TestRedisOutageFallsBackAndRecovers cuts Redis mid-test: decisions go on
// per process, the change is logged once and counted, and the limiter
// returns to Redis by itself.
func TestRedisOutageFallsBackAndRecovers(t *testing.T) {
	proxy, url := testenv.RedisProxy(t)
	var logs bytes.Buffer
	reg := prometheus.NewRegistry()
	r, err := ratelimit.NewRedis(url, ratelimit.NewLocal(time.Now), slog.New(slog.NewTextHandler(&logs, nil)), reg)
	if err != nil {
		t.Fatal(err)
	}
	key := "key:" + gatehouse.NewID().String()
	limit := ratelimit.Limit{Rate: gatehouse.Rate{Count: 1, Per: time.Hour}, Burst: 3}
	for range 3 {
		if res, _ := r.Allow(context.Background(), key, limit, 1); !res.Allowed {
			t.Fatal("denied within the burst")
		}
	}
	proxy.Cut()
	start := time.Now()
	for range 5 {
		res, err := r.Allow(context.Background(), key, limit, 1)
		if err != nil {
			t.Fatalf("an error while Redis is down: %v", err)
		}
		_ = res
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("5 decisions with Redis down took %v", d)
	}
	if n := strings.Count(logs.String(), "Redis unreachable"); n != 1 {
		t.Errorf("outage logged %d times, want once:\n%s", n, logs.String())
	}
	if n := counter(t, reg, "gatehouse_rate_limit_fallbacks_total"); n < 5 {
		t.Errorf("fallback decisions counted: %v", n)
	}
	proxy.Restore(t)
	deadline := time.Now().Add(5 * time.Second)
	for !strings.Contains(logs.String(), "Redis is back") {
		if time.Now().After(deadline) {
			t.Fatalf("never returned to Redis:\n%s", logs.String())
		}
		r.Allow(context.Background(), key, limit, 1)
		time.Sleep(100 * time.Millisecond)
	}
	// Back on Redis, the bucket spent before the outage is still spent.
	if res, _ := r.Allow(context.Background(), key, limit, 1); res.Allowed {
		t.Error("after recovery a spent shared bucket allowed a request")
	}
}

func counter(t *testing.T, reg *prometheus.Registry, name string) float64 {
	t.Helper()
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, mf := range mfs {
		if mf.GetName() == name {
			return mf.GetMetric()[0].GetCounter().GetValue()
		}
	}
	t.Fatalf("no metric %s", name)
	return 0
}

// TestAbortedRequestKeepsRedisLimits spends requests with contexts already
// cancelled, as a client that resets its connection leaves them: the
// decisions must still be made in Redis, shared with the other instance,
// and nothing may report Redis down.
func TestAbortedRequestKeepsRedisLimits(t *testing.T) {
	url := testenv.RedisURL(t)
	var logs bytes.Buffer
	reg := prometheus.NewRegistry()
	a, err := ratelimit.NewRedis(url, ratelimit.NewLocal(time.Now), slog.New(slog.NewTextHandler(&logs, nil)), reg)
	if err != nil {
		t.Fatal(err)
	}
	b := newRedis(t, url, &logs)
	key := "key:" + gatehouse.NewID().String()
	limit := ratelimit.Limit{Rate: gatehouse.Rate{Count: 1, Per: time.Hour}, Burst: 5}
	aborted, cancel := context.WithCancel(context.Background())
	cancel()
	for range 5 {
		if res, err := a.Allow(aborted, key, limit, 1); err != nil || !res.Allowed {
			t.Fatalf("aborted request within the burst: %+v, %v", res, err)
		}
	}
	if res, _ := b.Allow(context.Background(), key, limit, 1); res.Allowed {
		t.Error("the burst spent by aborted requests was not spent in Redis")
	}
	if strings.Contains(logs.String(), "unreachable") {
		t.Errorf("an aborted request reported Redis down:\n%s", logs.String())
	}
	if n := counter(t, reg, "gatehouse_rate_limit_fallbacks_total"); n != 0 {
		t.Errorf("%v decisions fell back to per-process limits with Redis up", n)
	}
}

// TestRedisClientLogsAreStructured cuts Redis so that go-redis itself has
// something to say (a failed dial, reported in the background after its
// retries): it must reach the limiter's structured logger, not stderr as a
// plain-text line.
func TestRedisClientLogsAreStructured(t *testing.T) {
	proxy, url := testenv.RedisProxy(t)
	logs := new(testenv.LogBuffer)
	r, err := ratelimit.NewRedis(url, ratelimit.NewLocal(time.Now), slog.New(slog.NewJSONHandler(logs, nil)), prometheus.NewRegistry())
	if err != nil {
		t.Fatal(err)
	}
	proxy.Cut()
	r.Allow(context.Background(), "key:"+gatehouse.NewID().String(), ratelimit.Limit{Rate: gatehouse.Rate{Count: 1, Per: time.Second}, Burst: 1}, 1)
	deadline := time.Now().Add(10 * time.Second)
	for !strings.Contains(logs.String(), `"component":"redis"`) {
		if time.Now().After(deadline) {
			t.Fatalf("go-redis's own messages did not reach the structured log:\n%s", logs.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
	for line := range strings.Lines(logs.String()) {
		if !json.Valid([]byte(line)) {
			t.Errorf("not a JSON line: %q", line)
		}
	}
}
