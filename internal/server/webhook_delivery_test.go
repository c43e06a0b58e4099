package server_test

import (
	"context"
	"encoding/json"
	"net/http"
	"slices"
	"strings"
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
