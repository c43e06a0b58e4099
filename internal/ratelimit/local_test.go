package ratelimit_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/gatehouse/gatehouse"
	"github.com/gatehouse/gatehouse/internal/ratelimit"
)

type fakeTime struct {
	mu sync.Mutex
	t  time.Time
}

func (f *fakeTime) now() time.Time { f.mu.Lock(); defer f.mu.Unlock(); return f.t }
func (f *fakeTime) add(d time.Duration) {
	f.mu.Lock()
	f.t = f.t.Add(d)
	f.mu.Unlock()
}

var perSecond = ratelimit.Limit{Rate: gatehouse.Rate{Count: 10, Per: time.Second}, Burst: 5}

func allow(t *testing.T, l *ratelimit.Local, key string, limit ratelimit.Limit, n int) ratelimit.Result {
	t.Helper()
	res, err := l.Allow(context.Background(), key, limit, n)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func TestBurstThenRefill(t *testing.T) {
	clock := &fakeTime{t: time.Unix(1e9, 0)}
	l := ratelimit.NewLocal(clock.now)
	for i := range 5 {
		res := allow(t, l, "k", perSecond, 1)
		if !res.Allowed || res.Remaining != 4-i || res.ResetAfter != time.Duration(i+1)*100*time.Millisecond {
			t.Fatalf("request %d: %+v", i, res)
		}
	}
	res := allow(t, l, "k", perSecond, 1)
	if res.Allowed || res.RetryAfter != 100*time.Millisecond || res.Remaining != 0 {
		t.Fatalf("over the burst: %+v", res)
	}
	// A denied request spends nothing: after exactly RetryAfter one fits.
	clock.add(res.RetryAfter)
	if res := allow(t, l, "k", perSecond, 1); !res.Allowed || res.Remaining != 0 {
		t.Fatalf("after RetryAfter: %+v", res)
	}
	clock.add(time.Second)
	if res := allow(t, l, "k", perSecond, 0); !res.Allowed || res.Remaining != 5 || res.ResetAfter != 0 {
		t.Fatalf("refilled peek: %+v", res)
	}
}

func TestKeysAreIndependentAndPeekSpendsNothing(t *testing.T) {
	clock := &fakeTime{t: time.Unix(1e9, 0)}
	l := ratelimit.NewLocal(clock.now)
	for range 5 {
		allow(t, l, "a", perSecond, 1)
	}
	if res := allow(t, l, "b", perSecond, 1); !res.Allowed || res.Remaining != 4 {
		t.Fatalf("key b: %+v", res)
	}
	for range 10 {
		allow(t, l, "c", perSecond, 0)
	}
	if res := allow(t, l, "c", perSecond, 1); res.Remaining != 4 {
		t.Fatalf("peeks spent: %+v", res)
	}
}

func TestPerMinuteRate(t *testing.T) {
	clock := &fakeTime{t: time.Unix(1e9, 0)}
	l := ratelimit.NewLocal(clock.now)
	limit := ratelimit.Limit{Rate: gatehouse.Rate{Count: 6, Per: time.Minute}, Burst: 1}
	allow(t, l, "k", limit, 1)
	if res := allow(t, l, "k", limit, 1); res.Allowed || res.RetryAfter != 10*time.Second {
		t.Fatalf("6/m: %+v", res)
	}
	if limit.Window() != 10*time.Second {
		t.Errorf("Window = %v", limit.Window())
	}
}

func TestIdleBucketsAreEvicted(t *testing.T) {
	clock := &fakeTime{t: time.Unix(1e9, 0)}
	l := ratelimit.NewLocal(clock.now)
	for i := range 100_000 {
		allow(t, l, fmt.Sprint("key-", i), perSecond, 1)
		clock.add(time.Millisecond) // each bucket refills 100 ms after its request
	}
	if n := l.Len(); n > 40_000 {
		t.Fatalf("%d buckets held after 100k keys over 100 s; idle ones were not evicted", n)
	}
}

func TestConcurrentUseIsExact(t *testing.T) {
	clock := &fakeTime{t: time.Unix(1e9, 0)}
	l := ratelimit.NewLocal(clock.now)
	limit := ratelimit.Limit{Rate: gatehouse.Rate{Count: 1, Per: time.Hour}, Burst: 100}
	var wg sync.WaitGroup
	var mu sync.Mutex
	allowed := 0
	for range 8 {
		wg.Go(func() {
			for range 50 {
				if res, _ := l.Allow(context.Background(), "shared", limit, 1); res.Allowed {
					mu.Lock()
					allowed++
					mu.Unlock()
				}
			}
		})
	}
	wg.Wait()
	if allowed != 100 {
		t.Fatalf("%d of 400 concurrent requests allowed, want exactly the burst of 100", allowed)
	}
}

func BenchmarkLocalAllow(b *testing.B) {
	l := ratelimit.NewLocal(time.Now)
	limit := ratelimit.Limit{Rate: gatehouse.Rate{Count: 1e6, Per: time.Second}, Burst: 1e6}
	keys := make([]string, 1024)
	for i := range keys {
		keys[i] = fmt.Sprint("key:", i)
	}
	b.RunParallel(func(pb *testing.PB) {
		i := 0
		for pb.Next() {
			l.Allow(context.Background(), keys[i%len(keys)], limit, 1)
			i++
		}
	})
}

// TestForKey: a key's own rate keeps the server's burst unless two
// seconds of it are more.
func TestForKey(t *testing.T) {
	def := ratelimit.Limit{Rate: gatehouse.Rate{Count: 20, Per: time.Second}, Burst: 40}
	for _, c := range []struct {
		own  *gatehouse.Rate
		want ratelimit.Limit
	}{
		{nil, def},
		{&gatehouse.Rate{Count: 5, Per: time.Second}, ratelimit.Limit{Rate: gatehouse.Rate{Count: 5, Per: time.Second}, Burst: 40}},
		{&gatehouse.Rate{Count: 150, Per: time.Second}, ratelimit.Limit{Rate: gatehouse.Rate{Count: 150, Per: time.Second}, Burst: 300}},
		{&gatehouse.Rate{Count: 9000, Per: time.Minute}, ratelimit.Limit{Rate: gatehouse.Rate{Count: 9000, Per: time.Minute}, Burst: 300}},
		{&gatehouse.Rate{Count: 1, Per: time.Minute}, ratelimit.Limit{Rate: gatehouse.Rate{Count: 1, Per: time.Minute}, Burst: 40}},
	} {
		if got := def.ForKey(c.own); got != c.want {
			t.Errorf("ForKey(%v) = %+v, want %+v", c.own, got, c.want)
		}
	}
}
