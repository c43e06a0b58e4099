package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"sync"
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
}

// WebhookStats is what RunWebhooks measured: the lag from an event's
// receivedAt (when the server stored it) to its delivery's arrival.
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
}

// RunWebhooks makes an endpoint pointing at a receiver of its own, sends
// events at the configured rate, waits (up to a minute) for every one to
// arrive, and deletes the endpoint.
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
	sent := 0
	tick := time.NewTicker(cfg.BatchEvery)
	defer tick.Stop()
	for i := 1; time.Since(start) < cfg.Duration; i++ {
		n := int(cfg.Rate*float64(i)*cfg.BatchEvery.Seconds()) - sent
		if err := d.send(ctx, http.MethodPost, "/api/consumer/v1/events", eventBatch(n, cfg.AccessPointID), http.StatusOK, nil); err != nil {
			return WebhookStats{}, err
		}
		sent += n
		select {
		case <-ctx.Done():
			return WebhookStats{}, ctx.Err()
		case <-tick.C:
		}
	}
	deadline := time.Now().Add(time.Minute)
	for recv.delivered() < sent && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	return recv.stats(sent, time.Since(start)), nil
}

// eventBatch is the body of POST /events with n access attempts.
func eventBatch(n int, accessPointID string) string {
	var b bytes.Buffer
	b.WriteString(`{"events":[`)
	now := gatehouse.FormatTime(time.Now())
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"id":%q,"type":"ACCESS_GRANTED","occurredAt":%q,"accessPointId":%q,"platformUserId":"%d"}`,
			gatehouse.NewID(), now, accessPointID, 2_000_000+i)
	}
	b.WriteString(`]}`)
	return b.String()
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

func (r *lagReceiver) stats(sent int, elapsed time.Duration) WebhookStats {
	r.mu.Lock()
	defer r.mu.Unlock()
	s := summarise(r.lags, 0, elapsed)
	return WebhookStats{Sent: sent, Delivered: len(r.seen), Repeats: r.repeats, Unverified: r.unverified,
		Seconds: elapsed.Seconds(), P50: s.P50, P95: s.P95, P99: s.P99, Max: s.Max}
}
