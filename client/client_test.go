package client_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gatehouse/gatehouse"
	"github.com/gatehouse/gatehouse/client"
	"github.com/gatehouse/gatehouse/internal/apitest"
	"github.com/gatehouse/gatehouse/internal/auth"
	"github.com/gatehouse/gatehouse/internal/ratelimit"
	"github.com/gatehouse/gatehouse/internal/server"
	"github.com/gatehouse/gatehouse/internal/sqlite"
	"github.com/prometheus/client_golang/prometheus"
)

type clock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *clock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.now }

func (c *clock) Advance(d time.Duration) { c.mu.Lock(); c.now = c.now.Add(d); c.mu.Unlock() }

// api is a real Gatehouse server on a fresh SQLite file, with one
// organization, one access point and a key with every scope.
type api struct {
	url, key      string
	accessPointID string
	clock         *clock
	requests      atomic.Int64
	http          *http.Client // checks every exchange against the OpenAPI document
}

func newAPI(t *testing.T, keyLimit ratelimit.Limit) *api {
	t.Helper()
	ctx := context.Background()
	c := &clock{now: time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)}
	db, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "gatehouse.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	db.Now = c.Now
	if err := db.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	org, err := db.CreateOrganization(ctx, "Acme")
	must(t, err)
	loc, err := db.CreateLocation(ctx, org.ID, "HQ")
	must(t, err)
	ap, err := db.CreateAccessPoint(ctx, org.ID, loc.ID, "Front door")
	must(t, err)
	raw, prefix, hash := gatehouse.GenerateKey()
	must(t, db.CreateAPIKey(ctx, gatehouse.APIKey{ID: gatehouse.NewID(), OrgID: org.ID, Name: "client test",
		Prefix: prefix, Hash: hash, Scopes: gatehouse.Scopes, CreatedAt: c.Now()}))
	secret, err := db.Secret(ctx)
	must(t, err)
	h := server.New(server.Config{
		Store: db, Auth: auth.New(db, c.Now), Limiter: ratelimit.NewLocal(c.Now),
		KeyLimit:        keyLimit,
		FailedAuthLimit: ratelimit.Limit{Rate: gatehouse.Rate{Count: 100, Per: time.Second}, Burst: 100},
		Cursors:         gatehouse.NewCursors(secret),
		Logger:          slog.New(slog.NewTextHandler(io.Discard, nil)),
		Metrics:         server.NewMetrics(prometheus.NewRegistry()),
		Now:             c.Now,
	})
	a := &api{key: raw, accessPointID: ap.ID.String(), clock: c}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		a.requests.Add(1)
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	a.url = srv.URL
	a.http = &http.Client{Transport: apitest.Document(t).Transport(t, srv.Client().Transport)}
	return a
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

var generous = ratelimit.Limit{Rate: gatehouse.Rate{Count: 100000, Per: time.Second}, Burst: 100000}

func (a *api) client(t *testing.T, opts ...client.Option) *client.Client {
	t.Helper()
	c, err := client.New(a.url, a.key, append([]client.Option{client.WithHTTPClient(a.http)}, opts...)...)
	must(t, err)
	return c
}

// TestEventsWalksEveryEventOnce stores 10,000 events through the client,
// five to each instant so pages end inside ties, and walks them back.
func TestEventsWalksEveryEventOnce(t *testing.T) {
	a := newAPI(t, generous)
	c := a.client(t)
	ctx := context.Background()
	const total = 10000
	sent := map[string]bool{}
	for b := range total / client.MaxBatch {
		batch := make([]client.IngestEvent, client.MaxBatch)
		for i := range batch {
			n := b*client.MaxBatch + i
			batch[i] = client.IngestEvent{Type: "ACCESS_DENIED", Allowed: "denied", Reason: "OUTSIDE_SCHEDULE",
				OccurredAt: a.clock.Now().Add(-time.Duration(n/5) * time.Second), AccessPointID: a.accessPointID,
				PlatformUserID: fmt.Sprint(1000 + n%37)}
		}
		res, err := c.IngestEvents(ctx, batch)
		must(t, err)
		if res.Accepted != client.MaxBatch || len(res.IDs) != client.MaxBatch {
			t.Fatalf("batch %d: %+v", b, res)
		}
		for _, id := range res.IDs {
			sent[id] = true
		}
	}
	a.requests.Store(0)
	seen := map[string]bool{}
	var last client.Event
	for ev, err := range c.Events(ctx, client.EventQuery{Allowed: "denied", Limit: 137}) {
		must(t, err)
		if seen[ev.ID] {
			t.Fatalf("event %s twice", ev.ID)
		}
		if !sent[ev.ID] {
			t.Fatalf("event %s was never sent", ev.ID)
		}
		if len(seen) > 0 && (ev.OccurredAt.After(last.OccurredAt) || ev.OccurredAt.Equal(last.OccurredAt) && ev.ID >= last.ID) {
			t.Fatalf("out of order: %s %s after %s %s", ev.OccurredAt, ev.ID, last.OccurredAt, last.ID)
		}
		seen[ev.ID], last = true, ev
	}
	if len(seen) != total {
		t.Fatalf("walked %d events, want %d", len(seen), total)
	}
	if got, want := a.requests.Load(), int64((total+136)/137); got != want {
		t.Errorf("%d requests, want %d pages", got, want)
	}
	// Stopping early stops paging.
	a.requests.Store(0)
	n := 0
	for _, err := range c.Events(ctx, client.EventQuery{Limit: 10}) {
		must(t, err)
		if n++; n == 15 {
			break
		}
	}
	if got := a.requests.Load(); got != 2 {
		t.Errorf("breaking after 15 of 10-event pages made %d requests, want 2", got)
	}
}

// TestBacksOffOn429 exhausts a key's burst: the client waits exactly the
// Retry-After the server sent, then succeeds; without retries, the 429
// comes back as an *Error carrying it.
func TestBacksOffOn429(t *testing.T) {
	a := newAPI(t, ratelimit.Limit{Rate: gatehouse.Rate{Count: 1, Per: 10 * time.Second}, Burst: 2})
	ctx := context.Background()

	var waits []time.Duration
	c := a.client(t)
	client.SetSleep(c, func(_ context.Context, d time.Duration) error {
		waits = append(waits, d)
		a.clock.Advance(d) // the server's clock: the bucket refills
		return nil
	})
	for range 2 {
		_, err := c.ListEvents(ctx, client.EventQuery{}, "")
		must(t, err)
	}
	a.requests.Store(0)
	if _, err := c.ListEvents(ctx, client.EventQuery{}, ""); err != nil {
		t.Fatalf("after backing off: %v", err)
	}
	if len(waits) != 1 || waits[0] != 10*time.Second {
		t.Errorf("waited %v, want [10s] as Retry-After said", waits)
	}
	if got := a.requests.Load(); got != 2 {
		t.Errorf("%d requests, want the 429 and the retry", got)
	}

	impatient := a.client(t, client.WithMaxRetries(0))
	client.SetSleep(impatient, func(context.Context, time.Duration) error {
		t.Error("slept with retries off")
		return nil
	})
	impatient.ListEvents(ctx, client.EventQuery{}, "") // spend the token the wait earned
	_, err := impatient.ListEvents(ctx, client.EventQuery{}, "")
	var apiErr *client.Error
	if !errors.As(err, &apiErr) || apiErr.Status != 429 || apiErr.Code != "rate_limited" || apiErr.RetryAfter != 10*time.Second {
		t.Fatalf("err = %#v, want a 429 rate_limited with RetryAfter 10s", err)
	}

	// A cancelled context ends the wait.
	cancelling := a.client(t)
	cctx, cancel := context.WithCancel(ctx)
	client.SetSleep(cancelling, func(ctx context.Context, _ time.Duration) error { cancel(); return ctx.Err() })
	if _, err := cancelling.ListEvents(cctx, client.EventQuery{}, ""); !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v, want context.Canceled", err)
	}
}

func TestErrorsCarryIssues(t *testing.T) {
	a := newAPI(t, generous)
	c := a.client(t)
	_, err := c.ListEvents(context.Background(), client.EventQuery{Allowed: "maybe", Limit: 501}, "")
	var apiErr *client.Error
	if !errors.As(err, &apiErr) || apiErr.Status != 400 || apiErr.Code != "validation_failed" {
		t.Fatalf("err = %v", err)
	}
	if len(apiErr.Issues["allowed"]) == 0 || len(apiErr.Issues["limit"]) == 0 || apiErr.RequestID == "" {
		t.Errorf("issues %v, request id %q", apiErr.Issues, apiErr.RequestID)
	}
}

// TestKeyIsNeverWritten looks for the key in everything the client can
// print: itself, and its errors from the API and from the network.
func TestKeyIsNeverWritten(t *testing.T) {
	a := newAPI(t, generous)
	c := a.client(t)
	revoked, err := client.New(a.url, a.key[:len(a.key)-1]+"x", client.WithHTTPClient(a.http))
	must(t, err)
	_, apiErr := revoked.ListEvents(context.Background(), client.EventQuery{}, "")
	offline, err := client.New("http://127.0.0.1:1", a.key)
	must(t, err)
	_, netErr := offline.ListEvents(context.Background(), client.EventQuery{}, "")
	if apiErr == nil || netErr == nil {
		t.Fatalf("want errors, got %v and %v", apiErr, netErr)
	}
	for _, s := range []string{
		fmt.Sprint(c), fmt.Sprintf("%v %+v %#v %s", c, c, c, c), fmt.Sprintf("%#v", *c),
		apiErr.Error(), fmt.Sprintf("%#v", apiErr), netErr.Error(),
	} {
		if strings.Contains(s, a.key[11:]) || strings.Contains(s, a.key[:len(a.key)-1]) {
			t.Errorf("the key's secret part appears in %q", s)
		}
	}
}
