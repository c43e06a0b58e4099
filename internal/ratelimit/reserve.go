package ratelimit

import (
	"context"
	"time"
)

// Bucket is one bucket a reservation spends from: its key and its shape.
type Bucket struct {
	Key   string
	Limit Limit
}

// Reservation is one request spent in advance from each of several
// buckets; Refund gives them back.
type Reservation struct {
	limiter Limiter
	buckets []Bucket // the buckets actually spent from
}

// Reserve spends one request from each of the buckets keys, all shaped
// by limit; see ReserveEach.
func Reserve(ctx context.Context, l Limiter, limit Limit, keys ...string) (r Reservation, wait time.Duration, ok bool) {
	buckets := make([]Bucket, len(keys))
	for i, key := range keys {
		buckets[i] = Bucket{Key: key, Limit: limit}
	}
	r, _, wait, ok = ReserveEach(ctx, l, buckets...)
	return r, wait, ok
}

// ReserveEach spends one request from each of the buckets, all or none,
// before the work they limit starts, so that concurrent requests cannot
// all pass a check that is only paid for afterwards. When a bucket is
// empty, what was spent is refunded, refused is that bucket's index, and
// wait says when to retry (at least a second); otherwise refused is -1. A
// limiter that cannot answer blocks nothing and spends nothing.
func ReserveEach(ctx context.Context, l Limiter, buckets ...Bucket) (r Reservation, refused int, wait time.Duration, ok bool) {
	r = Reservation{limiter: l}
	for i, b := range buckets {
		res, err := l.Allow(ctx, b.Key, b.Limit, 1)
		if err != nil {
			continue
		}
		if !res.Allowed {
			r.Refund(ctx)
			return Reservation{}, i, max(res.RetryAfter, time.Second), false
		}
		r.buckets = append(r.buckets, b)
	}
	return r, -1, 0, true
}

// Refund gives back what Reserve spent: the reserved requests did not
// count after all. Refunding twice, or a zero Reservation, does nothing.
func (r *Reservation) Refund(ctx context.Context) {
	for _, b := range r.buckets {
		r.limiter.Refund(ctx, b.Key, b.Limit, 1)
	}
	r.buckets = nil
}
