package bench

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"
)

// loadAgainst drives a server that takes slow to answer with cfg's load.
func loadAgainst(t *testing.T, slow time.Duration, cfg RunConfig) Stats {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		time.Sleep(slow)
	}))
	defer srv.Close()
	cfg.URL = srv.URL
	d := &driver{cfg: cfg, client: srv.Client()}
	return d.load(context.Background(), func(ctx context.Context) error {
		return d.getJSON(ctx, "/", nil)
	})
}

// At a rate the server keeps up with, the workers start the scheduled
// requests and no more.
func TestLoadAtRateStartsTheSchedule(t *testing.T) {
	st := loadAgainst(t, 0, RunConfig{Concurrency: 4, Duration: 300 * time.Millisecond, Rate: 100})
	if st.Requests != 30 || st.Errors != 0 {
		t.Errorf("%d requests, %d errors; want the 30 scheduled in 300 ms at 100 a second", st.Requests, st.Errors)
	}
}

// A server slower than the rate is charged for the wait of the requests
// queued behind it: latency counts from each request's scheduled start,
// not from when a worker got round to it.
func TestLoadAtRateCountsFromTheSchedule(t *testing.T) {
	st := loadAgainst(t, 30*time.Millisecond, RunConfig{Concurrency: 1, Duration: 200 * time.Millisecond, Rate: 100})
	if st.Requests != 20 {
		t.Fatalf("%d requests, want the 20 scheduled", st.Requests)
	}
	// The last starts 20×30 ms after the run began instead of 190 ms.
	if st.P99 < 300 {
		t.Errorf("p99 %.1f ms; want the queue's wait counted (about 410 ms)", st.P99)
	}
}

// Without a rate each worker asks again as soon as it is answered.
func TestLoadClosed(t *testing.T) {
	st := loadAgainst(t, 10*time.Millisecond, RunConfig{Concurrency: 2, Duration: 200 * time.Millisecond})
	// Each takes at least 10 ms: two workers fit at most 2×20 (and the
	// two last begun before the end) in 200 ms.
	if st.Requests < 4 || st.Requests > 42 {
		t.Errorf("%d requests; want up to about 40, each worker asking again when answered", st.Requests)
	}
}

// RunFeed reads until a page is short, following nextCursor.
func TestRunFeedReadsUntilCaughtUp(t *testing.T) {
	pages := []string{
		`{"data":[{"id":"a"},{"id":"b"}],"nextCursor":"c1"}`,
		`{"data":[{"id":"c"},{"id":"d"}],"nextCursor":"c2"}`,
		`{"data":[{"id":"e"}],"nextCursor":"c3"}`,
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := map[string]int{"": 0, "c1": 1, "c2": 2}[r.URL.Query().Get("after")]
		w.Write([]byte(pages[n]))
	}))
	defer srv.Close()
	st, err := RunFeed(context.Background(), FeedConfig{URL: srv.URL, Key: "k", Limit: 2})
	if err != nil || st.Events != 5 || st.Pages != 3 {
		t.Errorf("RunFeed: %+v, %v; want 5 events in 3 pages", st, err)
	}
}
