package app

// The limits of dashboard sign-ins: failed passwords and wrong codes of
// a second factor (docs/security.md, "Sign-in lockouts" and "Two
// factors").

import (
	"context"
	"time"

	"github.com/gatehouse/gatehouse/internal/ratelimit"
	"github.com/gatehouse/gatehouse/internal/service"
	"github.com/prometheus/client_golang/prometheus"
)

// signInLimiter spends a failed sign-in from three buckets at once (see
// service.Service.SignIn): the strict one of the email from the
// client's network, and the ceilings of the email and of the network.
// A guesser empties the strict bucket of its own network only, so the
// owner's right password still passes from another network; the email's
// ceiling bounds guessing spread over many networks. Each refusal, a
// lockout, is counted by the bucket that refused it.
func signInLimiter(l ratelimit.Limiter, strict, ceiling ratelimit.Limit, refused *prometheus.CounterVec) service.SignInLimiter {
	limits := []string{"email_network", "email", "network"}
	return func(ctx context.Context, email, network string) (func(context.Context), time.Duration, bool) {
		r, which, wait, ok := ratelimit.ReserveEach(ctx, l,
			ratelimit.Bucket{Key: "signin-email-net:" + network + " " + email, Limit: strict},
			ratelimit.Bucket{Key: "signin-email:" + email, Limit: ceiling},
			ratelimit.Bucket{Key: "signin-net:" + network, Limit: ceiling})
		if !ok {
			refused.WithLabelValues(limits[which]).Inc()
		}
		return r.Refund, wait, ok
	}
}

// secondFactorLimiter spends a wrong code of a second factor from the
// user's bucket (SecondFactorLimit) and from the network's ceiling,
// which failed passwords spend too.
func secondFactorLimiter(l ratelimit.Limiter, ceiling ratelimit.Limit, refused *prometheus.CounterVec) service.SignInLimiter {
	limits := []string{"second_factor", "network"}
	return func(ctx context.Context, user, network string) (func(context.Context), time.Duration, bool) {
		r, which, wait, ok := ratelimit.ReserveEach(ctx, l,
			ratelimit.Bucket{Key: "signin-code:" + user, Limit: SecondFactorLimit},
			ratelimit.Bucket{Key: "signin-net:" + network, Limit: ceiling})
		if !ok {
			refused.WithLabelValues(limits[which]).Inc()
		}
		return r.Refund, wait, ok
	}
}

// signInRefusals counts the sign-ins and codes refused by a limit.
func signInRefusals(reg *prometheus.Registry) *prometheus.CounterVec {
	refused := prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "gatehouse_signin_refused_total",
		Help: "Dashboard sign-ins refused before their password or code was checked (429: a lockout), by the limit that was spent: email_network (the email from the client's network), email (the email from anywhere), network (any email or code from the client's network) or second_factor (the codes of one user's second factor).",
	}, []string{"limit"})
	for _, limit := range []string{"email_network", "email", "network", "second_factor"} {
		refused.WithLabelValues(limit) // known series start at zero
	}
	reg.MustRegister(refused)
	return refused
}
