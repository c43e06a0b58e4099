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
