package bench

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/google/uuid"
)

// PollsConfig is a long-poll benchmark: Servers simulated game servers
// sync with the instance at URL while commands are issued at IssueURL
// (another instance on the same database, or the same one).
type PollsConfig struct {
	URL, IssueURL string
	// ServerKey has scope server; CommandKey has commands:write.
	ServerKey, CommandKey string
	AccessPointID         uuid.UUID
	UniverseID            string
	Servers               int
	// Commands UNIVERSE unlocks are issued Interval apart once every
	// server waits; then SERVER unlocks are issued for IssueFor by
	// Concurrency workers, as fast as they are answered.
	Commands    int
	Interval    time.Duration
	IssueFor    time.Duration
	Concurrency int
	// Lockdown times lockdowns of LocationID instead of UNIVERSE
	// unlocks: each start, from the request to every server's receipt of
	// its LOCKDOWN command; each is released (untimed) Interval/2 later.
	Lockdown   bool
	LocationID uuid.UUID
	// Progress, when set, is told what the benchmark does.
	Progress io.Writer
}

// PollsResult is what the long-poll benchmark measured.
type PollsResult struct {
	Servers int `json:"servers"`
	// Idle is the polled instance before any server synced, Waiting with
	// every server's poll waiting on it.
	Idle    ServerStats `json:"idle"`
	Waiting ServerStats `json:"waiting"`
	// Issue-to-delivery latency of the UNIVERSE unlocks, one sample per
	// server and command, from the issuing request's start to the
	// server's receipt of the answer that carried the command.
	Deliveries   int     `json:"deliveries"`
	Missing      int     `json:"missing"`
	P50Ms        float64 `json:"p50Ms"`
	P90Ms        float64 `json:"p90Ms"`
	P99Ms        float64 `json:"p99Ms"`
	MaxMs        float64 `json:"maxMs"`
	SyncErrors   int64   `json:"syncErrors"`
	IssuedPerSec float64 `json:"issuedPerSecond"`
	IssueErrors  int64   `json:"issueErrors"`
}

// ServerStats are the polled instance's own figures, from its /metrics.
type ServerStats struct {
	Goroutines int     `json:"goroutines"`
	RSSMiB     float64 `json:"rssMiB"`
	HeapMiB    float64 `json:"heapMiB"`
	OpenFDs    int     `json:"openFds"`
}

type receipt struct {
	id string
	at time.Time
}

type poller struct {
	cfg    PollsConfig
	client *http.Client
	mu     sync.Mutex
	got    []receipt
	errors atomic.Int64
	synced atomic.Int64
}

// RunPolls runs the long-poll benchmark.
func RunPolls(ctx context.Context, cfg PollsConfig) (PollsResult, error) {
	if cfg.IssueURL == "" {
		cfg.IssueURL = cfg.URL
	}
	p := &poller{cfg: cfg, client: &http.Client{Transport: &http.Transport{
		MaxIdleConns: cfg.Servers + 100, MaxIdleConnsPerHost: cfg.Servers + 100, IdleConnTimeout: time.Minute,
	}}}
	res := PollsResult{Servers: cfg.Servers}
	var err error
	if res.Idle, err = p.stats(ctx); err != nil {
		return res, err
	}
	polls, stop := context.WithCancel(ctx)
	defer stop()
	var wg sync.WaitGroup
	for i := range cfg.Servers {
		wg.Go(func() { p.serve(polls, fmt.Sprintf("bench-%s-%d", cfg.UniverseID, i)) })
	}
	p.say("%d servers syncing", cfg.Servers)
	for p.synced.Load() < int64(cfg.Servers) {
		if err := sleepCtx(ctx, 100*time.Millisecond); err != nil {
			return res, err
		}
	}
	// Every server has answered once and polls again: let them settle.
	if err := sleepCtx(ctx, 2*time.Second); err != nil {
		return res, err
	}
	if res.Waiting, err = p.stats(ctx); err != nil {
		return res, err
	}
	p.say("waiting: %+v", res.Waiting)

	issued := map[string]time.Time{}
	for i := range cfg.Commands {
		if cfg.Lockdown {
			if err := p.lockdown(ctx, i, issued); err != nil {
				return res, err
			}
			continue
		}
		start := time.Now()
		id, err := p.issue(ctx, `{"accessPointId":%q,"scope":"UNIVERSE","durationSeconds":5,"ttlSeconds":60,"note":"bench %d"}`, cfg.AccessPointID, i)
		if err != nil {
			return res, err
		}
		issued[id] = start
		if err := sleepCtx(ctx, cfg.Interval); err != nil {
			return res, err
		}
	}
	p.mu.Lock()
	var lat []float64
	for _, r := range p.got {
		if t0, ok := issued[r.id]; ok {
			lat = append(lat, float64(r.at.Sub(t0).Microseconds())/1000)
		}
	}
	p.mu.Unlock()
	slices.Sort(lat)
	res.Deliveries, res.Missing = len(lat), cfg.Commands*cfg.Servers-len(lat)
	if len(lat) > 0 {
		q := func(f float64) float64 { return lat[min(len(lat)-1, int(f*float64(len(lat))))] }
		res.P50Ms, res.P90Ms, res.P99Ms, res.MaxMs = q(0.50), q(0.90), q(0.99), lat[len(lat)-1]
	}
	p.say("latency p50 %.1f ms p99 %.1f ms over %d deliveries", res.P50Ms, res.P99Ms, res.Deliveries)

	if cfg.IssueFor > 0 {
		res.IssuedPerSec, res.IssueErrors = p.issueRate(ctx)
	}
	stop()
	wg.Wait()
	res.SyncErrors = p.errors.Load()
	return res, nil
}

// serve is one game server's loop: sync, note what arrived, acknowledge
// it with the next sync.
func (p *poller) serve(ctx context.Context, job string) {
	cursor := ""
	var acks []map[string]string
	first := true
	for ctx.Err() == nil {
		body, _ := json.Marshal(map[string]any{"universeId": p.cfg.UniverseID, "players": []string{},
			"acks": acks, "cursor": cursor, "waitSeconds": 25})
		var out struct {
			Commands []struct {
				ID       string
				Lockdown *struct {
					ID         string
					ReleasedAt *string
				}
			} `json:"commands"`
			Cursor string `json:"cursor"`
		}
		status, err := p.post(ctx, p.cfg.URL+"/api/consumer/v1/servers/"+job+"/sync", p.cfg.ServerKey, body, &out)
		at := time.Now()
		if err != nil || status != http.StatusOK {
			if ctx.Err() == nil {
				p.errors.Add(1)
				sleepCtx(ctx, time.Duration(500+rand.IntN(500))*time.Millisecond)
			}
			continue
		}
		if first {
			first = false
			p.synced.Add(1)
		}
		acks = acks[:0]
		p.mu.Lock()
		for _, c := range out.Commands {
			id := c.ID
			if c.Lockdown != nil && c.Lockdown.ReleasedAt == nil {
				id = "lockdown " + c.Lockdown.ID // a start: timed from POST /lockdowns
			}
			p.got = append(p.got, receipt{id, at})
			acks = append(acks, map[string]string{"commandId": c.ID, "result": "EXECUTED"})
		}
		p.mu.Unlock()
		cursor = out.Cursor
	}
}

// issueRate issues SERVER unlocks to random live servers for IssueFor
// with Concurrency workers and returns the rate answered 201.
func (p *poller) issueRate(ctx context.Context) (float64, int64) {
	var ok, failed atomic.Int64
	deadline := time.Now().Add(p.cfg.IssueFor)
	var wg sync.WaitGroup
	for range max(p.cfg.Concurrency, 1) {
		wg.Go(func() {
			for time.Now().Before(deadline) && ctx.Err() == nil {
				job := fmt.Sprintf("bench-%s-%d", p.cfg.UniverseID, rand.IntN(p.cfg.Servers))
				if _, err := p.issue(ctx, `{"accessPointId":%q,"scope":"SERVER","serverJobId":%q,"durationSeconds":1}`, p.cfg.AccessPointID, job); err != nil {
					failed.Add(1)
					continue
				}
				ok.Add(1)
			}
		})
	}
	start := time.Now()
	wg.Wait()
	return float64(ok.Load()) / time.Since(start).Seconds(), failed.Load()
}

func (p *poller) issue(ctx context.Context, format string, args ...any) (string, error) {
	var c struct{ ID string }
	status, err := p.post(ctx, p.cfg.IssueURL+"/api/consumer/v1/commands", p.cfg.CommandKey, fmt.Appendf(nil, format, args...), &c)
	if err == nil && status != http.StatusCreated {
		err = fmt.Errorf("issuing a command: HTTP %d", status)
	}
	return c.ID, err
}

// lockdown starts a lockdown of the location, notes when under its
// start's receipt id, and releases it half an interval later; the next
// one starts after the other half.
func (p *poller) lockdown(ctx context.Context, i int, issued map[string]time.Time) error {
	start := time.Now()
	var l struct{ ID string }
	status, err := p.post(ctx, p.cfg.IssueURL+"/api/consumer/v1/lockdowns", p.cfg.CommandKey,
		fmt.Appendf(nil, `{"scope":"LOCATION","locationId":%q,"reason":"bench %d"}`, p.cfg.LocationID, i), &l)
	if err == nil && status != http.StatusCreated {
		err = fmt.Errorf("starting a lockdown: HTTP %d", status)
	}
	if err != nil {
		return err
	}
	issued["lockdown "+l.ID] = start
	if err := sleepCtx(ctx, p.cfg.Interval/2); err != nil {
		return err
	}
	status, err = p.post(ctx, p.cfg.IssueURL+"/api/consumer/v1/lockdowns/"+l.ID+"/release", p.cfg.CommandKey, nil, &l)
	if err == nil && status != http.StatusOK {
		err = fmt.Errorf("releasing a lockdown: HTTP %d", status)
	}
	if err != nil {
		return err
	}
	return sleepCtx(ctx, p.cfg.Interval-p.cfg.Interval/2)
}

func (p *poller) post(ctx context.Context, url, key string, body []byte, out any) (int, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return 0, err
	}
	req.Header.Set("Authorization", "Bearer "+key)
	req.Header.Set("Content-Type", "application/json")
	res, err := p.client.Do(req)
	if err != nil {
		return 0, err
	}
	defer res.Body.Close()
	if res.StatusCode >= 300 {
		io.Copy(io.Discard, res.Body)
		return res.StatusCode, nil
	}
	return res.StatusCode, json.NewDecoder(res.Body).Decode(out)
}

// stats reads the polled instance's goroutines, memory and descriptors
// from its /metrics.
func (p *poller) stats(ctx context.Context) (ServerStats, error) {
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, p.cfg.URL+"/metrics", nil)
	res, err := p.client.Do(req)
	if err != nil {
		return ServerStats{}, err
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK {
		return ServerStats{}, fmt.Errorf("GET /metrics: HTTP %d (is /metrics on another address?)", res.StatusCode)
	}
	var s ServerStats
	sc := bufio.NewScanner(res.Body)
	for sc.Scan() {
		name, value, ok := strings.Cut(sc.Text(), " ")
		if !ok {
			continue
		}
		v, _ := strconv.ParseFloat(value, 64)
		switch name {
		case "go_goroutines":
			s.Goroutines = int(v)
		case "process_resident_memory_bytes":
			s.RSSMiB = v / (1 << 20)
		case "go_memstats_heap_inuse_bytes":
			s.HeapMiB = v / (1 << 20)
		case "process_open_fds":
			s.OpenFDs = int(v)
		}
	}
	return s, sc.Err()
}

func (p *poller) say(format string, args ...any) {
	if p.cfg.Progress != nil {
		fmt.Fprintf(p.cfg.Progress, format+"\n", args...)
	}
}

func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
