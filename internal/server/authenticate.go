package server

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"slices"
	"strconv"
	"strings"
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
//  1. a second Authorization header is 400: which one counts is ambiguous;
//  2. an attempt that could be a failed authentication spends one failure
//     of its client address in advance (and gets it back if the key is
//     good); an address that has none left gets 429 before any lookup.
//     A key this instance has found valid needs no such spending, so
//     failures of others at a shared address never refuse it;
//  3. no usable key is 401;
//  4. over the key's rate is 429;
//  5. a key without the scope is 403.
func (s *server) requireScope(scope gatehouse.Scope, next http.Handler) http.Handler {
	return s.requireScopeFor([]gatehouse.Scope{scope}, 0, next)
}

// requireAnyScope is requireScope for a route that keys with any one of
// scopes may call (the service may ask more of some requests).
func (s *server) requireAnyScope(scopes []gatehouse.Scope, next http.Handler) http.Handler {
	return s.requireScopeFor(scopes, 0, next)
}

// requireLongPoll is requireScope for a route that may wait up to wait
// for something to answer (a game server's sync): its requests may last
// that much longer than the query timeout. The handler narrows the
// deadline to the wait its request asks for.
func (s *server) requireLongPoll(scope gatehouse.Scope, wait time.Duration, next http.Handler) http.Handler {
	return s.requireScopeFor([]gatehouse.Scope{scope}, wait, next)
}

func (s *server) requireScopeFor(scopes []gatehouse.Scope, wait time.Duration, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// Every API route passes here: its work, the key lookup included,
		// is bounded by the query timeout (and a long poll's wait).
		ctx, cancel := context.WithTimeout(r.Context(), wait+s.QueryTimeout)
		defer cancel()
		r = r.WithContext(ctx)
		if len(r.Header.Values("Authorization")) > 1 {
			var ve gatehouse.ValidationError
			ve.Add("Authorization", "must be given at most once")
			s.writeError(w, r, &ve)
			return
		}
		key, err := s.Auth.Authenticate(ctx, r.Header.Get("Authorization"), s.reserveFailure(r))
		var failure *auth.Failure
		var blocked *addressBlocked
		switch {
		case errors.As(err, &blocked):
			s.Metrics.rateLimited.WithLabelValues("address").Inc()
			w.Header().Set("Retry-After", ceilSeconds(blocked.wait))
			s.writeError(w, r, errorf(http.StatusTooManyRequests, "rate_limited",
				"too many failed authentications from this address; retry after %s s", ceilSeconds(blocked.wait)))
			return
		case errors.As(err, &failure):
			s.Metrics.authFailures.WithLabelValues(failure.Reason).Inc()
			s.unauthorized(w, r, failure)
			return
		case err != nil:
			s.writeError(w, r, err)
			return
		}
		ri := info(ctx)
		ri.orgID, ri.keyPrefix = key.OrgID.String(), key.Prefix

		if !s.allowKey(w, r, key) {
			return
		}
		if !slices.ContainsFunc(scopes, key.HasScope) {
			names := gatehouse.JoinScopes(scopes)
			w.Header().Set("WWW-Authenticate", fmt.Sprintf(`Bearer realm="gatehouse", error="insufficient_scope", scope=%q`, strings.ReplaceAll(names, ",", " ")))
			s.writeError(w, r, errorf(http.StatusForbidden, "insufficient_scope",
				"this API key lacks the %s scope this endpoint requires", strings.ReplaceAll(names, ",", " or ")))
			return
		}
		// The key acts: what the service records of who changed what.
		ctx = gatehouse.WithActor(context.WithValue(ctx, keyKey{}, key), gatehouse.Actor{Type: gatehouse.ActorKey,
			ID: key.ID, Label: key.Prefix, Scopes: key.Scopes, Reach: key.Reach, RequestID: requestID(ctx), ClientAddress: ratelimit.ClientAddress(r)})
		next.ServeHTTP(w, r.WithContext(ctx))
	})
}

// addressBlocked: the client address has no failed authentication left to
// spend until wait has passed.
type addressBlocked struct{ wait time.Duration }

func (e *addressBlocked) Error() string { return "too many failed authentications from this address" }

// reserveFailure spends one failed authentication of r's client address
// in advance. Spending before the lookup, not after it, is what bounds
// the lookups of an address to its burst even when its requests all
// arrive at once.
func (s *server) reserveFailure(r *http.Request) auth.Reserve {
	bucket := "addr:" + ratelimit.ClientNetwork(r)
	return func(ctx context.Context) (func(), error) {
		res, wait, ok := ratelimit.Reserve(ctx, s.Limiter, s.FailedAuthLimit, bucket)
		if !ok {
			return nil, &addressBlocked{wait: wait}
		}
		return func() { res.Refund(ctx) }, nil
	}
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
	limit := s.KeyLimit.ForKey(key.RateLimit)
	// A key's own rate names its bucket too: a changed rate starts a full
	// bucket at once, instead of paying first the debt run up at the old
	// rate (two minutes of it for an exhausted key at 1/m).
	bucket := "key:" + key.ID.String()
	if key.RateLimit != nil {
		bucket += "@" + key.RateLimit.String()
	}
	res, err := s.Limiter.Allow(r.Context(), bucket, limit, 1)
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
