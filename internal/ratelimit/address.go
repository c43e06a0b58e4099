package ratelimit

import (
	"context"
	"net"
	"net/http"
	"time"
)

// ClientAddress is the host of the connection's remote address, which
// per-address limits key on. Gatehouse does not trust X-Forwarded-For:
// behind a proxy, limits apply per proxy address unless the proxy is
// configured to pass the client's address.
func ClientAddress(r *http.Request) string {
	if host, _, err := net.SplitHostPort(r.RemoteAddr); err == nil {
		return host
	}
	return r.RemoteAddr
}

// Exhausted peeks at a bucket of failures without spending from it: it is
// blocked once no failure is left to spend, and wait says until when (at
// least a second). A limiter that cannot answer blocks nothing.
func Exhausted(ctx context.Context, l Limiter, key string, limit Limit) (wait time.Duration, blocked bool) {
	res, err := l.Allow(ctx, key, limit, 0)
	if err != nil || res.Remaining >= 1 {
		return 0, false
	}
	full := time.Duration(limit.Burst-1) * limit.Rate.Interval()
	return max(res.ResetAfter-full, time.Second), true
}
