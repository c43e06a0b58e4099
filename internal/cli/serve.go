package cli

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"strconv"
	"time"

	"github.com/gatehouse/gatehouse"
	"github.com/gatehouse/gatehouse/internal/auth"
	"github.com/gatehouse/gatehouse/internal/dashboard"
	"github.com/gatehouse/gatehouse/internal/ratelimit"
	"github.com/gatehouse/gatehouse/internal/server"
	"github.com/prometheus/client_golang/prometheus"
)

// serveSettings are the flags of serve and demo.
type serveSettings struct {
	addr, redis, rate, burst *string
}

func addServeFlags(f *flags) serveSettings {
	return serveSettings{
		addr:  f.setting("addr", "GATEHOUSE_ADDR", "localhost:8080", "listen address"),
		redis: f.setting("redis", "GATEHOUSE_REDIS_URL", "", "Redis URL for rate limits shared across instances"),
		rate:  f.setting("rate-limit", "GATEHOUSE_RATE_LIMIT", "20/s", "per-key sustained rate, N/s or N/m"),
		burst: f.setting("rate-burst", "GATEHOUSE_RATE_BURST", "40", "per-key burst"),
	}
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

// failedAuthLimit bounds failed authentications per client address.
var failedAuthLimit = ratelimit.Limit{Rate: gatehouse.Rate{Count: 10, Per: time.Second}, Burst: 20}

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

// drainTimeout bounds how long SIGTERM waits for in-flight requests.
const drainTimeout = 30 * time.Second

// openServing parses the flags of serve and demo, checks the rate flags
// before anything starts, and opens the store.
func openServing(ctx context.Context, f *flags, s serveSettings) (gatehouse.Store, ratelimit.Limit, error) {
	if _, err := f.parse(0); err != nil {
		return nil, ratelimit.Limit{}, err
	}
	limit, err := s.keyLimit()
	if err != nil {
		return nil, limit, err
	}
	store, err := openStore(ctx, *f.db)
	return store, limit, err
}

func runServe(ctx context.Context, e *env) error {
	f := newFlags(e, "serve")
	s := addServeFlags(f)
	replica := f.setting("db-replica", "GATEHOUSE_DB_REPLICA", "", "PostgreSQL read replica for the event and location lists")
	store, limit, err := openServing(ctx, f, s)
	if err != nil {
		return err
	}
	defer store.Close()
	if *replica != "" {
		r, ok := store.(interface {
			UseReplica(context.Context, string) error
		})
		if !ok {
			return usagef("--db-replica needs a postgres:// --db")
		}
		if err := r.UseReplica(ctx, *replica); err != nil {
			return err
		}
	}
	return serve(ctx, e, store, s, limit)
}

// serve runs the API on store until ctx ends, then drains in-flight
// requests and writes pending last-used times.
func serve(ctx context.Context, e *env, store gatehouse.Store, s serveSettings, limit ratelimit.Limit) error {
	logger := slog.New(slog.NewJSONHandler(e.stderr, nil))
	secret := []byte(e.getenv("GATEHOUSE_SECRET"))
	if len(secret) == 0 {
		var err error
		if secret, err = store.Secret(ctx); err != nil {
			return fmt.Errorf("reading the service secret: %w", err)
		}
	}
	reg := prometheus.NewRegistry()
	var limiter ratelimit.Limiter = ratelimit.NewLocal(time.Now)
	if *s.redis != "" {
		shared, err := ratelimit.NewRedis(*s.redis, ratelimit.NewLocal(time.Now), logger, reg)
		if err != nil {
			return usagef("--redis: %v", err)
		}
		limiter = shared
	}
	authn := auth.New(store, time.Now)
	store = gatehouse.LimitReads(store, gatehouse.NewReadSlots(readsPerOrg, readWait), queryTimeout)
	cursors := gatehouse.NewCursors(secret)
	handler := server.New(server.Config{
		Store:           store,
		Auth:            authn,
		Limiter:         limiter,
		KeyLimit:        limit,
		FailedAuthLimit: failedAuthLimit,
		Cursors:         cursors,
		Logger:          logger,
		Metrics:         server.NewMetrics(reg),
		Dashboard: dashboard.New(dashboard.Config{
			Store: store, Cursors: cursors, Sessions: gatehouse.NewSessions(secret), Limiter: limiter, Logger: logger,
			SignInLimit: ratelimit.Limit{Rate: gatehouse.Rate{Count: 5, Per: time.Minute}, Burst: 10},
		}),
	})
	srv := httpServer(handler, logger)
	ln, err := net.Listen("tcp", *s.addr)
	if err != nil {
		return err
	}
	logger.Info("listening", slog.String("addr", ln.Addr().String()))

	flushCtx, stopFlush := context.WithCancel(context.WithoutCancel(ctx))
	flushed := make(chan struct{})
	go func() { authn.Run(flushCtx); close(flushed) }()

	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		stopFlush()
		<-flushed
		return err
	case <-ctx.Done():
	}
	logger.Info("shutting down: draining in-flight requests")
	drain, cancel := context.WithTimeout(context.WithoutCancel(ctx), drainTimeout)
	defer cancel()
	err = srv.Shutdown(drain)
	stopFlush()
	<-flushed
	if err := <-errc; !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	logger.Info("stopped")
	return err
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
