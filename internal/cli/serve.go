package cli

import (
	"context"
	"errors"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gatehouse/gatehouse"
	"github.com/gatehouse/gatehouse/internal/app"
	"github.com/gatehouse/gatehouse/internal/opencloud"
	"github.com/gatehouse/gatehouse/internal/ratelimit"
	"github.com/gatehouse/gatehouse/internal/server"
	"github.com/gatehouse/gatehouse/internal/service"
)

// serveSettings are the flags of serve and demo.
type serveSettings struct {
	db, addr, metricsAddr, redis, rate, burst, trustedProxies, openCloud, webhooksLease, publicURL *string
	webhooksAllowPrivate                                                                           *bool
	oidc                                                                                           oidcSettings
}

func addServeFlags(f *flags) serveSettings {
	return serveSettings{
		db:   f.db,
		addr: f.setting("addr", "GATEHOUSE_ADDR", "localhost:8080", "listen address"),
		metricsAddr: f.setting("metrics-addr", "GATEHOUSE_METRICS_ADDR", "",
			"a separate listen address for /metrics, which then leaves --addr; empty: /metrics on --addr"),
		redis: f.setting("redis", "GATEHOUSE_REDIS_URL", "", "Redis URL for rate limits shared across instances"),
		rate:  f.setting("rate-limit", "GATEHOUSE_RATE_LIMIT", "20/s", "per-key sustained rate, N/s or N/m"),
		burst: f.setting("rate-burst", "GATEHOUSE_RATE_BURST", "40", "per-key burst"),
		trustedProxies: f.setting("trusted-proxies", "GATEHOUSE_TRUSTED_PROXIES", "",
			"comma-separated CIDRs of load balancers whose X-Forwarded-For is believed"),
		openCloud: f.setting("opencloud-url", "GATEHOUSE_OPENCLOUD_URL", opencloud.DefaultBaseURL,
			"base URL of the platform's Open Cloud API, where issued commands are pushed for universes with a messaging key"),
		webhooksAllowPrivate: f.boolSetting("webhooks-allow-private", "GATEHOUSE_WEBHOOKS_ALLOW_PRIVATE",
			"let webhook endpoints use http and reach loopback, private and link-local addresses (a trusted network only)"),
		webhooksLease: f.setting("webhooks-lease", "GATEHOUSE_WEBHOOKS_LEASE", "30s",
			"how long an instance holds a webhook endpoint it delivers to: one that dies delays that endpoint so long, and loses nothing"),
		publicURL: f.setting("public-url", "GATEHOUSE_PUBLIC_URL", "",
			"where people reach this server, such as https://gatehouse.example.com: the links of alerts and invitations start with it; empty: alerts' are paths, invitations' start with the address the admin's browser used"),
		oidc: addOIDCFlags(f),
	}
}

// publicBase checks --public-url before anything starts.
func (s serveSettings) publicBase() (string, error) { return publicBase(*s.publicURL) }

// publicBase checks a --public-url: empty, or an absolute http(s) URL
// without query or fragment, returned without its trailing slash.
func publicBase(raw string) (string, error) {
	if raw == "" {
		return "", nil
	}
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" || u.RawQuery != "" || u.Fragment != "" {
		return "", usagef("--public-url must be an http(s) URL such as https://gatehouse.example.com, got %q", raw)
	}
	return strings.TrimRight(u.String(), "/"), nil
}

// openCloudURL checks --opencloud-url before anything starts: an
// absolute http(s) URL.
func (s serveSettings) openCloudURL() (string, error) {
	u, err := url.Parse(*s.openCloud)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" || u.RawQuery != "" || u.Fragment != "" {
		return "", usagef("--opencloud-url must be an http(s) URL such as %s, got %q", opencloud.DefaultBaseURL, *s.openCloud)
	}
	return strings.TrimRight(u.String(), "/"), nil
}

// webhookLease checks --webhooks-lease before anything starts.
func (s serveSettings) webhookLease() (time.Duration, error) {
	d, err := time.ParseDuration(*s.webhooksLease)
	if err != nil || d < time.Second || d > time.Hour {
		return 0, usagef("--webhooks-lease must be a duration from 1s to 1h, such as 30s, got %q", *s.webhooksLease)
	}
	return d, nil
}

// proxies checks --trusted-proxies before anything starts.
func (s serveSettings) proxies() (ratelimit.Proxies, error) {
	p, err := ratelimit.ParseProxies(*s.trustedProxies)
	if err != nil {
		return nil, usagef("--trusted-proxies: %v", err)
	}
	return p, nil
}

// keyLimit checks the rate flags before anything starts.
func (s serveSettings) keyLimit() (ratelimit.Limit, error) {
	rate, err := gatehouse.ParseRate(*s.rate)
	if err != nil {
		return ratelimit.Limit{}, usagef("--rate-limit: %v", err)
	}
	burst, err := strconv.Atoi(*s.burst)
	if err != nil || burst < 1 {
		return ratelimit.Limit{}, usagef("--rate-burst must be a positive integer, got %q", *s.burst)
	}
	return ratelimit.Limit{Rate: rate, Burst: burst}, nil
}

// drainTimeout bounds how long SIGTERM waits for in-flight requests; a
// variable only so that tests can shorten it. cutGrace bounds the wait,
// after that, for the requests then cut to end and log their lines.
var (
	drainTimeout = 30 * time.Second
	cutGrace     = 5 * time.Second
)

// check parses the flags of serve and demo and checks the rate and proxy
// flags, before anything starts.
func (s serveSettings) check(f *flags) error {
	if _, err := f.parse(0); err != nil {
		return err
	}
	if _, err := s.keyLimit(); err != nil {
		return err
	}
	if _, err := s.openCloudURL(); err != nil {
		return err
	}
	if _, err := s.webhookLease(); err != nil {
		return err
	}
	if _, err := s.oidcConfig(); err != nil {
		return err
	}
	_, err := s.proxies()
	return err
}

// openServing checks the flags of serve and demo and opens the database.
func openServing(ctx context.Context, f *flags, s serveSettings) (*app.DB, error) {
	if err := s.check(f); err != nil {
		return nil, err
	}
	return app.Open(ctx, *f.db, f.shardList()...)
}

func runServe(ctx context.Context, e *env) error {
	ctx = asServer(ctx)
	f := newFlags(e, "serve")
	s := addServeFlags(f)
	replica := f.dsnSetting("db-replica", "GATEHOUSE_DB_REPLICA", "", "PostgreSQL read replica for the event and location lists")
	db, err := openServing(ctx, f, s)
	if err != nil {
		return err
	}
	defer db.Close()
	if *replica != "" {
		if err := db.UseReplica(ctx, *replica); errors.Is(err, app.ErrNoReplica) {
			return usagef("--db-replica needs a postgres:// --db")
		} else if errors.Is(err, app.ErrReplicaWithShards) {
			return usagef("%v", err)
		} else if err != nil {
			return err
		}
	}
	lns, err := s.listen()
	if err != nil {
		return err
	}
	return serve(ctx, e, db, s, lns)
}

// serve runs the API on db, on the addresses of lns, until ctx ends, then
// drains in-flight requests and writes pending last-used times. It closes
// lns when it returns before serving.
//
// Stopping is designed to end well: requests still running when the drain
// timeout passes are cut (their contexts cancelled with server.ErrShutdown
// and their connections closed), each leaves an access-log line marked
// "cut": "shutdown" with its request id, and serve returns nil, so the
// process exits 0. It returns an error only when serving itself failed.
func serve(ctx context.Context, e *env, db *app.DB, s serveSettings, lns boundAddrs) error {
	started := false
	defer func() {
		if !started {
			lns.close()
		}
	}()
	limit, err := s.keyLimit()
	if err != nil {
		return err
	}
	proxies, err := s.proxies()
	if err != nil {
		return err
	}
	openCloud, err := s.openCloudURL()
	if err != nil {
		return err
	}
	lease, err := s.webhookLease()
	if err != nil {
		return err
	}
	public, err := s.publicBase()
	if err != nil {
		return err
	}
	oidc, err := s.oidcConfig()
	if err != nil {
		return err
	}
	a, err := app.New(ctx, app.Settings{
		DB:              db,
		Secret:          []byte(e.getenv("GATEHOUSE_SECRET")),
		Logger:          slog.New(slog.NewJSONHandler(e.stderr, nil)),
		Redis:           *s.redis,
		KeyLimit:        limit,
		TrustedProxies:  proxies,
		SeparateMetrics: *s.metricsAddr != "",
		OpenCloudURL:    openCloud,

		WebhooksAllowPrivate: *s.webhooksAllowPrivate,
		Webhooks:             func(w *service.WebhookSettings) { w.Lease = lease },
		PublicURL:            public,
		OIDC:                 oidc,
	})
	var redisErr *app.RedisError
	if errors.As(err, &redisErr) {
		return usagef("%v", err)
	}
	if err != nil {
		return err
	}
	logger, metrics := a.Logger, a.Metrics
	var inflight inFlight
	handler := inflight.track(a.Handler)
	// Requests run in base, not in ctx: SIGTERM must let them finish, and
	// only the drain's deadline cancels them.
	base, cutAll := context.WithCancelCause(context.WithoutCancel(ctx))
	defer cutAll(nil)
	srv := httpServer(handler, logger)
	srv.BaseContext = func(net.Listener) context.Context { return base }
	servers := []*http.Server{srv}
	listeners := []net.Listener{server.ProtocolErrors(lns.api, logger, metrics)}
	if lns.metrics != nil {
		mux := http.NewServeMux()
		mux.Handle("GET /metrics", metrics.Handler())
		servers, listeners = append(servers, httpServer(mux, logger)), append(listeners, lns.metrics)
		logger.Info("serving metrics", slog.String("addr", lns.metrics.Addr().String()))
	}
	started = true
	logger.Info("listening", slog.String("addr", lns.api.Addr().String()), slog.String("version", gatehouse.Version()), slog.String("database", databaseName(*s.db)))

	flushCtx, stopFlush := context.WithCancel(context.WithoutCancel(ctx))
	flushed := make(chan struct{})
	go func() { a.Background(flushCtx); close(flushed) }()

	errc := make(chan error, len(servers))
	for i, srv := range servers {
		go func() { errc <- srv.Serve(listeners[i]) }()
	}
	select {
	case err := <-errc:
		for _, srv := range servers {
			srv.Close()
		}
		stopFlush()
		<-flushed
		return err
	case <-ctx.Done():
	}
	logger.Info("shutting down: draining in-flight requests", slog.Duration("timeout", drainTimeout))
	// Waiting long polls answer now (with nothing new): a game server
	// polls again and reaches another instance.
	a.Service.EndPolls()
	drain, cancel := context.WithTimeout(context.WithoutCancel(ctx), drainTimeout)
	defer cancel()
	for _, srv := range servers[1:] {
		srv.Shutdown(drain)
	}
	if srv.Shutdown(drain) != nil {
		// Cancelling their context ends the requests waiting on the
		// database; closing their connections ends those writing to a
		// client that does not read. Each then logs its line, marked cut.
		logger.Warn("drain timeout passed: cutting the requests still running", slog.Int64("requests", inflight.n.Load()))
		cutAll(server.ErrShutdown)
		srv.Close()
		if !inflight.wait(cutGrace) {
			logger.Error("requests still running after being cut; stopping without them", slog.Int64("requests", inflight.n.Load()))
		}
	}
	stopFlush()
	<-flushed
	for range servers {
		if err := <-errc; !errors.Is(err, http.ErrServerClosed) {
			return err
		}
	}
	logger.Info("stopped")
	return nil
}

// inFlight counts the requests being served, so that a shutdown can wait
// for those it cut.
type inFlight struct {
	wg sync.WaitGroup
	n  atomic.Int64
}

func (f *inFlight) track(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		f.wg.Add(1)
		f.n.Add(1)
		defer func() { f.n.Add(-1); f.wg.Done() }()
		next.ServeHTTP(w, r)
	})
}

// wait reports whether every request ended within d.
func (f *inFlight) wait(d time.Duration) bool {
	done := make(chan struct{})
	go func() { f.wg.Wait(); close(done) }()
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-done:
		return true
	case <-t.C:
		return false
	}
}

// httpServer bounds what a client can hold: a slow client (slow-loris)
// gets 5 s for its headers and 30 s for the whole request, an idle
// connection 2 minutes, and headers 64 KiB.
func httpServer(handler http.Handler, logger *slog.Logger) *http.Server {
	return &http.Server{
		Handler:           handler,
		ReadHeaderTimeout: 5 * time.Second,
		ReadTimeout:       30 * time.Second,
		WriteTimeout:      60 * time.Second,
		IdleTimeout:       120 * time.Second,
		MaxHeaderBytes:    64 << 10,
		ErrorLog:          slog.NewLogLogger(logger.Handler(), slog.LevelWarn),
	}
}

// databaseName says which database dsn opens, for the start-up log line:
// the SQLite file's absolute path, or PostgreSQL's host, port and database.
// It never includes a user, a password or the query string, where a URL
// may carry credentials (password=…, sslkey=…).
func databaseName(dsn string) string {
	if !app.IsPostgres(dsn) {
		path := app.SQLitePath(dsn)
		if abs, err := filepath.Abs(path); err == nil {
			path = abs
		}
		return "sqlite:" + path
	}
	u, err := url.Parse(dsn)
	if err != nil {
		return "postgres (an unparsable URL)" // the URL itself could hold a password
	}
	return (&url.URL{Scheme: "postgres", Host: u.Host, Path: u.Path}).String()
}
