// Package app is the one wiring of Gatehouse: it builds the running
// service (store, limiter, authenticator, service, API and dashboard) from
// one Settings value with defaults. gatehouse serve, gatehouse demo and
// every test harness build it here, so that what is tested is what runs.
//
// It is also the only package outside the stores that holds a
// gatehouse.Store: the doors (internal/server, internal/dashboard,
// internal/cli) reach the records through service.Service alone.
package app

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/gatehouse/gatehouse"
	"github.com/gatehouse/gatehouse/internal/auth"
	"github.com/gatehouse/gatehouse/internal/dashboard"
	"github.com/gatehouse/gatehouse/internal/opencloud"
	"github.com/gatehouse/gatehouse/internal/password"
	"github.com/gatehouse/gatehouse/internal/ratelimit"
	"github.com/gatehouse/gatehouse/internal/requestid"
	"github.com/gatehouse/gatehouse/internal/server"
	"github.com/gatehouse/gatehouse/internal/service"
	"github.com/gatehouse/gatehouse/internal/sso"
	"github.com/gatehouse/gatehouse/internal/webhook"
	"github.com/google/uuid"
	"github.com/prometheus/client_golang/prometheus"
)

// Defaults of Settings: the production values.
var (
	// DefaultKeyLimit is the per-key limit of --rate-limit and --rate-burst.
	DefaultKeyLimit = ratelimit.Limit{Rate: gatehouse.Rate{Count: 20, Per: time.Second}, Burst: 40}
	// DefaultFailedAuthLimit bounds failed authentications per client address.
	DefaultFailedAuthLimit = ratelimit.Limit{Rate: gatehouse.Rate{Count: 10, Per: time.Second}, Burst: 20}
	// DefaultSignInLimit bounds failed dashboard sign-ins per email and
	// client network together (ratelimit.SignInNetwork): the strict bucket.
	DefaultSignInLimit = ratelimit.Limit{Rate: gatehouse.Rate{Count: 5, Per: time.Minute}, Burst: 10}
	// DefaultSignInCeiling bounds failed dashboard sign-ins per email
	// alone (guessing spread over many networks) and per network alone
	// (one network trying many emails): ten times the strict bucket's
	// burst and four times its rate, so that keeping an email locked takes
	// guessers in ten networks at once and four without pause.
	DefaultSignInCeiling = ratelimit.Limit{Rate: gatehouse.Rate{Count: 20, Per: time.Minute}, Burst: 100}
	// SecondFactorLimit bounds the wrong codes of a user's second factor,
	// from anywhere: a code is one of a million (three with the step of
	// skew either side), so its guesser, who has the password, is held
	// to a burst of 10, then 6 an hour (docs/security.md, "Two factors").
	SecondFactorLimit = ratelimit.Limit{Rate: gatehouse.Rate{Count: 6, Per: time.Hour}, Burst: 10}
)

// readsPerOrg, readWait and queryTimeout bound every door's event reads:
// an organization runs at most readsPerOrg at once (a SQLite file has
// max(4, cores) read connections; the rest stay for other organizations),
// a read waits up to readWait for its turn, then answers busy, and none
// runs longer than queryTimeout. See docs/decisions.md.
const (
	readsPerOrg  = 2
	readWait     = time.Second
	queryTimeout = 10 * time.Second
)

// Settings are everything a running Gatehouse is built from. Only DB is
// required; every zero value means the default named beside it.
type Settings struct {
	DB *DB
	// Secret signs cursors and sessions; empty: the one stored in the
	// database (GATEHOUSE_SECRET sets it).
	Secret []byte
	// Logger writes JSON lines; nil: discarded.
	Logger *slog.Logger
	// Now is the clock of every part; nil: time.Now.
	Now func() time.Time
	// Redis, when set, shares rate limits across instances (--redis).
	Redis string
	// Limiter replaces the in-process (or Redis) limiter: tests share one.
	Limiter ratelimit.Limiter
	// Registry collects the metrics; nil: a new one.
	Registry *prometheus.Registry
	// KeyLimit, FailedAuthLimit, SignInLimit, SignInCeiling: zero means
	// the Default ones.
	KeyLimit, FailedAuthLimit, SignInLimit, SignInCeiling ratelimit.Limit
	// TrustedProxies are the load balancers whose X-Forwarded-For is believed.
	TrustedProxies ratelimit.Proxies
	// SeparateMetrics leaves /metrics to a listener of the caller's.
	SeparateMetrics bool
	// ReadSlots bound every door's event reads per organization; nil:
	// readsPerOrg at once, waiting readWait. QueryTimeout bounds each
	// read, each API request and each dashboard page; zero: queryTimeout.
	ReadSlots    *service.ReadSlots
	QueryTimeout time.Duration
	// Hasher hashes dashboard passwords; nil: argon2id (internal/password).
	Hasher service.PasswordHasher
	// AuthStore, when set, wraps the store the authenticator reads keys
	// from: a test that counts the lookups.
	AuthStore func(gatehouse.Store) gatehouse.Store
	// Configure, when set, edits the API's configuration last: a test's
	// extra routes.
	Configure func(*server.Config)
	// OpenCloudURL is the platform's Open Cloud API that issued commands
	// are pushed to (--opencloud-url); empty: opencloud.DefaultBaseURL.
	// Tests point it at a local server.
	OpenCloudURL string
	// WebhooksAllowPrivate lets webhook endpoints be http and reach
	// loopback and private addresses (--webhooks-allow-private).
	WebhooksAllowPrivate bool
	// Webhooks, when set, edits the webhook settings last: tests shorten
	// the lease and the backoff.
	Webhooks func(*service.WebhookSettings)
	// Retention, when set, edits the retention settings last.
	Retention func(*service.RetentionSettings)
	// OIDC is the OpenID provider dashboard users may sign in through
	// (--oidc-issuer, …); an empty Issuer: none. Its RedirectURL is set
	// from PublicURL.
	OIDC sso.Config
	// PublicURL is where people reach this server (--public-url): the
	// links of alerts start with it; empty: they are paths.
	PublicURL string
	// Alerts, when set, edits the alert settings last: tests shorten the
	// polls and point the links at their server.
	Alerts func(*service.AlertSettings)
}

// App is a built Gatehouse: Handler serves the API and the dashboard;
// the caller runs Background (the batched last-used writes, the wakes of
// long polls, the expiry of commands) and serves Metrics.Handler when
// SeparateMetrics is set.
type App struct {
	Service *service.Service
	// Publisher pushes issued commands to the platform's messaging;
	// Background runs it.
	Publisher *opencloud.Publisher
	Auth      *auth.Authenticator
	Limiter   ratelimit.Limiter
	Metrics   *server.Metrics
	Logger    *slog.Logger
	Handler   http.Handler
}

// RedisError: the Redis URL of the settings cannot be used.
type RedisError struct{ err error }

func (e *RedisError) Error() string { return "--redis: " + e.err.Error() }
func (e *RedisError) Unwrap() error { return e.err }

// New builds Gatehouse from s. Its errors: the service secret cannot be
// read (a store error), or a *RedisError.
func New(ctx context.Context, s Settings) (*App, error) {
	if s.Now == nil {
		s.Now = time.Now
	}
	if s.Logger == nil {
		s.Logger = slog.New(slog.NewJSONHandler(io.Discard, nil))
	}
	// Every part (the limiter too) logs with this logger, so any line
	// logged with a request's context names that request.
	logger := requestid.Logger(s.Logger)
	if len(s.Secret) == 0 {
		secret, err := s.DB.store.Secret(ctx)
		if err != nil {
			return nil, fmt.Errorf("reading the service secret: %w", err)
		}
		s.Secret = secret
	}
	if s.Registry == nil {
		s.Registry = prometheus.NewRegistry()
	}
	limiter := s.Limiter
	if limiter == nil {
		local := ratelimit.NewLocal(s.Now)
		limiter = local
		if s.Redis != "" {
			shared, err := ratelimit.NewRedis(s.Redis, local, logger, s.Registry)
			if err != nil {
				return nil, &RedisError{err}
			}
			limiter = shared
		}
	}
	orDefault(&s.KeyLimit, DefaultKeyLimit)
	orDefault(&s.FailedAuthLimit, DefaultFailedAuthLimit)
	orDefault(&s.SignInLimit, DefaultSignInLimit)
	orDefault(&s.SignInCeiling, DefaultSignInCeiling)
	if s.QueryTimeout == 0 {
		s.QueryTimeout = queryTimeout
	}
	if s.ReadSlots == nil {
		s.ReadSlots = service.NewReadSlots(readsPerOrg, readWait)
	}
	if s.Hasher == nil {
		s.Hasher = password.Hasher{}
	}
	authStore := s.DB.store
	if s.AuthStore != nil {
		authStore = s.AuthStore(authStore)
	}
	authn := auth.New(authStore, s.Now)
	authn.Logger = logger
	// The publisher opens each universe's key through the service, which
	// needs the publisher: svc is set before anything is published.
	var svc *service.Service
	publisher := opencloud.New(opencloud.Config{BaseURL: s.OpenCloudURL, Logger: logger, Registry: s.Registry,
		Keys: func(ctx context.Context, orgID uuid.UUID, universeID string) (string, error) {
			return svc.OpenMessagingKey(ctx, orgID, universeID)
		}})
	hooks := service.WebhookSettings{AllowPrivate: s.WebhooksAllowPrivate,
		Send: webhook.Sender(webhook.NewClient(s.WebhooksAllowPrivate))}
	if s.Webhooks != nil {
		s.Webhooks(&hooks)
	}
	alerts := service.AlertSettings{DashboardURL: s.PublicURL, Send: webhook.Exchange(webhook.NewClient(s.WebhooksAllowPrivate))}
	if s.Alerts != nil {
		s.Alerts(&alerts)
	}
	retention := retentionMetrics(s.Registry)
	if s.Retention != nil {
		s.Retention(&retention)
	}
	refusals := signInRefusals(s.Registry)
	var provider service.IdentityProvider
	if s.OIDC.Issuer != "" {
		cfg := s.OIDC
		cfg.RedirectURL = strings.TrimRight(s.PublicURL, "/") + sso.CallbackPath
		provider = sso.New(cfg)
	}
	svc = service.New(service.Config{
		Store:               service.LimitReads(s.DB.store, s.ReadSlots, s.QueryTimeout),
		Secret:              s.Secret,
		Hasher:              s.Hasher,
		SignInLimiter:       signInLimiter(limiter, s.SignInLimit, s.SignInCeiling, refusals),
		SecondFactorLimiter: secondFactorLimiter(limiter, s.SignInCeiling, refusals),
		Now:                 s.Now,
		Publisher:           publisher,
		Provider:            provider,
		Webhooks:            hooks,
		Retention:           retention,
		Alerts:              alerts,
	})
	metrics := server.NewMetrics(s.Registry)
	s.Registry.MustRegister(expiringKeys{svc: svc, logger: logger})
	cfg := server.Config{
		Service:         svc,
		Auth:            authn,
		Limiter:         limiter,
		KeyLimit:        s.KeyLimit,
		FailedAuthLimit: s.FailedAuthLimit,
		TrustedProxies:  s.TrustedProxies,
		Logger:          logger,
		Metrics:         metrics,
		Now:             s.Now,
		QueryTimeout:    s.QueryTimeout,
		SeparateMetrics: s.SeparateMetrics,
		Dashboard:       dashboard.New(dashboard.Config{Service: svc, Logger: logger, Now: s.Now, QueryTimeout: s.QueryTimeout, PublicURL: s.PublicURL}),
	}
	if s.Configure != nil {
		s.Configure(&cfg)
	}
	return &App{Service: svc, Publisher: publisher, Auth: authn, Limiter: limiter, Metrics: metrics, Logger: logger,
		Handler: server.New(cfg)}, nil
}

// Background runs the instance's background work until ctx ends: the
// batched last-used writes of keys, the work of commands
// (service.Service.RunCommands: wakes from other instances, expiry
// under a lease), the push of the commands this instance issued to the
// platform's messaging, and each of workers. Every instance runs it; they
// coordinate through the database.
func (a *App) Background(ctx context.Context) {
	done := make(chan struct{})
	go func() { a.Auth.Run(ctx); close(done) }()
	pushed := make(chan struct{})
	go func() { a.Publisher.Run(ctx); close(pushed) }()
	defer func() { <-pushed }()
	holder := instanceName()
	var running sync.WaitGroup
	defer running.Wait()
	for _, w := range a.workers() {
		running.Go(func() {
			w.run(ctx, holder, func(err error) { a.Logger.Error(w.failed, slog.String("error", err.Error())) })
		})
	}
	a.Service.RunCommands(ctx, holder, func(err error) {
		a.Logger.Error("commands background work failed; retrying", slog.String("error", err.Error()))
	})
	<-done
}

// worker is background work of every instance, run until ctx ends, with
// what its log says when a round fails (it retries the next).
type worker struct {
	run    func(ctx context.Context, holder string, report func(error))
	failed string
}

// workers are the background work that coordinates through the database:
// the planner statistics of the event tables (under a lease), the
// deletion of expired events (under a lease), the partitions of events
// ahead (under an advisory lock), the delivery of webhooks
// (each endpoint under a lease), alert rules (each rule and alert under a
// lease), and the rollup of insights kept behind ingest (each
// organization under a lock).
func (a *App) workers() []worker {
	return []worker{
		{a.Service.RunStatistics, "refreshing the statistics of events failed; retrying"},
		{a.Service.RunRetention, "deleting expired events failed; retrying"},
		{a.Service.RunPartitions, "making the partitions of events ahead failed; retrying"},
		{a.Service.RunWebhooks, "delivering webhooks failed; retrying"},
		{a.Service.RunAlerts, "evaluating or delivering alerts failed; retrying"},
		{a.Service.RunInsights, "rolling up insights failed; retrying"},
	}
}

// retentionMetrics are the retention settings that count what the
// deletion of expired events does: the events it deleted, and when the
// oldest event kept occurred.
func retentionMetrics(reg *prometheus.Registry) service.RetentionSettings {
	deleted := prometheus.NewCounter(prometheus.CounterOpts{
		Name: "gatehouse_retention_deleted_events_total",
		Help: "Events deleted because they were older than their organization's retention.",
	})
	oldest := prometheus.NewGauge(prometheus.GaugeOpts{
		Name: "gatehouse_retention_oldest_event_timestamp_seconds",
		Help: "When the oldest event kept (of any organization) occurred, as of the last pass of the instance that ran it.",
	})
	reg.MustRegister(deleted, oldest)
	return service.RetentionSettings{
		Deleted: func(n int) { deleted.Add(float64(n)) },
		Oldest:  func(at time.Time) { oldest.Set(float64(at.Unix())) },
	}
}

// instanceName names this process among the instances sharing a
// database: the holder of the leases it takes.
func instanceName() string {
	host, _ := os.Hostname()
	return fmt.Sprintf("%s/%d/%s", host, os.Getpid(), gatehouse.NewID().String()[24:])
}

func orDefault(l *ratelimit.Limit, def ratelimit.Limit) {
	if *l == (ratelimit.Limit{}) {
		*l = def
	}
}

// expiringKeys is the gauge of the keys, of every organization, that
// expire within gatehouse.ExpiryWarning: read from the database at each
// scrape (one count), so that every instance reports the same. It names
// no organization: whoever reads the metrics learns a number, never
// whose keys. A scrape the database does not answer leaves the gauge out
// and logs why, rather than failing the other metrics.
type expiringKeys struct {
	svc    *service.Service
	logger *slog.Logger
}

var expiringKeysDesc = prometheus.NewDesc("gatehouse_api_keys_expiring",
	"Active API keys, of every organization, that expire within 14 days: replace them before their users (a game's servers) fail.", nil, nil)

func (c expiringKeys) Describe(ch chan<- *prometheus.Desc) { ch <- expiringKeysDesc }

func (c expiringKeys) Collect(ch chan<- prometheus.Metric) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	n, err := c.svc.APIKeysExpiring(ctx)
	if err != nil {
		c.logger.Warn("counting the keys that expire soon failed; gatehouse_api_keys_expiring left out of this scrape",
			slog.String("error", err.Error()))
		return
	}
	ch <- prometheus.MustNewConstMetric(expiringKeysDesc, prometheus.GaugeValue, float64(n))
}
