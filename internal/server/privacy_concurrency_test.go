package server_test

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gatehouse/gatehouse"
	"github.com/gatehouse/gatehouse/internal/app"
	"github.com/gatehouse/gatehouse/internal/service"
	"github.com/google/uuid"
)

// TestRetentionWhileWriting: two instances run the deletion of expired
// events at once while events keep coming: only one works, it deletes
// exactly what is older than the retention, and no write fails.
func TestRetentionWhileWriting(t *testing.T) {
	e := newEnv(t)
	acme := e.newOrg("Acme")
	old := make([]gatehouse.NewEvent, 2500)
	for i := range old {
		old[i] = e.ev(acme.accessPoints[i%4], gatehouse.EventAccessGranted, 60*24*401+i)
	}
	e.ingest(acme, old...)
	other, err := app.New(context.Background(), app.Settings{DB: app.Use(e.store), Now: e.clock.Now})
	must(t, err)

	ctx, stop := context.WithCancel(context.Background())
	var (
		wg      sync.WaitGroup
		written []gatehouse.NewEvent
		failed  error
	)
	wg.Go(func() {
		for ctx.Err() == nil {
			ev := e.ev(acme.accessPoints[0], gatehouse.EventAccessDenied, 1)
			ev.ID = gatehouse.NewID()
			if _, err := e.svc.IngestEvents(context.Background(), acme.ID, []gatehouse.NewEvent{ev}); err != nil {
				failed = err
				return
			}
			written = append(written, ev)
		}
	})
	var deleted [2]int
	var errs [2]error
	var runs sync.WaitGroup
	for i, svc := range []*service.Service{e.svc, other.Service} {
		runs.Go(func() { deleted[i], errs[i] = svc.RetainEvents(context.Background(), fmt.Sprint("instance-", i)) })
	}
	runs.Wait()
	stop()
	wg.Wait()
	if failed != nil || errs[0] != nil || errs[1] != nil {
		t.Fatalf("errors: ingest %v, retention %v %v", failed, errs[0], errs[1])
	}
	if deleted[0]+deleted[1] != len(old) || deleted[0] != 0 && deleted[1] != 0 {
		t.Errorf("deleted %v: want all %d by one instance", deleted, len(old))
	}
	if len(written) == 0 {
		t.Error("no event was written during the deletion")
	}
	// This instance's metrics count what it deleted, and say when the
	// oldest event it kept occurred.
	m := string(e.get("/metrics", "").body)
	if !strings.Contains(m, fmt.Sprintf("gatehouse_retention_deleted_events_total %d\n", deleted[0])) {
		t.Errorf("/metrics lacks the deleted count %d", deleted[0])
	}
	if deleted[0] > 0 && !strings.Contains(m, "gatehouse_retention_oldest_event_timestamp_seconds ") {
		t.Error("/metrics lacks the oldest event kept")
	}
	left := e.events(acme.readKey, "limit=500&dateFrom=2020-01-01T00:00:00Z")
	if len(left.Data) != min(len(written), 500) {
		t.Errorf("%d events left, want the %d written during the deletion", len(left.Data), len(written))
	}
}

// eraseFromReceiver erases a player from a webhook receiver's handler,
// while the round that called it waits: it reports, never stops, a test.
func (e *env) eraseFromReceiver(key, player string) {
	req, _ := http.NewRequest(http.MethodDelete, e.url+"/api/consumer/v1/platform-users/"+player, nil)
	req.Header.Set("Authorization", "Bearer "+key)
	res, err := e.client.Do(req)
	if err != nil {
		e.t.Errorf("erase: %v", err)
		return
	}
	res.Body.Close()
	if res.StatusCode != http.StatusOK {
		e.t.Errorf("erase = %d", res.StatusCode)
	}
}

// TestErasureDuringARound: a player erased while a round sends the page
// that holds their events is not sent the rest of it.
func TestErasureDuringARound(t *testing.T) {
	e := newEnv(t, webhookSettings)
	acme := e.newOrg("Acme")
	recv := newReceiver(t)
	e.createWebhook(acme.allKey, `{"url": "`+recv.srv.URL+`"}`)
	kept := e.playerEvents(acme, "281", 1)
	e.playerEvents(acme, "282", 3)
	recv.first = func() { e.eraseFromReceiver(acme.allKey, "282") }
	e.roundsUntil("delivered", func() bool { return len(recv.delivered()) >= 1 })
	e.rounds(2)
	if got := recv.delivered(); len(got) != 1 || got[0] != kept[0].ID.String() {
		t.Errorf("delivered %v; want only %s, sent before the erasure", got, kept[0].ID)
	}
}

// TestErasureDuringACommandRound: the same for the commands of the
// player: the round skips them and goes on.
func TestErasureDuringACommandRound(t *testing.T) {
	e := newEnv(t, webhookSettings)
	o := e.newUnlockOrg("Acme")
	recv := newReceiver(t)
	e.createWebhook(e.newKey(o.ID, gatehouse.ScopeWebhooksWrite, gatehouse.ScopeCommandsWrite), `{"url": "`+recv.srv.URL+`", "types": ["command.updated"]}`)
	ap := o.accessPoints[0].ID.String()
	kept, _ := e.issue(o.cmdKey, `{"accessPointId": "`+ap+`", "scope": "UNIVERSE", "durationSeconds": 30}`)
	for range 2 {
		e.issue(o.cmdKey, `{"accessPointId": "`+ap+`", "scope": "PLAYER", "platformUserId": "283", "durationSeconds": 30}`)
	}
	last, _ := e.issue(o.cmdKey, `{"accessPointId": "`+ap+`", "scope": "UNIVERSE", "durationSeconds": 30}`)
	eraser := e.newKey(o.ID, gatehouse.ScopePrivacyWrite)
	recv.first = func() { e.eraseFromReceiver(eraser, "283") }
	e.roundsUntil("delivered", func() bool { return len(recv.delivered()) >= 2 })
	e.rounds(2)
	if got := recv.delivered(); !slices.Equal(got, []string{kept.ID.String(), last.ID.String()}) {
		t.Errorf("delivered %v; want %s and %s, the erased player's commands skipped", got, kept.ID, last.ID)
	}
}

// TestErasedEventsLeaveWebhooks: once a player is erased, neither a
// redelivery nor a replay sends their events again.
func TestErasedEventsLeaveWebhooks(t *testing.T) {
	e := newEnv(t, webhookSettings)
	acme := e.newOrg("Acme")
	recv := newReceiver(t)
	h := e.createWebhook(acme.allKey, `{"url": "`+recv.srv.URL+`"}`)
	erased := e.playerEvents(acme, "261", 2)
	kept := e.playerEvents(acme, "262", 1)
	e.roundsUntil("delivered", func() bool { return len(recv.delivered()) >= 3 })
	if r := e.do(http.MethodDelete, "/api/consumer/v1/platform-users/261", acme.allKey, nil); r.status != http.StatusOK {
		t.Fatalf("erase = %d %s", r.status, r.body)
	}
	var log struct{ Data []gatehouse.WebhookDelivery }
	e.getOK("/api/consumer/v1/webhooks/"+h.ID.String()+"/deliveries", acme.allKey, &log)
	var ofErased gatehouse.WebhookDelivery
	for _, d := range log.Data {
		gone := d.ObjectID == erased[0].ID || d.ObjectID == erased[1].ID
		if d.ObjectID == erased[0].ID {
			ofErased = d
		}
		// What the receiver answered about an erased event may echo the
		// player: erased with it.
		if gone && d.Response != "" || !gone && d.Response != "thanks" {
			t.Errorf("after the erasure, the delivery of %s keeps the response %q", d.ObjectID, d.Response)
		}
	}
	if r := e.post("/api/consumer/v1/webhooks/"+h.ID.String()+"/deliveries/"+ofErased.ID.String()+"/redeliver", acme.allKey, ""); r.status != http.StatusAccepted {
		t.Fatalf("redeliver = %d %s", r.status, r.body)
	}
	if r := e.post("/api/consumer/v1/webhooks/"+h.ID.String()+"/replay", acme.allKey, `{"from": "start"}`); r.status != http.StatusOK {
		t.Fatalf("replay = %d %s", r.status, r.body)
	}
	e.roundsUntil("the replay delivered", func() bool { return len(recv.delivered()) >= 4 })
	e.rounds(2)
	got := recv.delivered()
	if len(got) != 4 || got[3] != kept[0].ID.String() {
		t.Errorf("after the erasure, delivered %v; want only %s again", got[3:], kept[0].ID)
	}
	e.getOK("/api/consumer/v1/webhooks/"+h.ID.String()+"/deliveries", acme.allKey, &log)
	for _, d := range log.Data {
		if d.Manual && (d.Status != gatehouse.DeliveryFailed || !strings.Contains(d.Error, "no longer exists")) {
			t.Errorf("the redelivery of an erased event: %+v", d)
		}
	}
}

// TestConcurrentErasureDeliveries: the platform sends a notification
// again when an answer is slow, so several deliveries of it may arrive
// at once. One erases; every other answers duplicate; the audit log
// holds one entry and the erasure requests one erasure.
func TestConcurrentErasureDeliveries(t *testing.T) {
	e := newEnv(t)
	acme := e.newOrg("Acme")
	in, err := e.svc.SetUpErasureWebhook(context.Background(), acme.ID)
	must(t, err)
	e.playerEvents(acme, "261", 40)
	// The first erasure to start is slow, so that every other delivery
	// arrives while it runs, as the platform's retries of a slow answer
	// do.
	svc := service.New(service.Config{Store: &slowErasure{Store: e.store}, Now: e.clock.Now})
	body := erasureBody("n-at-once", "RightToErasureRequest", 261)
	const n = 8
	outcomes := make([]string, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			rec, err := svc.ReceiveErasure(context.Background(), in.Token, signPlatform(in.Secret, e.clock.Now(), body), []byte(body))
			if err != nil {
				t.Errorf("delivery %d: %v", i, err)
			}
			outcomes[i] = string(rec.Outcome)
		})
	}
	wg.Wait()
	slices.Sort(outcomes)
	if want := append([]string{"duplicate", "duplicate", "duplicate", "duplicate", "duplicate", "duplicate", "duplicate"}, "erased"); !slices.Equal(outcomes, want) {
		t.Errorf("%d deliveries at once answered %v, want one erased and the rest duplicate", n, outcomes)
	}
	if log := e.auditLog(t, acme.allKey, "action=platform_user.erased"); len(log.Data) != 1 {
		t.Errorf("%d platform_user.erased entries, want 1", len(log.Data))
	}
	var list struct{ Data []gatehouse.ErasureRequest }
	e.getOK("/api/consumer/v1/privacy/erasure-requests", e.newKey(acme.ID, gatehouse.ScopePrivacyWrite), &list)
	erased := 0
	for _, rq := range list.Data {
		if rq.Outcome == gatehouse.ErasureErased {
			erased++
			if rq.Events != 40 {
				t.Errorf("the erasure counts %d events, want 40", rq.Events)
			}
		}
	}
	if erased != 1 || len(list.Data) != n {
		t.Errorf("%d requests recorded, %d erasures; want %d and 1", len(list.Data), erased, n)
	}
}

// slowErasure is a store whose first erasure batch starts late.
type slowErasure struct {
	gatehouse.Store
	once sync.Once
}

func (s *slowErasure) DeletePlayerEvents(ctx context.Context, orgID uuid.UUID, player string, limit int) (int, error) {
	s.once.Do(func() { time.Sleep(200 * time.Millisecond) })
	return s.Store.DeletePlayerEvents(ctx, orgID, player, limit)
}
