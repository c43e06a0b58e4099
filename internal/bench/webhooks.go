package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gatehouse/gatehouse"
	"github.com/gatehouse/gatehouse/client"
)

// WebhooksConfig says what RunWebhooks measures: Rate events a second
// POSTed to a running server for Duration, in batches every BatchEvery,
// delivered to one endpoint this process receives on Listen.
type WebhooksConfig struct {
	URL string // the server, run with --webhooks-allow-private
	// Key has events:write, events:read and webhooks:write.
	Key           string
	AccessPointID string
	Rate          float64
	Duration      time.Duration
	BatchEvery    time.Duration
	// Listen is the receiver's address (host:port; port 0 picks one).
	Listen string
	// Wait bounds the wait for the last deliveries once the events are
	// sent (a minute when zero).
	Wait time.Duration
	// Attack, when set, runs another organization's attack on the
	// deliveries beside the measured one, from before the first event
	// until the end: AttackEndpoints endpoints (key AttackKey, with
	// webhooks:write) whose receivers, on Listen's host, hang until the
	// sender gives up (AttackHang) or answer 200 after 9.5 s
	// (AttackSlow), each sent a test every AttackTestEvery.
	Attack          string
	AttackKey       string
	AttackEndpoints int
	AttackTestEvery time.Duration
}

// The attacks of WebhooksConfig.Attack.
const (
	AttackHang = "hang"
	AttackSlow = "slow"
)

// WebhookStats is what RunWebhooks measured: the lag from an event's
// receivedAt (when the server stored it) to its delivery's arrival. An
// event not delivered by the end of the wait counts with the time from
// its POST to then: a lag at least that long.
type WebhookStats struct {
	Sent       int     `json:"sent"`
	Delivered  int     `json:"delivered"`
	Repeats    int     `json:"repeats"`
	Unverified int     `json:"unverified"`
	Seconds    float64 `json:"seconds"`
	P50        float64 `json:"p50Ms"`
	P95        float64 `json:"p95Ms"`
	P99        float64 `json:"p99Ms"`
	Max        float64 `json:"maxMs"`
	// The attack's, when there was one: tests queued, and requests its
	// receivers got.
	AttackTests    int `json:"attackTests,omitempty"`
	AttackRequests int `json:"attackRequests,omitempty"`
}

// RunWebhooks makes an endpoint pointing at a receiver of its own, sends
// events at the configured rate, waits (up to cfg.Wait) for every one to
// arrive, and deletes the endpoint; and, with cfg.Attack, the attack's.
func RunWebhooks(ctx context.Context, cfg WebhooksConfig) (WebhookStats, error) {
	ln, err := net.Listen("tcp", cfg.Listen)
	if err != nil {
		return WebhookStats{}, err
	}
	recv := &lagReceiver{seen: map[string]bool{}}
	srv := &http.Server{Handler: recv, ReadHeaderTimeout: 5 * time.Second}
	go srv.Serve(ln)
	defer srv.Close()

	d := &driver{cfg: RunConfig{URL: cfg.URL, Key: cfg.Key}, client: &http.Client{Timeout: time.Minute}}
	var a *attack
	if cfg.Attack != "" {
		if a, err = startAttack(ctx, cfg, ln.Addr().(*net.TCPAddr).IP.String()); err != nil {
			return WebhookStats{}, err
		}
		defer a.stop()
	}
	var hook struct{ ID, Secret string }
	body := fmt.Sprintf(`{"url": "http://%s/", "description": "gatehouse bench webhooks"}`, ln.Addr())
	if err := d.send(ctx, http.MethodPost, "/api/consumer/v1/webhooks", body, http.StatusCreated, &hook); err != nil {
		return WebhookStats{}, err
	}
	defer d.send(context.WithoutCancel(ctx), http.MethodDelete, "/api/consumer/v1/webhooks/"+hook.ID, "", http.StatusNoContent, nil)
	recv.mu.Lock()
	recv.secret = hook.Secret
	recv.mu.Unlock()

	start := time.Now()
	posted := map[string]time.Time{} // event id: when its batch was sent
	tick := time.NewTicker(cfg.BatchEvery)
	defer tick.Stop()
	// Exactly rate × duration events, paced by batch: a slow machine takes
	// longer to send them (and its lags show it), it does not send fewer.
	total := int(cfg.Rate * cfg.Duration.Seconds())
	for i := 1; len(posted) < total; i++ {
		if n := min(total, int(cfg.Rate*float64(i)*cfg.BatchEvery.Seconds())) - len(posted); n > 0 {
			body, ids := eventBatch(n, cfg.AccessPointID)
			at := time.Now()
			if err := d.send(ctx, http.MethodPost, "/api/consumer/v1/events", body, http.StatusOK, nil); err != nil {
				return WebhookStats{}, err
			}
			for _, id := range ids {
				posted[id] = at
			}
		}
		select {
		case <-ctx.Done():
			return WebhookStats{}, ctx.Err()
		case <-tick.C:
		}
	}
	wait := cfg.Wait
	if wait <= 0 {
		wait = time.Minute
	}
	deadline := time.Now().Add(wait)
	for recv.delivered() < len(posted) && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	st := recv.stats(posted, time.Since(start))
	if a != nil {
		st.AttackTests, st.AttackRequests = a.counts()
	}
	return st, nil
}

// eventBatch is the body of POST /events with n access attempts, and
// their ids.
func eventBatch(n int, accessPointID string) (string, []string) {
	var b bytes.Buffer
	b.WriteString(`{"events":[`)
	now := gatehouse.FormatTime(time.Now())
	ids := make([]string, n)
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		ids[i] = gatehouse.NewID().String()
		fmt.Fprintf(&b, `{"id":%q,"type":"ACCESS_GRANTED","occurredAt":%q,"accessPointId":%q,"platformUserId":"%d"}`,
			ids[i], now, accessPointID, 2_000_000+i)
	}
	b.WriteString(`]}`)
	return b.String(), ids
}

// attack is another organization's slow receivers, each sent a test
// every so often, while RunWebhooks measures.
type attack struct {
	srv      *http.Server
	d        *driver
	hooks    []string
	cancel   context.CancelFunc
	done     chan struct{}
	hung     chan struct{} // closed when the attack stops
	tests    atomic.Int64
	requests atomic.Int64
}

// startAttack makes the attack's endpoints, receiving on host, and
// starts their tests.
func startAttack(ctx context.Context, cfg WebhooksConfig, host string) (*attack, error) {
	if cfg.Attack != AttackHang && cfg.Attack != AttackSlow {
		return nil, fmt.Errorf("bench webhooks: no attack %q (hang, slow)", cfg.Attack)
	}
	ln, err := net.Listen("tcp", net.JoinHostPort(host, "0"))
	if err != nil {
		return nil, err
	}
	a := &attack{d: &driver{cfg: RunConfig{URL: cfg.URL, Key: cfg.AttackKey}, client: &http.Client{Timeout: time.Minute}},
		done: make(chan struct{}), hung: make(chan struct{})}
	a.srv = &http.Server{ReadHeaderTimeout: 5 * time.Second, Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		a.requests.Add(1)
		io.Copy(io.Discard, r.Body) // read: the server notices when the sender gives up
		wait := time.Hour           // hang: until the sender gives up
		if cfg.Attack == AttackSlow {
			wait = 9500 * time.Millisecond
		}
		t := time.NewTimer(wait)
		defer t.Stop()
		select {
		case <-t.C:
		case <-r.Context().Done():
		case <-a.hung:
		}
	})}
	go a.srv.Serve(ln)
	for i := range cfg.AttackEndpoints {
		var hook struct{ ID string }
		body := fmt.Sprintf(`{"url": "http://%s/%d", "description": "gatehouse bench webhooks --attack"}`, ln.Addr(), i)
		if err := a.d.send(ctx, http.MethodPost, "/api/consumer/v1/webhooks", body, http.StatusCreated, &hook); err != nil {
			a.stop()
			return nil, err
		}
		a.hooks = append(a.hooks, hook.ID)
	}
	tctx, cancel := context.WithCancel(ctx)
	a.cancel = cancel
	go func() {
		defer close(a.done)
		tick := time.NewTicker(cfg.AttackTestEvery)
		defer tick.Stop()
		for {
			for _, id := range a.hooks {
				if a.d.send(tctx, http.MethodPost, "/api/consumer/v1/webhooks/"+id+"/test", "", http.StatusAccepted, nil) == nil {
					a.tests.Add(1)
				}
			}
			select {
			case <-tctx.Done():
				return
			case <-tick.C:
			}
		}
	}()
	return a, nil
}

func (a *attack) counts() (tests, requests int) { return int(a.tests.Load()), int(a.requests.Load()) }

// stop ends the tests, deletes the endpoints and lets the receivers go.
func (a *attack) stop() {
	if a.cancel != nil {
		a.cancel()
		<-a.done
	}
	for _, id := range a.hooks {
		a.d.send(context.Background(), http.MethodDelete, "/api/consumer/v1/webhooks/"+id, "", http.StatusNoContent, nil)
	}
	close(a.hung)
	a.srv.Close()
}

// send makes one API request, wanting status, and decodes the answer
// into v when set.
func (d *driver) send(ctx context.Context, method, path, body string, status int, v any) error {
	req, err := http.NewRequestWithContext(ctx, method, d.cfg.URL+path, bytes.NewBufferString(body))
	if err != nil {
		return err
	}
	req.Header.Set("Authorization", "Bearer "+d.cfg.Key)
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	res, err := d.client.Do(req)
	if err != nil {
		return err
	}
	defer res.Body.Close()
	if res.StatusCode != status {
		b, _ := io.ReadAll(io.LimitReader(res.Body, 512))
		return fmt.Errorf("%s %s: %d %s", method, path, res.StatusCode, b)
	}
	if v == nil {
		_, err := io.Copy(io.Discard, res.Body)
		return err
	}
	return json.NewDecoder(res.Body).Decode(v)
}

// lagReceiver verifies each delivery and notes its lag.
type lagReceiver struct {
	mu         sync.Mutex
	secret     string
	seen       map[string]bool
	lags       []time.Duration
	repeats    int
	unverified int
}

func (r *lagReceiver) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	at := time.Now()
	body, err := io.ReadAll(io.LimitReader(req.Body, 1<<20))
	var msg struct {
		Data struct {
			ID         string         `json:"id"`
			ReceivedAt gatehouse.Time `json:"receivedAt"`
		} `json:"data"`
	}
	if err == nil {
		err = json.Unmarshal(body, &msg)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	switch {
	case err != nil || client.VerifyWebhook(r.secret, req.Header, body, at) != nil:
		r.unverified++
	case r.seen[msg.Data.ID]:
		r.repeats++
	default:
		r.seen[msg.Data.ID] = true
		r.lags = append(r.lags, at.Sub(time.Time(msg.Data.ReceivedAt)))
	}
}

func (r *lagReceiver) delivered() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.seen)
}

// stats summarises the lags of the events posted; one not delivered
// counts with the time since it was posted.
func (r *lagReceiver) stats(posted map[string]time.Time, elapsed time.Duration) WebhookStats {
	r.mu.Lock()
	defer r.mu.Unlock()
	lags := slices.Clone(r.lags)
	now := time.Now()
	for id, at := range posted {
		if !r.seen[id] {
			lags = append(lags, now.Sub(at))
		}
	}
	s := summarise(lags, 0, elapsed)
	return WebhookStats{Sent: len(posted), Delivered: len(r.seen), Repeats: r.repeats, Unverified: r.unverified,
		Seconds: elapsed.Seconds(), P50: s.P50, P95: s.P95, P99: s.P99, Max: s.Max}
}
