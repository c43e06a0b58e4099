// Package server is Gatehouse's HTTP API: one route list (routes.go), one
// table from errors to statuses (errors.go), and the middleware every
// request passes through.
package server

import (
	"log/slog"
	"net/http"
	"time"

	"github.com/gatehouse/gatehouse/internal/auth"
	"github.com/gatehouse/gatehouse/internal/ratelimit"
	"github.com/gatehouse/gatehouse/internal/requestid"
	"github.com/gatehouse/gatehouse/internal/service"
)

// Config is everything the API needs. Service, Auth, Limiter, Logger and
// Metrics are required.
type Config struct {
	// Service performs every operation; the handlers only translate HTTP.
	Service *service.Service
	Auth    *auth.Authenticator
	Limiter ratelimit.Limiter
	// KeyLimit is the default per-key limit; a key's own RateLimit replaces its rate.
	KeyLimit ratelimit.Limit
	// FailedAuthLimit bounds failed authentications per client address.
	FailedAuthLimit ratelimit.Limit
	// SyncLimit bounds the syncs of one game server (job id) under one
	// key; it defaults to DefaultSyncLimit.
	SyncLimit ratelimit.Limit
	Logger    *slog.Logger
	Metrics   *Metrics
	// Now is the clock; it defaults to time.Now.
	Now func() time.Time
	// QueryTimeout bounds each store call; it defaults to 10 s.
	QueryTimeout time.Duration
	// TrustedProxies are the load balancers whose X-Forwarded-For names
	// the client address; none by default.
	TrustedProxies ratelimit.Proxies
	// Dashboard, when set, is served under /dashboard/ behind the same
	// request ids, access log, metrics and panic recovery as the API.
	Dashboard http.Handler
	// SeparateMetrics leaves GET /metrics out of the routes (it is then a
	// 404 here): the caller serves Metrics.Handler on a listener of its own.
	SeparateMetrics bool

	extraRoutes func(*http.ServeMux) // tests only
}

// server holds the configuration the handlers share.
type server struct {
	Config
}

// New returns the API as one handler: every route of routes.go wrapped in
// client-address resolution, request ids, recovery, access logging and
// metrics.
func New(cfg Config) http.Handler {
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.SyncLimit == (ratelimit.Limit{}) {
		cfg.SyncLimit = DefaultSyncLimit
	}
	if cfg.QueryTimeout == 0 {
		cfg.QueryTimeout = 10 * time.Second
	}
	cfg.Logger = requestid.Logger(cfg.Logger)
	s := &server{Config: cfg}
	mux := http.NewServeMux()
	s.addRoutes(mux)
	return cfg.TrustedProxies.Resolve(s.withRequestID(s.observe(compress(s.recoverPanics(mux)))))
}
