package server_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gatehouse/gatehouse"
	"github.com/gatehouse/gatehouse/internal/auth"
	"github.com/gatehouse/gatehouse/internal/ratelimit"
	"github.com/gatehouse/gatehouse/internal/server"
)

// TestAbuseLoad runs a bounded load on loopback, 64 clients at once: a
// quarter valid traffic, a quarter random keys from ever-new addresses, a
// quarter a key without the scope, a quarter a key far over its rate. It
// stops by itself after GATEHOUSE_ABUSE_DURATION (3 s by default; .ci/run
// runs it for a minute). No answer may be a 5xx, every 429 must carry
// Retry-After, every valid request must be served, and memory must stay
// bounded while the limiter sees tens of thousands of addresses.
func TestAbuseLoad(t *testing.T) {
	duration := 3 * time.Second
	if s := os.Getenv("GATEHOUSE_ABUSE_DURATION"); s != "" {
		var err error
		if duration, err = time.ParseDuration(s); err != nil {
			t.Fatal(err)
		}
	}
	limiter := ratelimit.NewLocal(time.Now)
	e := newEnv(t, func(c *server.Config) { // real time, production limits
		c.Now, c.Limiter = time.Now, limiter
		c.Logger = slog.New(slog.NewJSONHandler(io.Discard, nil)) // the suite's log buffer would hold every line
		c.Auth = auth.New(c.Store, time.Now)
		c.KeyLimit = ratelimit.Limit{Rate: gatehouse.Rate{Count: 20, Per: time.Second}, Burst: 40}
		c.FailedAuthLimit = ratelimit.Limit{Rate: gatehouse.Rate{Count: 10, Per: time.Second}, Burst: 20}
	})
	o := e.newOrg("Acme")
	for i, ap := range o.accessPoints {
		e.ingest(o, e.ev(ap, gatehouse.EventAccessGranted, i+1), e.ev(ap, gatehouse.EventAccessDenied, i+2))
	}
	valid := e.newKeyWith(o.ID, func(k *gatehouse.APIKey) { k.RateLimit = &gatehouse.Rate{Count: 1e6, Per: time.Second} }, gatehouse.ScopeEventsRead)
	noScope := e.newKey(o.ID, gatehouse.ScopeLocationsRead)
	slow := e.newKeyWith(o.ID, func(k *gatehouse.APIKey) { k.RateLimit = &gatehouse.Rate{Count: 1, Per: time.Second} }, gatehouse.ScopeEventsRead)

	type tally struct {
		statuses    map[int]int
		no429Header int
		latencies   []time.Duration
	}
	groups := []struct {
		name    string
		key     func() string
		from    func() net.IP // nil: any new address per request
		path    string
		keepOld bool
	}{
		{"valid", func() string { return valid }, func() net.IP { return net.IPv4(127, 0, 0, 1) }, "/api/consumer/v1/events?limit=10", true},
		{"bad keys", func() string { k, _, _ := gatehouse.GenerateKey(); return k }, nil, "/api/consumer/v1/events", false},
		{"wrong scope", func() string { return noScope }, func() net.IP { return net.IPv4(127, 0, 0, 3) }, "/api/consumer/v1/events", true},
		{"over limit", func() string { return slow }, func() net.IP { return net.IPv4(127, 0, 0, 4) }, "/api/consumer/v1/events?q=door", true},
	}
	addr := strings.TrimPrefix(e.url, "http://")
	tallies := make([]tally, len(groups))
	var mu sync.Mutex
	var wg sync.WaitGroup
	deadline := time.Now().Add(duration)
	var peakHeap uint64
	stopSampling := make(chan struct{})
	go func() {
		for {
			select {
			case <-stopSampling:
				return
			case <-time.After(200 * time.Millisecond):
			}
			var m runtime.MemStats
			runtime.ReadMemStats(&m)
			mu.Lock()
			peakHeap = max(peakHeap, m.HeapInuse)
			mu.Unlock()
		}
	}()
	for g, grp := range groups {
		tallies[g].statuses = map[int]int{}
		for range 16 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				dialer := &net.Dialer{Timeout: 5 * time.Second}
				client := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{
					DisableKeepAlives: !grp.keepOld,
					DialContext: func(ctx context.Context, network, _ string) (net.Conn, error) {
						ip := net.IPv4(127, byte(1+rand.IntN(250)), byte(rand.IntN(256)), byte(1+rand.IntN(250)))
						if grp.from != nil {
							ip = grp.from()
						}
						d := *dialer
						d.LocalAddr = &net.TCPAddr{IP: ip}
						return d.DialContext(ctx, network, addr)
					},
				}}
				for time.Now().Before(deadline) {
					req, _ := http.NewRequest("GET", e.url+grp.path, nil)
					req.Header.Set("Authorization", "Bearer "+grp.key())
					start := time.Now()
					res, err := client.Do(req)
					if err != nil {
						t.Errorf("%s: %v", grp.name, err)
						return
					}
					io.Copy(io.Discard, res.Body)
					res.Body.Close()
					took := time.Since(start)
					mu.Lock()
					tallies[g].statuses[res.StatusCode]++
					if res.StatusCode == http.StatusTooManyRequests && res.Header.Get("Retry-After") == "" {
						tallies[g].no429Header++
					}
					if grp.name == "valid" {
						tallies[g].latencies = append(tallies[g].latencies, took)
					}
					mu.Unlock()
				}
			}()
		}
	}
	wg.Wait()
	close(stopSampling)

	total := 0
	for g, grp := range groups {
		tl := tallies[g]
		n := 0
		for status, count := range tl.statuses {
			n += count
			if status >= 500 {
				t.Errorf("%s: %d answers of %d", grp.name, count, status)
			}
		}
		total += n
		if tl.no429Header > 0 {
			t.Errorf("%s: %d 429s without Retry-After", grp.name, tl.no429Header)
		}
		line := fmt.Sprintf("%-11s %7d requests, statuses %v", grp.name, n, tl.statuses)
		if len(tl.latencies) > 0 {
			slices.Sort(tl.latencies)
			line += fmt.Sprintf(", p50 %v, p99 %v", tl.latencies[len(tl.latencies)/2], tl.latencies[len(tl.latencies)*99/100])
		}
		t.Log(line)
	}
	if v := tallies[0].statuses; v[http.StatusOK] == 0 || len(v) != 1 {
		t.Errorf("valid traffic was not all served: %v", v)
	}
	var m runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&m)
	t.Logf("%d requests in %v; limiter buckets held at the end %d; heap in use peak %d MB, after GC %d MB; %s",
		total, duration, limiter.Len(), peakHeap>>20, m.HeapInuse>>20, vmHWM())
	if m.HeapInuse > 64<<20 {
		t.Errorf("heap in use after the run: %d MB", m.HeapInuse>>20)
	}
}

// vmHWM is the process's peak resident set size, as Linux reports it.
func vmHWM() string {
	b, _ := os.ReadFile("/proc/self/status")
	for _, line := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(line, "VmHWM:") {
			return "peak RSS " + strings.Join(strings.Fields(line)[1:], " ")
		}
	}
	return "peak RSS unknown"
}
