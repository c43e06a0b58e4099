package server_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gatehouse/gatehouse"
	"github.com/gatehouse/gatehouse/internal/app"
)

// TestWebhookCommandUpdated: an endpoint subscribed to command.updated
// gets each status change of a command, as the command then is.
func TestWebhookCommandUpdated(t *testing.T) {
	e := newEnv(t, webhookSettings)
	o := e.newUnlockOrg("Acme")
	recv := newReceiver(t)
	e.createWebhook(e.newKey(o.ID, gatehouse.ScopeWebhooksWrite), `{"url": "`+recv.srv.URL+`", "types": ["command.updated"]}`)
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
