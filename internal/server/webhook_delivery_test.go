package server_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gatehouse/gatehouse"
	"github.com/gatehouse/gatehouse/internal/app"
	"github.com/gatehouse/gatehouse/internal/service"
)

// TestWebhookCommandUpdated: an endpoint subscribed to command.updated
// gets each status change of a command, as the command then is.
func TestWebhookCommandUpdated(t *testing.T) {
	e := newEnv(t, webhookSettings)
	o := e.newUnlockOrg("Acme")
	recv := newReceiver(t)
	e.createWebhook(e.newKey(o.ID, gatehouse.ScopeWebhooksWrite, gatehouse.ScopeCommandsWrite), `{"url": "`+recv.srv.URL+`", "types": ["command.updated"]}`)
	c, _ := e.issue(o.cmdKey, `{"accessPointId": "`+o.accessPoints[0].ID.String()+`", "scope": "UNIVERSE", "durationSeconds": 30}`)
	e.roundsUntil("the command sent", func() bool { return len(recv.messages()) >= 1 })
	if r := e.post("/api/consumer/v1/commands/"+c.ID.String()+"/cancel", o.cmdKey, ""); r.status != http.StatusOK {
		t.Fatalf("cancel = %d %s", r.status, r.body)
	}
	e.roundsUntil("the cancel sent", func() bool { return len(recv.messages()) >= 2 })
	var statuses []string
	for _, m := range recv.messages() {
		var cmd gatehouse.Command
		json.Unmarshal(m.Data, &cmd)
		if m.Type != "command.updated" || cmd.ID != c.ID {
			t.Errorf("got a %s for %s", m.Type, cmd.ID)
		}
		statuses = append(statuses, string(cmd.Status))
	}
	if !slices.Equal(statuses, []string{"PENDING", "CANCELLED"}) {
		t.Errorf("command.updated statuses %v, want PENDING then CANCELLED", statuses)
	}
}

// TestWebhookRefusedAtConnection: an instance without
// --webhooks-allow-private does not send to an endpoint whose address
// is private, whatever admitted it: the check is on the address dialled.
func TestWebhookRefusedAtConnection(t *testing.T) {
	e := newEnv(t, webhookSettings)
	acme := e.newOrg("Acme")
	recv := newReceiver(t)
	h := e.createWebhook(acme.allKey, `{"url": "http://localhost:`+recv.srv.URL[strings.LastIndex(recv.srv.URL, ":")+1:]+`/"}`)
	e.ingest(acme, e.ev(acme.accessPoints[0], gatehouse.EventAccessGranted, 1))
	strict, err := app.New(context.Background(), app.Settings{DB: app.Use(e.store), Now: e.clock.Now})
	if err != nil {
		t.Fatal(err)
	}
	var ds []gatehouse.WebhookDelivery
	for deadline := time.Now().Add(20 * time.Second); len(ds) == 0 && time.Now().Before(deadline); {
		e.clock.Advance(time.Second)
		if _, err := strict.Service.DeliverWebhooks(context.Background(), "strict"); err != nil {
			t.Fatal(err)
		}
		ds, _ = e.svc.ListWebhookDeliveries(context.Background(), acme.ID, h.ID, 10)
	}
	if n := len(recv.messages()); n != 0 {
		t.Errorf("the receiver on loopback got %d requests", n)
	}
	if len(ds) != 1 || ds[0].Status != gatehouse.DeliveryFailed || !strings.Contains(ds[0].Error, "not public") {
		t.Errorf("deliveries %+v; want one refused for its address", ds)
	}
}

// TestWebhookFailureAfterAnErasure: an event erased while the round's
// next send fails does not move the endpoint past the failed one: it is
// retried and delivered (a round once found the failed one's position
// by reading the page again, which the erasure had shortened).
func TestWebhookFailureAfterAnErasure(t *testing.T) {
	e := newEnv(t, webhookSettings)
	acme := e.newOrg("Acme")
	var (
		a       gatehouse.NewEvent
		b       []gatehouse.NewEvent
		mu      sync.Mutex
		erased  bool
		success []string
	)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var m struct{ Data struct{ ID string } }
		json.NewDecoder(r.Body).Decode(&m)
		mu.Lock()
		defer mu.Unlock()
		if m.Data.ID == b[0].ID.String() && !erased {
			erased = true
			if _, err := e.svc.ErasePlatformUser(context.Background(), acme.ID, "1"); err != nil {
				t.Error(err)
			}
			http.Error(w, "not now", http.StatusServiceUnavailable)
			return
		}
		success = append(success, m.Data.ID)
	}))
	t.Cleanup(srv.Close)
	e.createWebhook(acme.allKey, `{"url": "`+srv.URL+`"}`)
	mu.Lock()
	a = e.playerEvents(acme, "1", 1)[0]
	b = e.playerEvents(acme, "2", 2)
	mu.Unlock()
	e.roundsUntil("every event delivered", func() bool {
		mu.Lock()
		defer mu.Unlock()
		return len(success) >= 3
	})
	mu.Lock()
	defer mu.Unlock()
	want := []string{a.ID.String(), b[0].ID.String(), b[1].ID.String()}
	if !slices.Equal(success, want) {
		t.Errorf("delivered %v, want %v: the failed event retried, in order", success, want)
	}
}

// TestWebhookSlowReceiversDoNotStallOthers: an organization whose
// receivers hang, each with a test queued, does not hold up another's
// delivery: with one worker, the first hanging round gives its worker
// back, and the claim then takes the other organization's endpoint
// rather than another hanging one. Nothing here depends on speed: the
// receivers hang until the sender gives up (10 s), and the victim's
// event must arrive before any of them has.
func TestWebhookSlowReceiversDoNotStallOthers(t *testing.T) {
	e := newEnv(t, webhookSettings, func(s *app.Settings) {
		next := s.Webhooks
		s.Webhooks = func(w *service.WebhookSettings) {
			next(w)
			w.Workers, w.Slow, w.Waiting = 1, 50*time.Millisecond, 2
		}
	})
	var (
		hang     = make(chan struct{})
		arrived  atomic.Int32
		gaveUp   atomic.Int32
		attacker = e.newOrg("Attacker")
		victim   = e.newOrg("Victim")
	)
	slow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		arrived.Add(1)
		io.Copy(io.Discard, r.Body) // and the server sees the sender hang up
		select {
		case <-hang: // the test is over
		case <-r.Context().Done():
			gaveUp.Add(1)
		}
	}))
	t.Cleanup(slow.Close)
	for range 4 {
		h := e.createWebhook(attacker.allKey, `{"url": "`+slow.URL+`"}`)
		if r := e.post("/api/consumer/v1/webhooks/"+h.ID.String()+"/test", attacker.allKey, ""); r.status != http.StatusAccepted {
			t.Fatalf("POST /test = %d %s", r.status, r.body)
		}
	}
	// The victim's endpoint is due after every one of the attacker's.
	e.clock.Advance(time.Second)
	recv := newReceiver(t)
	e.createWebhook(victim.allKey, `{"url": "`+recv.srv.URL+`"}`)
	e.ingest(victim, e.ev(victim.accessPoints[0], gatehouse.EventAccessGranted, 0))

	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		e.svc.RunWebhooks(ctx, "test", func(err error) { t.Errorf("delivering: %v", err) })
	}()
	defer func() {
		close(hang)
		cancel()
		<-done
	}()
	for deadline := time.Now().Add(30 * time.Second); len(recv.delivered()) == 0; {
		if gaveUp.Load() > 0 || time.Now().After(deadline) {
			t.Fatalf("the victim's event was not delivered while the attacker's receivers hung (%d sends to them, %d given up)",
				arrived.Load(), gaveUp.Load())
		}
		// Less than the lease in all: no hanging round loses its lease.
		e.clock.Advance(100 * time.Millisecond)
		time.Sleep(50 * time.Millisecond)
	}
	t.Logf("delivered after %d sends to the hanging receivers", arrived.Load())
}

// TestWebhookManualSendsCountAgainstTheRound: queued tests are sent by a
// round only while it may send: one whose receiver is slow ends the
// round, and none starts after the round's share of its lease; the rest
// wait, pending, for the next round.
func TestWebhookManualSendsCountAgainstTheRound(t *testing.T) {
	for _, tc := range []struct {
		name   string
		answer func(e *env)
	}{
		{"slow receiver", func(*env) { time.Sleep(30 * time.Millisecond) }},
		{"past the round's time", func(e *env) { e.clock.Advance(20 * time.Second) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t, webhookSettings, func(s *app.Settings) {
				next := s.Webhooks
				s.Webhooks = func(w *service.WebhookSettings) {
					next(w)
					w.Slow = 20 * time.Millisecond
					if tc.name != "slow receiver" {
						w.Slow = time.Minute
					}
				}
			})
			o := e.newOrg("Acme")
			var sent atomic.Int32
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				sent.Add(1)
				tc.answer(e)
			}))
			t.Cleanup(srv.Close)
			h := e.createWebhook(o.allKey, `{"url": "`+srv.URL+`"}`)
			for range 3 {
				if r := e.post("/api/consumer/v1/webhooks/"+h.ID.String()+"/test", o.allKey, ""); r.status != http.StatusAccepted {
					t.Fatalf("POST /test = %d %s", r.status, r.body)
				}
			}
			if claimed, err := e.svc.DeliverWebhooks(context.Background(), "test"); !claimed || err != nil {
				t.Fatalf("DeliverWebhooks = %v, %v", claimed, err)
			}
			ds, err := e.svc.ListWebhookDeliveries(context.Background(), o.ID, h.ID, 10)
			if err != nil {
				t.Fatal(err)
			}
			statuses := map[string]int{}
			for _, d := range ds {
				statuses[d.Status]++
			}
			if sent.Load() != 1 || statuses[gatehouse.DeliverySucceeded] != 1 || statuses[gatehouse.DeliveryPending] != 2 {
				t.Errorf("one round sent %d of 3 tests (log %v); want 1 sent, 2 pending", sent.Load(), statuses)
			}
		})
	}
}
