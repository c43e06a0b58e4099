package bench

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"time"
)

// FeedConfig says what RunFeed reads: a running server's feed, from its
// start, as a consumer catching up does, Limit events a page.
type FeedConfig struct {
	URL   string // the server, e.g. http://localhost:8080
	Key   string // events:read
	Limit int    // events a page, 1–500
}

// FeedStats is what RunFeed measured: the events and pages read until the
// consumer caught up (a page shorter than the limit), and the latency of
// a page.
type FeedStats struct {
	Events       int     `json:"events"`
	Pages        int     `json:"pages"`
	Seconds      float64 `json:"seconds"`
	EventsPerSec float64 `json:"eventsPerSecond"`
	// The latency of a page.
	P50 float64 `json:"p50Ms"`
	P95 float64 `json:"p95Ms"`
	P99 float64 `json:"p99Ms"`
}

// RunFeed reads the key's feed from its start until it has caught up,
// one page after the other, and says how fast.
func RunFeed(ctx context.Context, cfg FeedConfig) (FeedStats, error) {
	d := &driver{cfg: RunConfig{URL: cfg.URL, Key: cfg.Key}, client: &http.Client{Timeout: time.Minute}}
	var (
		page struct {
			Data       []struct{ ID string } `json:"data"`
			NextCursor string                `json:"nextCursor"`
		}
		latencies []time.Duration
		events    int
		after     string
	)
	start := time.Now()
	for {
		v := url.Values{"limit": {strconv.Itoa(cfg.Limit)}}
		if after != "" {
			v.Set("after", after)
		}
		t := time.Now()
		page.Data = page.Data[:0]
		if err := d.getJSON(ctx, "/api/consumer/v1/events/feed?"+v.Encode(), &page); err != nil {
			return FeedStats{}, err
		}
		latencies = append(latencies, time.Since(t))
		events += len(page.Data)
		if page.NextCursor == "" {
			return FeedStats{}, fmt.Errorf("a feed page without nextCursor")
		}
		after = page.NextCursor
		if len(page.Data) < cfg.Limit {
			break
		}
	}
	elapsed := time.Since(start)
	s := summarise(latencies, 0, elapsed)
	return FeedStats{Events: events, Pages: len(latencies), Seconds: elapsed.Seconds(),
		EventsPerSec: float64(events) / elapsed.Seconds(), P50: s.P50, P95: s.P95, P99: s.P99}, nil
}
