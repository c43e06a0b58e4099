package client_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/gatehouse/gatehouse"
	"github.com/gatehouse/gatehouse/client"
	"github.com/gatehouse/gatehouse/internal/apitest"
	"github.com/gatehouse/gatehouse/internal/ratelimit"
)

var generous = ratelimit.Limit{Rate: gatehouse.Rate{Count: 100000, Per: time.Second}, Burst: 100000}

func newClient(t *testing.T, a *apitest.API, opts ...client.Option) *client.Client {
	t.Helper()
	c, err := client.New(a.URL, a.Key, append([]client.Option{client.WithHTTPClient(a.Client)}, opts...)...)
	must(t, err)
	return c
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// TestEventsWalksEveryEventOnce stores 10,000 events through the client,
// five to each instant so pages end inside ties, and walks them back.
func TestEventsWalksEveryEventOnce(t *testing.T) {
	a := apitest.Start(t, generous)
	c := newClient(t, a)
	ctx := context.Background()
	const total = 10000
	sent := map[string]bool{}
	for b := range total / client.MaxBatch {
		batch := make([]client.IngestEvent, client.MaxBatch)
		for i := range batch {
			n := b*client.MaxBatch + i
			batch[i] = client.IngestEvent{Type: "ACCESS_DENIED", Allowed: "denied", Reason: "OUTSIDE_SCHEDULE",
				OccurredAt: a.Clock.Now().Add(-time.Duration(n/5) * time.Second), AccessPointID: a.AccessPointID.String(),
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
	a.Requests.Store(0)
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
	if got, want := a.Requests.Load(), int64((total+136)/137); got != want {
		t.Errorf("%d requests, want %d pages", got, want)
	}
	// Stopping early stops paging.
	a.Requests.Store(0)
	n := 0
	for _, err := range c.Events(ctx, client.EventQuery{Limit: 10}) {
		must(t, err)
		if n++; n == 15 {
			break
		}
	}
	if got := a.Requests.Load(); got != 2 {
		t.Errorf("breaking after 15 of 10-event pages made %d requests, want 2", got)
	}
}

// TestBacksOffOn429 exhausts a key's burst: the client waits exactly the
// Retry-After the server sent, then succeeds; without retries, the 429
// comes back as an *Error carrying it.
func TestBacksOffOn429(t *testing.T) {
	a := apitest.Start(t, ratelimit.Limit{Rate: gatehouse.Rate{Count: 1, Per: 10 * time.Second}, Burst: 2})
	ctx := context.Background()

	var waits []time.Duration
	c := newClient(t, a)
	client.SetSleep(c, func(_ context.Context, d time.Duration) error {
		waits = append(waits, d)
		a.Clock.Advance(d) // the server's clock: the bucket refills
		return nil
	})
	for range 2 {
		_, err := c.ListEvents(ctx, client.EventQuery{}, "")
		must(t, err)
	}
	a.Requests.Store(0)
	if _, err := c.ListEvents(ctx, client.EventQuery{}, ""); err != nil {
		t.Fatalf("after backing off: %v", err)
	}
	if len(waits) != 1 || waits[0] != 10*time.Second {
		t.Errorf("waited %v, want [10s] as Retry-After said", waits)
	}
	if got := a.Requests.Load(); got != 2 {
		t.Errorf("%d requests, want the 429 and the retry", got)
	}

	impatient := newClient(t, a, client.WithMaxRetries(0))
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
	cancelling := newClient(t, a)
	cctx, cancel := context.WithCancel(ctx)
	client.SetSleep(cancelling, func(ctx context.Context, _ time.Duration) error { cancel(); return ctx.Err() })
	if _, err := cancelling.ListEvents(cctx, client.EventQuery{}, ""); !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v, want context.Canceled", err)
	}
}

func TestErrorsCarryIssues(t *testing.T) {
	a := apitest.Start(t, generous)
	c := newClient(t, a)
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
	a := apitest.Start(t, generous)
	c := newClient(t, a)
	last := "x" // a different last character, so the checksum fails
	if strings.HasSuffix(a.Key, last) {
		last = "y"
	}
	revoked, err := client.New(a.URL, a.Key[:len(a.Key)-1]+last, client.WithHTTPClient(a.Client))
	must(t, err)
	_, apiErr := revoked.ListEvents(context.Background(), client.EventQuery{}, "")
	offline, err := client.New("http://127.0.0.1:1", a.Key)
	must(t, err)
	_, netErr := offline.ListEvents(context.Background(), client.EventQuery{}, "")
	if apiErr == nil || netErr == nil {
		t.Fatalf("want errors, got %v and %v", apiErr, netErr)
	}
	for _, s := range []string{
		fmt.Sprint(c), fmt.Sprintf("%v %+v %#v %s", c, c, c, c), fmt.Sprintf("%#v", *c),
		apiErr.Error(), fmt.Sprintf("%#v", apiErr), netErr.Error(),
	} {
		if strings.Contains(s, a.Key[11:]) || strings.Contains(s, a.Key[:len(a.Key)-1]) {
			t.Errorf("the key's secret part appears in %q", s)
		}
	}
}
