package server_test

import (
	"cmp"
	"context"
	crand "crypto/rand"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"net"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"os"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gatehouse/gatehouse"
	"github.com/gatehouse/gatehouse/internal/app"
	"github.com/gatehouse/gatehouse/internal/ratelimit"
)

// TestAbuseLoad runs a bounded load on loopback, 64 clients at once: a
// quarter valid traffic, a quarter random keys from ever-new addresses, a
// quarter a key without the scope, a quarter a key far over its rate. Beside
// them, one tenant sends short and expensive searches (q=%, q=a, q=zz over
// wide windows) from 6 clients, a few clients sign in to the dashboard
// with wrong passwords (a bounded number, so that the hashes' memory stays
// modest), and another tenant's first pages are timed; the log reports
// that tenant's p50 and p99, never asserted. The store is wrapped as serve
// wraps it (service.LimitReads). It stops by itself after
// GATEHOUSE_ABUSE_DURATION (3 s by default; .ci/run runs it for a minute).
// No answer may be a 5xx, every 429 must carry Retry-After, every valid
// request must be served, and memory must stay bounded while the limiter
// sees tens of thousands of addresses.
func TestAbuseLoad(t *testing.T) {
	duration := 3 * time.Second
	if s := os.Getenv("GATEHOUSE_ABUSE_DURATION"); s != "" {
		var err error
		if duration, err = time.ParseDuration(s); err != nil {
			t.Fatal(err)
		}
	}
	limiter := ratelimit.NewLocal(time.Now)
	e := newEnv(t, func(c *app.Settings) { // real time, production limits
		c.Now, c.Limiter = time.Now, limiter
		c.Logger = slog.New(slog.NewJSONHandler(io.Discard, nil)) // the suite's log buffer would hold every line
		// Production limits and read bounds: the defaults of app, as serve uses them.
		c.KeyLimit, c.FailedAuthLimit, c.SignInLimit, c.ReadSlots = app.DefaultKeyLimit, app.DefaultFailedAuthLimit, app.DefaultSignInLimit, nil
	})
	o := e.newOrg("Acme")
	for i, ap := range o.accessPoints {
		e.ingest(o, e.ev(ap, gatehouse.EventAccessGranted, i+1), e.ev(ap, gatehouse.EventAccessDenied, i+2))
	}
	valid := e.newKeyWith(o.ID, func(k *gatehouse.APIKey) { k.RateLimit = &gatehouse.Rate{Count: 1e6, Per: time.Second} }, gatehouse.ScopeEventsRead)
	noScope := e.newKey(o.ID, gatehouse.ScopeLocationsRead)
	// The key over its rate limit is another organization's: its reads
	// that get through must not take the valid group's read slots, which
	// an organization's own reads may fill by design.
	slow := e.newKeyWith(e.newOrg("Slow").ID, func(k *gatehouse.APIKey) { k.RateLimit = &gatehouse.Rate{Count: 1, Per: time.Second} }, gatehouse.ScopeEventsRead)
	unlimited := func(k *gatehouse.APIKey) { k.RateLimit = &gatehouse.Rate{Count: 1e6, Per: time.Second} }
	heavy, quiet := e.newOrg("Heavy"), e.newOrg("Quiet")
	seedLog(e, heavy, 20_000) // enough that a short search costs a scan of thousands of events
	e.ingest(quiet, e.ev(quiet.accessPoints[0], gatehouse.EventAccessGranted, 1))
	heavyKey := e.newKeyWith(heavy.ID, unlimited, gatehouse.ScopeEventsRead)
	quietKey := e.newKeyWith(quiet.ID, unlimited, gatehouse.ScopeEventsRead)
	shortQ := []string{"q=%25", "q=a", "q=zz&dateFrom=2000-01-01", "q=%25&dateFrom=2000-01-01&limit=500"}
	var shortQTurn atomic.Int64

	type tally struct {
		statuses    map[int]int
		no429Header int
		latencies   []time.Duration
	}
	fixed := func(path string) func() string { return func() string { return path } }
	groups := []struct {
		name    string
		key     func() string
		from    func() net.IP // nil: any new address per request
		path    func() string
		keepOld bool
		clients int                                        // 16 when 0
		total   int                                        // requests of the group in all; 0: until the deadline
		send    func(*http.Client) (*http.Response, error) // instead of a GET of path with key
		timed   bool                                       // report p50 and p99
	}{
		{name: "valid", key: func() string { return valid }, from: func() net.IP { return net.IPv4(127, 0, 0, 1) },
			// Four clients: twice the organization's concurrent reads, so
			// each waits for at most one read before it; sixteen waited up
			// to the 1 s bound when the machine was busy, and a 429 there
			// is the bound working, not a failure of the abuse defences.
			path: fixed("/api/consumer/v1/events?limit=10"), keepOld: true, timed: true, clients: 4},
		{name: "bad keys", key: func() string { k, _, _ := gatehouse.GenerateKey(); return k }, path: fixed("/api/consumer/v1/events")},
		{name: "wrong scope", key: func() string { return noScope }, from: func() net.IP { return net.IPv4(127, 0, 0, 3) },
			path: fixed("/api/consumer/v1/events"), keepOld: true},
		{name: "over limit", key: func() string { return slow }, from: func() net.IP { return net.IPv4(127, 0, 0, 4) },
			path: fixed("/api/consumer/v1/events?q=door"), keepOld: true},
		{name: "short q", key: func() string { return heavyKey }, from: func() net.IP { return net.IPv4(127, 0, 0, 5) },
			path: func() string { return "/api/consumer/v1/events?" + shortQ[shortQTurn.Add(1)%int64(len(shortQ))] }, keepOld: true, clients: 6},
		{name: "sign-ins", from: func() net.IP { return net.IPv4(127, 0, 0, 6) }, keepOld: true, clients: 4, total: 24,
			send: func(c *http.Client) (*http.Response, error) { return wrongSignIn(c, e.url, heavy.user.Email) }},
		{name: "other org", key: func() string { return quietKey }, from: func() net.IP { return net.IPv4(127, 0, 0, 7) },
			path: fixed("/api/consumer/v1/events"), keepOld: true, clients: 4, timed: true},
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
		clients, budget := cmp.Or(grp.clients, 16), new(atomic.Int64)
		budget.Store(int64(grp.total))
		for range clients {
			wg.Add(1)
			go func() {
				defer wg.Done()
				dialer := &net.Dialer{Timeout: 5 * time.Second}
				jar, _ := cookiejar.New(nil)
				client := &http.Client{Timeout: 20 * time.Second, Jar: jar, Transport: &http.Transport{
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
				for time.Now().Before(deadline) && (grp.total == 0 || budget.Add(-1) >= 0) {
					start := time.Now()
					var res *http.Response
					var err error
					if grp.send != nil {
						res, err = grp.send(client)
					} else {
						req, _ := http.NewRequest("GET", e.url+grp.path(), nil)
						req.Header.Set("Authorization", "Bearer "+grp.key())
						res, err = client.Do(req)
					}
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
					if grp.timed && res.StatusCode == http.StatusOK {
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

// seedLog stores n events of o, one a minute back from the clock, in
// batches of the API's size.
func seedLog(e *env, o org, n int) {
	e.t.Helper()
	batch := make([]gatehouse.NewEvent, 0, 1000)
	for i := range n {
		typ := gatehouse.EventAccessGranted
		if i%7 == 0 {
			typ = gatehouse.EventAccessDenied
		}
		ev := e.ev(o.accessPoints[i%len(o.accessPoints)], typ, i+1)
		ev.PlatformUserID = ptr(fmt.Sprint(1_000_000 + i%5000))
		if batch = append(batch, ev); len(batch) == cap(batch) || i == n-1 {
			e.ingest(o, batch...)
			batch = batch[:0]
		}
	}
}

// wrongSignIn opens the dashboard's sign-in form and submits it with a
// wrong password, as a password-guessing client would.
func wrongSignIn(c *http.Client, base, email string) (*http.Response, error) {
	form, err := c.Get(base + "/dashboard/login")
	if err != nil {
		return nil, err
	}
	page, _ := io.ReadAll(form.Body)
	form.Body.Close()
	m := regexp.MustCompile(`name="csrf" value="([^"]+)"`).FindSubmatch(page)
	if m == nil {
		return form, nil // no form: the status tells why
	}
	return c.PostForm(base+"/dashboard/login", url.Values{"csrf": {string(m[1])}, "email": {email}, "password": {"wrong " + crand.Text()}})
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
