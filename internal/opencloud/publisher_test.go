package opencloud_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gatehouse/gatehouse"
	"github.com/gatehouse/gatehouse/internal/opencloud"
	"github.com/google/uuid"
	"github.com/prometheus/client_golang/prometheus"
)

const secretKey = "oc-secret-key-0123456789abcdef"

var (
	org      = uuid.MustParse("0192f7a0-0000-7000-8000-000000000001")
	jobID    = "8d0b6b2e-6b5e-4f5a-9a3c-5d1c2b3a4f60"
	issuedAt = time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)
)

func command(universe string) gatehouse.Command {
	return gatehouse.Command{ID: gatehouse.NewID(), Type: gatehouse.CommandUnlock, Status: gatehouse.CommandPending,
		Scope: gatehouse.ScopeServer, ServerJobID: &jobID, UniverseID: universe,
		AccessPoint: gatehouse.NamedRef{ID: gatehouse.NewID(), Name: "Front door"}, DurationSeconds: 10,
		IssuedAt: gatehouse.Time(issuedAt), ExpiresAt: gatehouse.Time(issuedAt.Add(time.Minute))}
}

// keys knows one universe's key, 42; 13's key does not open.
func keys(_ context.Context, orgID uuid.UUID, universe string) (string, error) {
	switch {
	case orgID == org && universe == "42":
		return secretKey, nil
	case universe == "13":
		return "", gatehouse.ErrUnsealable
	}
	return "", gatehouse.ErrNotFound
}

// platform is a local fake of the Open Cloud messaging endpoint: it
// checks every request as the platform would and answers from a script.
type platform struct {
	t       *testing.T
	mu      sync.Mutex
	answers []func(http.ResponseWriter) // one per request; then 200
	got     []map[string]any            // the decoded messages
	done    chan struct{}               // one value per request
}

func newPlatform(t *testing.T, answers ...func(http.ResponseWriter)) (*platform, *httptest.Server) {
	p := &platform{t: t, answers: answers, done: make(chan struct{}, 100)}
	srv := httptest.NewServer(p)
	t.Cleanup(srv.Close)
	return p, srv
}

func (p *platform) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	defer func() { p.done <- struct{}{} }()
	if r.Method != http.MethodPost || r.URL.Path != "/messaging-service/v1/universes/42/topics/gatehouse" {
		p.t.Errorf("request %s %s", r.Method, r.URL.Path)
	}
	if got := r.Header.Get("x-api-key"); got != secretKey {
		p.t.Errorf("x-api-key %q", got)
	}
	if ct := r.Header.Get("Content-Type"); ct != "application/json" {
		p.t.Errorf("Content-Type %q", ct)
	}
	b, _ := io.ReadAll(r.Body)
	var body map[string]string
	if err := json.Unmarshal(b, &body); err != nil || len(body) != 1 {
		p.t.Errorf("body %s: want {\"message\": \"…\"} alone (%v)", b, err)
	}
	msg := body["message"]
	if len(msg) > opencloud.MaxMessage {
		p.t.Errorf("message of %d characters", len(msg))
	}
	var m map[string]any
	if err := json.Unmarshal([]byte(msg), &m); err != nil {
		p.t.Errorf("the message is not JSON: %q", msg)
	}
	p.mu.Lock()
	p.got = append(p.got, m)
	var answer func(http.ResponseWriter)
	if len(p.answers) > 0 {
		answer, p.answers = p.answers[0], p.answers[1:]
	}
	p.mu.Unlock()
	if answer != nil {
		answer(w)
	}
}

func status(code int, retryAfter string) func(http.ResponseWriter) {
	return func(w http.ResponseWriter) {
		if retryAfter != "" {
			w.Header().Set("Retry-After", retryAfter)
		}
		w.WriteHeader(code)
		io.WriteString(w, `{"error":"`+http.StatusText(code)+`"}`)
	}
}

type harness struct {
	pub    *opencloud.Publisher
	reg    *prometheus.Registry
	mu     sync.Mutex
	pauses []time.Duration
	logs   strings.Builder
}

func start(t *testing.T, base string, queue int) *harness {
	h := &harness{reg: prometheus.NewRegistry()}
	h.pub = opencloud.New(opencloud.Config{BaseURL: base + "/", Keys: keys, Registry: h.reg, Queue: queue,
		Logger: slogTo(&h.mu, &h.logs),
		Wait: func(_ context.Context, d time.Duration) {
			h.mu.Lock()
			h.pauses = append(h.pauses, d)
			h.mu.Unlock()
		}})
	return h
}

func (h *harness) run(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { h.pub.Run(ctx); close(done) }()
	t.Cleanup(func() { cancel(); <-done })
}

// count returns the counter of outcome, waiting up to 5 s for it to
// reach want (the worker counts after the platform answered).
func (h *harness) count(t *testing.T, outcome string, want float64) {
	t.Helper()
	var got float64
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		got = h.read(t, outcome)
		if got == want {
			return
		}
	}
	t.Fatalf("gatehouse_opencloud_publish_total{outcome=%q} = %v, want %v", outcome, got, want)
}

func (h *harness) read(t *testing.T, outcome string) float64 {
	families, err := h.reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range families {
		if f.GetName() != "gatehouse_opencloud_publish_total" {
			continue
		}
		for _, m := range f.GetMetric() {
			if m.GetLabel()[0].GetValue() == outcome {
				return m.GetCounter().GetValue()
			}
		}
	}
	t.Fatalf("no series for outcome %q", outcome)
	return 0
}

func TestPublishSendsTheCommand(t *testing.T) {
	p, srv := newPlatform(t)
	h := start(t, srv.URL, 0)
	h.run(t)
	c := command("42")
	h.pub.Publish(context.Background(), org, c)
	h.count(t, opencloud.Sent, 1)
	want := map[string]any{"id": c.ID.String(), "type": "UNLOCK", "accessPointId": c.AccessPoint.ID.String(),
		"scope": "SERVER", "serverJobId": jobID, "platformUserId": nil, "durationSeconds": float64(10),
		"expiresAt": "2026-11-20T12:01:00.000Z"}
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.got) != 1 || len(p.got[0]) != len(want) {
		t.Fatalf("messages %v, want one with %v", p.got, want)
	}
	for k, v := range want {
		if p.got[0][k] != v {
			t.Errorf("message[%s] = %v, want %v", k, p.got[0][k], v)
		}
	}
}

func TestPublishRetriesAfterRetryAfter(t *testing.T) {
	p, srv := newPlatform(t, status(http.StatusTooManyRequests, "2"), status(http.StatusServiceUnavailable, "60"))
	h := start(t, srv.URL, 0)
	h.run(t)
	h.pub.Publish(context.Background(), org, command("42"))
	h.count(t, opencloud.Sent, 1)
	h.mu.Lock()
	defer h.mu.Unlock()
	// Retry-After is honoured, and capped: a retry is brief.
	if len(h.pauses) != 2 || h.pauses[0] != 2*time.Second || h.pauses[1] != 5*time.Second {
		t.Errorf("pauses %v, want [2s 5s]", h.pauses)
	}
	if len(p.got) != 3 {
		t.Errorf("%d requests, want 3", len(p.got))
	}
}

func TestPublishGivesUp(t *testing.T) {
	t.Run("after three attempts", func(t *testing.T) {
		fail := status(http.StatusInternalServerError, "")
		p, srv := newPlatform(t, fail, fail, fail, fail)
		h := start(t, srv.URL, 0)
		h.run(t)
		h.pub.Publish(context.Background(), org, command("42"))
		h.count(t, opencloud.Failed, 1)
		if len(p.got) != 3 || h.read(t, opencloud.Sent) != 0 {
			t.Errorf("%d requests, want 3", len(p.got))
		}
	})
	t.Run("at once when the key is refused", func(t *testing.T) {
		p, srv := newPlatform(t, func(w http.ResponseWriter) {
			w.WriteHeader(http.StatusUnauthorized)
			io.WriteString(w, `{"error":"Invalid API Key `+secretKey+`"}`)
		})
		h := start(t, srv.URL, 0)
		h.run(t)
		h.pub.Publish(context.Background(), org, command("42"))
		h.count(t, opencloud.Failed, 1)
		h.mu.Lock()
		defer h.mu.Unlock()
		if len(p.got) != 1 || len(h.pauses) != 0 {
			t.Errorf("%d requests and pauses %v, want 1 and none", len(p.got), h.pauses)
		}
		if logs := h.logs.String(); !strings.Contains(logs, "status 401") || strings.Contains(logs, secretKey) {
			t.Errorf("logs %s: want the failure, without the key", logs)
		}
	})
	t.Run("when the key does not open", func(t *testing.T) {
		p, srv := newPlatform(t)
		h := start(t, srv.URL, 0)
		h.run(t)
		h.pub.Publish(context.Background(), org, command("13"))
		h.count(t, opencloud.Failed, 1)
		if len(p.got) != 0 {
			t.Errorf("%d requests, want none", len(p.got))
		}
	})
}

func TestPublishSkipsUniversesWithoutAKey(t *testing.T) {
	p, srv := newPlatform(t)
	h := start(t, srv.URL, 0)
	h.run(t)
	h.pub.Publish(context.Background(), org, command("7"))
	h.pub.Publish(context.Background(), uuid.New(), command("42")) // another organization's universe 42
	h.count(t, opencloud.Skipped, 2)
	if len(p.got) != 0 {
		t.Errorf("%d requests, want none", len(p.got))
	}
}

// TestPublishNeverBlocks: with the queue full (no worker runs), Publish
// returns at once and counts the command dropped; the queued ones are
// sent when the worker starts.
func TestPublishNeverBlocks(t *testing.T) {
	_, srv := newPlatform(t)
	h := start(t, srv.URL, 2)
	done := make(chan struct{})
	go func() {
		for range 5 {
			h.pub.Publish(context.Background(), org, command("42"))
		}
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("Publish blocked on a full queue")
	}
	if got := h.read(t, opencloud.Dropped); got != 3 {
		t.Errorf("dropped %v, want 3", got)
	}
	h.run(t)
	h.count(t, opencloud.Sent, 2)
}

func TestMessageFitsTheLimit(t *testing.T) {
	c := command("42")
	msg, ok := opencloud.Message(c)
	if !ok || len(msg) > opencloud.MaxMessage || !strings.Contains(msg, jobID) {
		t.Fatalf("Message = %q, %v", msg, ok)
	}
	long := strings.Repeat("j", 2000)
	c.ServerJobID = &long
	msg, ok = opencloud.Message(c)
	var m map[string]any
	if err := json.Unmarshal([]byte(msg), &m); !ok || err != nil || len(msg) > opencloud.MaxMessage {
		t.Fatalf("Message of a long command = %q, %v, %v", msg, ok, err)
	}
	if _, has := m["serverJobId"]; has || m["id"] != c.ID.String() || m["scope"] != "SERVER" {
		t.Errorf("the message of a long command %v: want its core without the optional fields", m)
	}
}
