package ratelimit_test

import (
	"bytes"
	"context"
	"testing"
	"time"

	"github.com/gatehouse/gatehouse"
	"github.com/gatehouse/gatehouse/internal/ratelimit"
	"github.com/gatehouse/gatehouse/internal/testenv"
)

// testRefund is the behaviour of Refund every limiter shares: a refunded
// request can be spent again, a refund never fills a bucket past its
// burst, and the last request reserved comes back too (the bucket is then
// as full as a fresh one).
func testRefund(t *testing.T, l ratelimit.Limiter, key string) {
	t.Helper()
	ctx := context.Background()
	limit := ratelimit.Limit{Rate: gatehouse.Rate{Count: 1, Per: time.Hour}, Burst: 3}
	spend := func() bool {
		t.Helper()
		res, err := l.Allow(ctx, key, limit, 1)
		if err != nil {
			t.Fatal(err)
		}
		return res.Allowed
	}
	refund := func(n int) {
		t.Helper()
		if err := l.Refund(ctx, key, limit, n); err != nil {
			t.Fatal(err)
		}
	}
	for range 3 {
		if !spend() {
			t.Fatal("denied within the burst")
		}
	}
	if spend() {
		t.Fatal("allowed past the burst")
	}
	refund(1)
	if !spend() {
		t.Fatal("a refunded request could not be spent again")
	}
	if spend() {
		t.Fatal("one refund gave back more than one request")
	}
	refund(3)
	if res, _ := l.Allow(ctx, key, limit, 0); res.Remaining != 3 {
		t.Fatalf("after refunding everything: %d remaining, want the burst of 3", res.Remaining)
	}
	refund(5) // more than was spent: the bucket stays at its burst
	allowed := 0
	for range 6 {
		if spend() {
			allowed++
		}
	}
	if allowed != 3 {
		t.Fatalf("%d of 6 allowed after an over-refund, want the burst of 3", allowed)
	}
}

func TestRefundLocal(t *testing.T) {
	clock := &fakeTime{t: time.Unix(1e9, 0)}
	testRefund(t, ratelimit.NewLocal(clock.now), "k")
}

func TestRefundRedis(t *testing.T) {
	var logs bytes.Buffer
	testRefund(t, newRedis(t, testenv.RedisURL(t), &logs), "key:"+gatehouse.NewID().String())
	if logs.Len() > 0 {
		t.Errorf("logged with Redis up: %s", logs.String())
	}
}

// TestReserveIsAllOrNothing: when one bucket is empty, the reservation
// fails and the buckets it already spent from are given back.
func TestReserveIsAllOrNothing(t *testing.T) {
	clock := &fakeTime{t: time.Unix(1e9, 0)}
	l := ratelimit.NewLocal(clock.now)
	ctx := context.Background()
	limit := ratelimit.Limit{Rate: gatehouse.Rate{Count: 1, Per: time.Minute}, Burst: 2}
	for range 2 {
		if _, _, ok := ratelimit.Reserve(ctx, l, limit, "full"); !ok {
			t.Fatal("denied within the burst")
		}
	}
	_, wait, ok := ratelimit.Reserve(ctx, l, limit, "fresh", "full")
	if ok || wait != time.Minute {
		t.Fatalf("reserve on an empty bucket: ok %v, wait %v; want refused for a minute", ok, wait)
	}
	if res, _ := l.Allow(ctx, "fresh", limit, 0); res.Remaining != 2 {
		t.Fatalf("the refused reservation kept %d of the fresh bucket", 2-res.Remaining)
	}
	r, _, ok := ratelimit.Reserve(ctx, l, limit, "a", "b")
	if !ok {
		t.Fatal("refused on fresh buckets")
	}
	r.Refund(ctx)
	r.Refund(ctx) // twice is once
	for _, key := range []string{"a", "b"} {
		if res, _ := l.Allow(ctx, key, limit, 0); res.Remaining != 2 {
			t.Errorf("bucket %s after the refund: %d remaining, want 2", key, res.Remaining)
		}
	}
}

// TestReserveEachSpendsEachBucketByItsOwnLimit: buckets of different
// shapes in one reservation; the one refused is named, and a refund
// gives each bucket back by its own shape.
func TestReserveEachSpendsEachBucketByItsOwnLimit(t *testing.T) {
	clock := &fakeTime{t: time.Unix(1e9, 0)}
	testReserveEach(t, ratelimit.NewLocal(clock.now), "")
}

func TestReserveEachRedis(t *testing.T) {
	var logs bytes.Buffer
	testReserveEach(t, newRedis(t, testenv.RedisURL(t), &logs), gatehouse.NewID().String()+":")
	if logs.Len() > 0 {
		t.Errorf("logged with Redis up: %s", logs.String())
	}
}

func testReserveEach(t *testing.T, l ratelimit.Limiter, prefix string) {
	t.Helper()
	ctx := context.Background()
	strict := ratelimit.Limit{Rate: gatehouse.Rate{Count: 1, Per: time.Minute}, Burst: 1}
	wide := ratelimit.Limit{Rate: gatehouse.Rate{Count: 10, Per: time.Minute}, Burst: 10}
	r, refused, _, ok := ratelimit.ReserveEach(ctx, l, ratelimit.Bucket{Key: prefix + "strict", Limit: strict}, ratelimit.Bucket{Key: prefix + "wide", Limit: wide})
	if !ok || refused != -1 {
		t.Fatalf("fresh buckets: ok %v, refused %d", ok, refused)
	}
	_, refused, wait, ok := ratelimit.ReserveEach(ctx, l, ratelimit.Bucket{Key: prefix + "wide", Limit: wide}, ratelimit.Bucket{Key: prefix + "strict", Limit: strict})
	if ok || refused != 1 || wait < 59*time.Second || wait > time.Minute { // Redis keeps its own clock
		t.Fatalf("an empty strict bucket: ok %v, refused %d, wait %v; want the second refused for a minute", ok, refused, wait)
	}
	if res, _ := l.Allow(ctx, prefix+"wide", wide, 0); res.Remaining != 9 {
		t.Errorf("the refused reservation kept %d of the wide bucket", 9-res.Remaining)
	}
	r.Refund(ctx)
	for key, limit := range map[string]ratelimit.Limit{"strict": strict, "wide": wide} {
		if res, _ := l.Allow(ctx, prefix+key, limit, 0); res.Remaining != limit.Burst {
			t.Errorf("bucket %s after the refund: %d remaining, want %d", key, res.Remaining, limit.Burst)
		}
	}
}
