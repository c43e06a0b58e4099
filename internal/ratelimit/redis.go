package ratelimit

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"github.com/go-redis/redis_rate/v10"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/redis/go-redis/v9"
)

// Bounds on Redis: a limiter decision must never slow a request much, and
// a dead Redis is retried once a second, not on every request.
const (
	redisTimeout = 100 * time.Millisecond
	redisRetry   = time.Second
)

// Redis is a GCRA limiter shared by every instance through Redis. While
// Redis cannot be reached it decides with its per-process fallback instead
// (logging the change once each way and counting each fallback decision),
// so requests are still answered, and it returns to Redis by itself.
type Redis struct {
	client   *redis.Client
	limiter  *redis_rate.Limiter
	fallback *Local
	logger   *slog.Logger
	now      func() time.Time

	fallbacks prometheus.Counter
	up        prometheus.Gauge

	mu      sync.Mutex
	down    bool
	retryAt time.Time
}

var _ Limiter = (*Redis)(nil)

// NewRedis connects to the Redis at url (redis://host:port/db) and
// registers its metrics on reg. It does not wait for Redis: an unreachable
// Redis means per-process limits until it answers. go-redis's own messages
// go to logger too (process-wide: go-redis has one logger).
func NewRedis(url string, fallback *Local, logger *slog.Logger, reg prometheus.Registerer) (*Redis, error) {
	opts, err := redis.ParseURL(url)
	if err != nil {
		return nil, err
	}
	opts.DialTimeout, opts.ReadTimeout, opts.WriteTimeout = 2*redisTimeout, redisTimeout, redisTimeout
	opts.PoolTimeout, opts.MaxRetries = redisTimeout, -1 // -1: no retries
	routeRedisLogs(logger)
	client := redis.NewClient(opts)
	r := &Redis{
		client:   client,
		limiter:  redis_rate.NewLimiter(client),
		fallback: fallback,
		logger:   logger,
		now:      time.Now,
		fallbacks: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "gatehouse_rate_limit_fallbacks_total",
			Help: "Rate-limit decisions made per process because Redis could not be reached.",
		}),
		up: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "gatehouse_rate_limit_redis_up",
			Help: "1 while rate limits are shared through Redis, 0 while they fall back to per-process limits.",
		}),
	}
	r.up.Set(1)
	reg.MustRegister(r.fallbacks, r.up)
	return r, nil
}

// Allow spends n requests of bucket key in Redis, or in the per-process
// fallback while Redis is unreachable. It never returns an error.
func (r *Redis) Allow(ctx context.Context, key string, limit Limit, n int) (Result, error) {
	if r.skipRedis() {
		return r.local(ctx, key, limit, n)
	}
	// The decision outlives the request: a client that hangs up must not
	// cancel the Redis call, or its cancellation reads as "Redis is down"
	// and switches every key to per-process limits. The call keeps its own
	// short timeout instead.
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), redisTimeout)
	defer cancel()
	res, err := r.limiter.AllowN(rctx, "gatehouse:rl:"+key,
		redis_rate.Limit{Rate: limit.Rate.Count, Period: limit.Rate.Per, Burst: limit.Burst}, n)
	if err != nil {
		r.markDown(err)
		return r.local(ctx, key, limit, n)
	}
	r.markUp()
	out := Result{Limit: limit, Allowed: res.Allowed > 0 || n == 0 && res.Remaining >= 0,
		Remaining: max(res.Remaining, 0), ResetAfter: max(res.ResetAfter, 0)}
	if !out.Allowed {
		out.RetryAfter = max(res.RetryAfter, 0)
	}
	return out, nil
}

func (r *Redis) local(ctx context.Context, key string, limit Limit, n int) (Result, error) {
	r.fallbacks.Inc()
	return r.fallback.Allow(ctx, key, limit, n)
}

// skipRedis reports whether Redis is known down and not yet due a retry.
func (r *Redis) skipRedis() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if !r.down {
		return false
	}
	if now := r.now(); now.After(r.retryAt) {
		r.retryAt = now.Add(redisRetry) // this request probes; others keep falling back
		return false
	}
	return true
}

func (r *Redis) markDown(err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.retryAt = r.now().Add(redisRetry)
	if !r.down {
		r.down = true
		r.up.Set(0)
		r.logger.Warn("Redis unreachable: rate limits are per process until it is back", slog.String("error", err.Error()))
	}
}

func (r *Redis) markUp() {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.down {
		r.down = false
		r.up.Set(1)
		r.logger.Info("Redis is back: rate limits are shared again")
	}
}
