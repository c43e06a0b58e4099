// Package ratelimit decides whether a request fits its key's rate limit,
// and whether a client address may fail authentication once more; it also
// finds the client address behind trusted proxies (ParseProxies).
//
// Limits are GCRA buckets (the generic cell rate algorithm): a sustained
// Rate and a Burst that may be spent at once. The in-process Local limiter
// serves one instance; a shared limiter (Redis) serves several.
package ratelimit

import (
	"context"
	"time"

	"github.com/gatehouse/gatehouse"
)

// Limit is a bucket's shape: Rate sustained, up to Burst at once.
type Limit struct {
	Rate  gatehouse.Rate
	Burst int
}

// Window is the time an empty bucket takes to fill: Burst requests at Rate.
func (l Limit) Window() time.Duration {
	return time.Duration(l.Burst) * l.Rate.Interval()
}

// OwnBurstWindow is how long a key's own rate (see [Limit.ForKey]) may be
// spent at once: the server's default shape, 40 at 20/s, holds two
// seconds too.
const OwnBurstWindow = 2 * time.Second

// ForKey is the limit of a key with its own rate own (nil: l itself): the
// rate own, and a burst of [OwnBurstWindow] of it, or l's burst when that
// is more. A key raised to 150/s so that hundreds of game servers share
// it then takes 300 at once, such as their first requests after a
// release, where the server's burst of 40 would refuse most of them.
func (l Limit) ForKey(own *gatehouse.Rate) Limit {
	if own == nil {
		return l
	}
	// Ceil of OwnBurstWindow / own.Interval(), in integers: Count per Per.
	n := (int64(own.Count)*int64(OwnBurstWindow) + int64(own.Per) - 1) / int64(own.Per)
	return Limit{Rate: *own, Burst: max(l.Burst, int(min(n, 1<<30)))}
}

// Result is the outcome of one request against a bucket.
type Result struct {
	Allowed    bool
	Limit      Limit
	Remaining  int           // requests that would be allowed right after this one
	ResetAfter time.Duration // until the bucket is full again
	RetryAfter time.Duration // until one more request would be allowed; 0 when Allowed
}

// Limiter spends requests from named buckets.
type Limiter interface {
	// Allow spends n requests (1 normally; 0 only peeks) from the bucket
	// key shaped by limit. A denied request spends nothing. An error means
	// the limiter could not decide (a shared store is down).
	Allow(ctx context.Context, key string, limit Limit, n int) (Result, error)
	// Refund gives n requests spent with Allow back to bucket key, as if
	// they had never been made; a bucket holds no more than a full one.
	// It is how a spend made in advance is undone once the request proves
	// not to count (a reserved failure that turned out a success).
	Refund(ctx context.Context, key string, limit Limit, n int) error
}
