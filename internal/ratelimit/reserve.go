package ratelimit

import (
	"context"
	"time"
)

// Reservation is one request spent in advance from each of several
// buckets; Refund gives them back.
type Reservation struct {
	limiter Limiter
	limit   Limit
	keys    []string // the buckets actually spent from
}

// Reserve spends one request from each of the buckets keys, all or none,
// before the work they limit starts, so that concurrent requests cannot
// all pass a check that is only paid for afterwards. When a bucket is
// empty, what was spent is refunded and wait says when to retry (at least
// a second). A limiter that cannot answer blocks nothing and spends
// nothing.
func Reserve(ctx context.Context, l Limiter, limit Limit, keys ...string) (r Reservation, wait time.Duration, ok bool) {
	r = Reservation{limiter: l, limit: limit}
	for _, key := range keys {
		res, err := l.Allow(ctx, key, limit, 1)
		if err != nil {
			continue
		}
		if !res.Allowed {
			r.Refund(ctx)
			return Reservation{}, max(res.RetryAfter, time.Second), false
		}
		r.keys = append(r.keys, key)
	}
	return r, 0, true
}

// Refund gives back what Reserve spent: the reserved requests did not
// count after all. Refunding twice, or a zero Reservation, does nothing.
func (r *Reservation) Refund(ctx context.Context) {
	for _, key := range r.keys {
		r.limiter.Refund(ctx, key, r.limit, 1)
	}
	r.keys = nil
}
