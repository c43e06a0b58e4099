// Package opencloud pushes issued commands to the platform's messaging
// (Roblox Open Cloud Messaging) for the universes whose organization
// stored a key: best effort, in the background, never holding the
// request that issued the command. Game-server sync stays the source of
// truth and of acknowledgements (see docs/api.md,
// "Push keys: /messaging").
package opencloud

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/gatehouse/gatehouse"
	"github.com/gatehouse/gatehouse/internal/clock"
	"github.com/gatehouse/gatehouse/internal/service"
	"github.com/google/uuid"
	"github.com/prometheus/client_golang/prometheus"
)

// DefaultBaseURL is the platform's Open Cloud API (--opencloud-url).
const DefaultBaseURL = "https://apis.roblox.com"

// Topic is the messaging topic game servers subscribe to.
const Topic = "gatehouse"

// Defaults of Config.
const (
	DefaultQueue   = 256
	requestTimeout = 10 * time.Second
	maxAttempts    = 3
	// maxRetryWait caps a Retry-After: a retry is brief or not at all.
	maxRetryWait = 5 * time.Second
	// retryWait is the pause before a retry the platform gave no time for.
	retryWait = 500 * time.Millisecond
)

// The outcomes counted by gatehouse_opencloud_publish_total.
const (
	Sent    = "sent"
	Failed  = "failed"
	Dropped = "dropped"
	Skipped = "skipped"
)

// Keys returns the opened Open Cloud key of an organization's universe:
// gatehouse.ErrNotFound when it has none (the command is skipped).
type Keys func(ctx context.Context, orgID uuid.UUID, universeID string) (string, error)

// Config is what New needs. Keys is required.
type Config struct {
	// BaseURL is the Open Cloud API; empty: DefaultBaseURL.
	BaseURL string
	Keys    Keys
	// Logger logs failures (never a key); nil: discarded.
	Logger *slog.Logger
	// Registry, when set, registers gatehouse_opencloud_publish_total.
	Registry prometheus.Registerer
	// Client sends the requests; nil: one with a 10 s timeout.
	Client *http.Client
	// Queue bounds the commands waiting to be published; 0: DefaultQueue.
	Queue int
	// Wait pauses before a retry; nil: a timer that ctx ends early.
	// Tests record the pauses instead of sleeping.
	Wait func(ctx context.Context, d time.Duration)
}

// Publisher is a [service.CommandPublisher]: Publish queues, Run sends.
type Publisher struct {
	base   string
	keys   Keys
	logger *slog.Logger
	client *http.Client
	queue  chan job
	wait   func(context.Context, time.Duration)
	total  *prometheus.CounterVec
}

type job struct {
	orgID uuid.UUID
	cmd   gatehouse.Command
}

var _ service.CommandPublisher = (*Publisher)(nil)

// New returns a publisher; nothing is sent until Run runs. It registers
// its counter on cfg.Registry (a second publisher on one registry
// panics, as every metric of the project does).
func New(cfg Config) *Publisher {
	p := &Publisher{base: strings.TrimRight(cfg.BaseURL, "/"), keys: cfg.Keys, logger: cfg.Logger,
		client: cfg.Client, wait: cfg.Wait,
		total: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "gatehouse_opencloud_publish_total",
			Help: "Commands pushed to the platform's messaging, by outcome: sent, failed (after retries), dropped (the queue was full), skipped (the universe has no key).",
		}, []string{"outcome"}),
	}
	if p.base == "" {
		p.base = DefaultBaseURL
	}
	queue := cfg.Queue
	if queue <= 0 {
		queue = DefaultQueue
	}
	p.queue = make(chan job, queue)
	if p.logger == nil {
		p.logger = slog.New(slog.DiscardHandler)
	}
	if p.client == nil {
		p.client = &http.Client{Timeout: requestTimeout}
	}
	if p.wait == nil {
		p.wait = func(ctx context.Context, d time.Duration) { clock.Sleep(ctx, d) }
	}
	for _, o := range []string{Sent, Failed, Dropped, Skipped} {
		p.total.WithLabelValues(o)
	}
	if cfg.Registry != nil {
		cfg.Registry.MustRegister(p.total)
	}
	return p
}

// Publish queues c for its universe and returns at once: when the queue
// is full the command is dropped and counted (the servers still take it
// at their next sync).
func (p *Publisher) Publish(ctx context.Context, orgID uuid.UUID, c gatehouse.Command) {
	select {
	case p.queue <- job{orgID: orgID, cmd: c}:
	default:
		p.total.WithLabelValues(Dropped).Inc()
		p.logger.WarnContext(ctx, "open cloud push dropped: queue full",
			slog.String("command", c.ID.String()), slog.String("universe", c.UniverseID))
	}
}

// Run sends the queued commands, one at a time, until ctx ends; what is
// still queued then is left to sync.
func (p *Publisher) Run(ctx context.Context) {
	for {
		select {
		case <-ctx.Done():
			return
		case j := <-p.queue:
			p.total.WithLabelValues(p.send(ctx, j)).Inc()
		}
	}
}

// send publishes one command and returns its outcome.
func (p *Publisher) send(ctx context.Context, j job) string {
	log := p.logger.With(slog.String("org", j.orgID.String()), slog.String("command", j.cmd.ID.String()),
		slog.String("universe", j.cmd.UniverseID))
	key, err := p.keys(ctx, j.orgID, j.cmd.UniverseID)
	if errors.Is(err, gatehouse.ErrNotFound) {
		return Skipped
	}
	if err != nil {
		log.ErrorContext(ctx, "open cloud push failed: the universe's key cannot be read", slog.String("error", err.Error()))
		return Failed
	}
	msg, ok := Message(j.cmd)
	if !ok {
		log.ErrorContext(ctx, "open cloud push failed: the message is too long")
		return Failed
	}
	body, _ := json.Marshal(map[string]string{"message": msg})
	endpoint := p.base + "/messaging-service/v1/universes/" + url.PathEscape(j.cmd.UniverseID) + "/topics/" + Topic
	for attempt := 1; ; attempt++ {
		retry, pause, err := p.post(ctx, endpoint, key, body)
		if err == nil {
			return Sent
		}
		if !retry || attempt == maxAttempts || ctx.Err() != nil {
			log.WarnContext(ctx, "open cloud push failed", slog.Int("attempts", attempt), slog.String("error", err.Error()))
			return Failed
		}
		p.wait(ctx, pause)
	}
}

// post sends one request. A failure says whether to retry (429, 5xx, no
// answer) and after how long (Retry-After, capped).
func (p *Publisher) post(ctx context.Context, endpoint, key string, body []byte) (retry bool, pause time.Duration, err error) {
	ctx, cancel := context.WithTimeout(ctx, requestTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, endpoint, bytes.NewReader(body))
	if err != nil {
		return false, 0, err
	}
	req.Header.Set("x-api-key", key)
	req.Header.Set("Content-Type", "application/json")
	resp, err := p.client.Do(req)
	if err != nil {
		// The error names the URL, never the header.
		return true, retryWait, err
	}
	defer resp.Body.Close()
	detail, _ := io.ReadAll(io.LimitReader(resp.Body, 200))
	if resp.StatusCode/100 == 2 {
		return false, 0, nil
	}
	err = fmt.Errorf("status %d: %s", resp.StatusCode, strings.ReplaceAll(string(detail), key, "[key]"))
	if resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode >= 500 {
		return true, retryAfter(resp.Header.Get("Retry-After"), time.Now()), err
	}
	return false, 0, err
}

// retryAfter reads a Retry-After (seconds or an HTTP date) as a pause of
// at most maxRetryWait; retryWait when there is none.
func retryAfter(v string, now time.Time) time.Duration {
	d := retryWait
	if secs, err := strconv.Atoi(strings.TrimSpace(v)); err == nil {
		d = time.Duration(secs) * time.Second
	} else if at, err := http.ParseTime(v); err == nil {
		d = at.Sub(now)
	}
	return min(max(d, 0), maxRetryWait)
}
