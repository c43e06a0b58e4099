package server

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strconv"
	"time"

	"github.com/gatehouse/gatehouse"
	"github.com/gatehouse/gatehouse/internal/auth"
	"github.com/gatehouse/gatehouse/internal/ratelimit"
)

type keyKey struct{}

// apiKey returns the key that authenticated the request.
func apiKey(ctx context.Context) gatehouse.APIKey {
	k, _ := ctx.Value(keyKey{}).(gatehouse.APIKey)
	return k
}

// requireScope lets a request through to next only with a valid key that
// carries scope and fits its rate limit, in that order:
//  1. an address that failed authentication too often gets 429 before any lookup;
//  2. no usable key is 401;
//  3. over the key's rate is 429;
//  4. a key without the scope is 403.
func (s *server) requireScope(scope gatehouse.Scope, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ctx := r.Context()
		addrBucket := "addr:" + ratelimit.ClientAddress(r)
		if wait, blocked := ratelimit.Exhausted(ctx, s.Limiter, addrBucket, s.FailedAuthLimit); blocked {
			s.Metrics.rateLimited.WithLabelValues("address").Inc()
			w.Header().Set("Retry-After", ceilSeconds(wait))
			s.writeError(w, r, errorf(http.StatusTooManyRequests, "rate_limited",
				"too many failed authentications from this address; retry after %s s", ceilSeconds(wait)))
			return
		}

		key, err := s.Auth.Authenticate(ctx, r.Header.Get("Authorization"))
		var failure *auth.Failure
		if errors.As(err, &failure) {
			s.Metrics.authFailures.WithLabelValues(failure.Reason).Inc()
			s.Limiter.Allow(ctx, addrBucket, s.FailedAuthLimit, 1)
			s.unauthorized(w, r, failure)
			return
		}
		if err != nil {
			s.writeError(w, r, err)
			return
		}
		ri := info(ctx)
		ri.orgID, ri.keyPrefix = key.OrgID.String(), key.Prefix

		if !s.allowKey(w, r, key) {
			return
		}
		if !key.HasScope(scope) {
			w.Header().Set("WWW-Authenticate", fmt.Sprintf(`Bearer realm="gatehouse", error="insufficient_scope", scope=%q`, scope))
			s.writeError(w, r, errorf(http.StatusForbidden, "insufficient_scope",
				"this API key lacks the %s scope this endpoint requires", scope))
			return
		}
		next.ServeHTTP(w, r.WithContext(context.WithValue(ctx, keyKey{}, key)))
	})
}

func (s *server) unauthorized(w http.ResponseWriter, r *http.Request, f *auth.Failure) {
	challenge := `Bearer realm="gatehouse"`
	message := "missing API key: send the header Authorization: Bearer <key>"
	if f.TokenSent() {
		challenge += `, error="invalid_token"`
		message = "invalid, revoked or expired API key"
	}
	w.Header().Set("WWW-Authenticate", challenge)
	s.writeError(w, r, errorf(http.StatusUnauthorized, "unauthenticated", "%s", message))
}

// allowKey spends one request of the key's bucket and writes the
// RateLimit headers; it answers 429 itself and returns false when the
// bucket is empty. When the limiter cannot decide, the request is served.
func (s *server) allowKey(w http.ResponseWriter, r *http.Request, key gatehouse.APIKey) bool {
	limit := s.KeyLimit
	if key.RateLimit != nil {
		limit.Rate = *key.RateLimit
	}
	res, err := s.Limiter.Allow(r.Context(), "key:"+key.ID.String(), limit, 1)
	if err != nil {
		s.Logger.LogAttrs(r.Context(), slog.LevelWarn, "rate limiter unavailable; request served unlimited",
			slog.String("requestId", requestID(r.Context())), slog.String("error", err.Error()))
		return true
	}
	h := w.Header()
	h.Set("RateLimit-Policy", `"default";q=`+strconv.Itoa(limit.Burst)+`;w=`+ceilSeconds(limit.Window()))
	h.Set("RateLimit", `"default";r=`+strconv.Itoa(res.Remaining)+`;t=`+ceilSeconds(res.ResetAfter))
	if res.Allowed {
		return true
	}
	s.Metrics.rateLimited.WithLabelValues("key").Inc()
	h.Set("Retry-After", ceilSeconds(max(res.RetryAfter, time.Second)))
	s.writeError(w, r, errorf(http.StatusTooManyRequests, "rate_limited",
		"rate limit of %s exceeded; retry after %s s", limit.Rate, ceilSeconds(max(res.RetryAfter, time.Second))))
	return false
}
