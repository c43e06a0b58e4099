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
	"testing"
	"time"

	"github.com/gatehouse/gatehouse"
	"github.com/gatehouse/gatehouse/client"
	"github.com/gatehouse/gatehouse/internal/app"
	"github.com/gatehouse/gatehouse/internal/service"
)

// receiver is a webhook endpoint that answers 500 to its first failFirst
// requests (or to all while down) and keeps every request.
type receiver struct {
	t   *testing.T
	srv *httptest.Server
	mu  sync.Mutex
	// failFirst requests fail; down makes every one fail.
	failFirst int
	down      bool
	got       []message
	// first, when set, runs once, as the first request is answered.
	first func()
}

// message is one request a receiver got.
type message struct {
	header http.Header
	body   []byte
	ok     bool            // answered 2xx
	Type   string          `json:"type"`
	Data   json.RawMessage `json:"data"`
}

func (m message) id() string { return m.header.Get("webhook-id") }

// dataID is the id of the event or command the message carries.
func (m message) dataID() string {
	var d struct{ ID string }
	json.Unmarshal(m.Data, &d)
	return d.ID
}

func newReceiver(t *testing.T) *receiver {
	r := &receiver{t: t}
	r.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		var m message
		m.header = req.Header.Clone()
		m.body, _ = io.ReadAll(req.Body)
		if err := json.Unmarshal(m.body, &m); err != nil {
			t.Errorf("a delivery's body is not JSON: %s", m.body)
		}
		r.mu.Lock()
		m.ok = !r.down && r.failFirst <= 0
		r.failFirst--
		r.got = append(r.got, m)
		first := r.first
		r.first = nil
		r.mu.Unlock()
		if first != nil {
			first()
		}
		if !m.ok {
			http.Error(w, "not now", http.StatusInternalServerError)
			return
		}
		w.Write([]byte("thanks"))
	}))
	t.Cleanup(r.srv.Close)
	return r
}

func (r *receiver) messages() []message {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.got)
}

// delivered is the data ids of the messages answered 2xx, in order.
func (r *receiver) delivered() []string {
	var ids []string
	for _, m := range r.messages() {
		if m.ok {
			ids = append(ids, m.dataID())
		}
	}
	return ids
}

// webhookSettings: private targets allowed (the receivers are on
// loopback) and short retries: 1 s doubling to 4 s, disabled after a
// minute.
func webhookSettings(s *app.Settings) {
	s.WebhooksAllowPrivate = true
	s.Webhooks = func(w *service.WebhookSettings) {
		w.RetryBase, w.RetryMax, w.RetryFor, w.Idle = time.Second, 4*time.Second, time.Minute, 100*time.Millisecond
	}
}

// rounds runs n rounds of deliveries, the clock moving 5 s before each:
// past any backoff of webhookSettings.
func (e *env) rounds(n int) {
	e.t.Helper()
	e.drain(n, 5*time.Second, e.svc.DeliverWebhooks, "test")
}

// drain runs work as holder until it does nothing, turns times, the
// clock moving step before each turn.
func (e *env) drain(turns int, step time.Duration, work func(context.Context, string) (bool, error), holder string) {
	e.t.Helper()
	for range turns {
		e.clock.Advance(step)
		for {
			did, err := work(context.Background(), holder)
			if err != nil {
				e.t.Fatal(err)
			}
			if !did {
				break
			}
		}
	}
}

// roundsUntil runs rounds until done: on PostgreSQL, an event reaches the
// feed once every transaction older than it ended, in the whole cluster
// (tests of other packages share it), so how many rounds that takes is
// not fixed.
func (e *env) roundsUntil(what string, done func() bool) {
	e.t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !done() {
		if time.Now().After(deadline) {
			e.t.Fatalf("%s: not after 20 s of rounds", what)
		}
		e.rounds(1)
		time.Sleep(5 * time.Millisecond)
	}
}

type createdHook struct {
	gatehouse.Webhook
	Secret string `json:"secret"`
}

func (e *env) createWebhook(key, body string) createdHook {
	e.t.Helper()
	r := e.post("/api/consumer/v1/webhooks", key, body)
	if r.status != http.StatusCreated {
		e.t.Fatalf("POST /webhooks %s = %d %s", body, r.status, r.body)
	}
	var h createdHook
	r.decode(e.t, &h)
	return h
}

// TestWebhookDeliveryUnderFaults: a receiver that fails three times gets
// every event, in order, once it recovers, each signed (the Go verifier
// accepts it) and the failing one retried under one webhook-id; another
// organization's endpoint gets only its own; the log shows each attempt;
// redeliver, test and replay send again.
func TestWebhookDeliveryUnderFaults(t *testing.T) {
	e := newEnv(t, webhookSettings)
	acme, rival := e.newOrg("Acme"), e.newOrg("Rival")
	recv, theirs := newReceiver(t), newReceiver(t)
	recv.failFirst = 3
	h := e.createWebhook(acme.allKey, `{"url": "`+recv.srv.URL+`/hook"}`)
	e.createWebhook(rival.allKey, `{"url": "`+theirs.srv.URL+`/hook"}`)

	var want, wantTheirs []string
	for i := range 5 {
		ev := e.ev(acme.accessPoints[i%4], gatehouse.EventAccessGranted, 10-i)
		e.ingest(acme, ev)
		want = append(want, ev.ID.String())
		other := e.ev(rival.accessPoints[0], gatehouse.EventAccessDenied, 1)
		e.ingest(rival, other)
		wantTheirs = append(wantTheirs, other.ID.String())
	}
	e.roundsUntil("every event delivered", func() bool { return len(recv.delivered()) >= 5 && len(theirs.delivered()) >= 5 })
	if got := recv.delivered(); !slices.Equal(got, want) {
		t.Fatalf("delivered %v, want every event once in feed order %v", got, want)
	}
	if got := theirs.delivered(); !slices.Equal(got, wantTheirs) {
		t.Errorf("Rival's endpoint got %v, want only Rival's events %v", got, wantTheirs)
	}
	msgs := recv.messages()
	if len(msgs) != 8 {
		t.Errorf("%d requests, want 3 failed and 5 delivered", len(msgs))
	}
	for i, m := range msgs {
		if err := client.VerifyWebhook(h.Secret, m.header, m.body, e.clock.Now()); err != nil {
			t.Errorf("request %d does not verify: %v", i, err)
		}
		if m.Type != "event.created" {
			t.Errorf("request %d is a %q", i, m.Type)
		}
		if i < 4 && m.id() != msgs[0].id() {
			t.Errorf("attempt %d of the first event has webhook-id %q, want %q", i+1, m.id(), msgs[0].id())
		}
	}

	var log struct{ Data []gatehouse.WebhookDelivery }
	e.getOK("/api/consumer/v1/webhooks/"+h.ID.String()+"/deliveries?limit=100", acme.allKey, &log)
	if len(log.Data) != 8 {
		t.Fatalf("the log has %d deliveries, want 8", len(log.Data))
	}
	first := log.Data[len(log.Data)-1]
	if first.Status != gatehouse.DeliveryFailed || first.ResponseCode == nil || *first.ResponseCode != 500 || first.Attempt != 1 {
		t.Errorf("the oldest delivery = %+v, want attempt 1 failed with 500", first)
	}
	if d := log.Data[len(log.Data)-4]; d.Status != gatehouse.DeliverySucceeded || d.Attempt != 4 || d.Response != "thanks" {
		t.Errorf("the fourth delivery = %+v, want attempt 4 succeeded", d)
	}
	var now gatehouse.Webhook
	e.getOK("/api/consumer/v1/webhooks/"+h.ID.String(), acme.allKey, &now)
	if now.Failing != nil {
		t.Errorf("a recovered endpoint is failing: %+v", now.Failing)
	}

	// Redeliver the newest: the same message id, once more.
	newest := log.Data[0]
	r := e.post("/api/consumer/v1/webhooks/"+h.ID.String()+"/deliveries/"+newest.ID.String()+"/redeliver", acme.allKey, "")
	if r.status != http.StatusAccepted {
		t.Fatalf("redeliver = %d %s", r.status, r.body)
	}
	if r := e.post("/api/consumer/v1/webhooks/"+h.ID.String()+"/test", acme.allKey, ""); r.status != http.StatusAccepted {
		t.Fatalf("test = %d %s", r.status, r.body)
	}
	e.roundsUntil("the redelivery and the test sent", func() bool { return len(recv.messages()) >= 10 })
	msgs = recv.messages()
	if len(msgs) != 10 || msgs[8].id() != newest.MessageID || msgs[9].Type != "webhook.test" {
		t.Fatalf("after redeliver and test: %d requests, the last two %q %q", len(msgs), msgs[len(msgs)-2].id(), msgs[len(msgs)-1].Type)
	}

	// Replay from the start: every event again, in order.
	r = e.post("/api/consumer/v1/webhooks/"+h.ID.String()+"/replay", acme.allKey, `{"from": "start"}`)
	if r.status != http.StatusOK {
		t.Fatalf("replay = %d %s", r.status, r.body)
	}
	var replayed struct {
		ReplayEvents int64 `json:"replayEvents"`
	}
	if r.decode(t, &replayed); replayed.ReplayEvents != int64(len(want)) {
		t.Errorf("replayEvents %d, want the %d events of the feed", replayed.ReplayEvents, len(want))
	}
	e.roundsUntil("the replay sent", func() bool { return len(recv.delivered()) >= 12 })
	if got := recv.delivered(); !slices.Equal(got[7:], want) {
		t.Errorf("after a replay from the start: %v, want %v", got[7:], want)
	}
	// Not a cursor; a cursor this database cannot have made.
	for _, after := range []string{"nope", e.svc.FeedCursor(acme.ID, gatehouse.FeedPosition{Txn: 1 << 62, Seq: 1})} {
		r := e.post("/api/consumer/v1/webhooks/"+h.ID.String()+"/replay", acme.allKey, `{"after": "`+after+`"}`)
		if r.status != http.StatusBadRequest || len(r.apiError(t).Issues["after"]) == 0 {
			t.Errorf("replay from %q = %d %s, want a 400 keyed after", after, r.status, r.body)
		}
	}
}

// TestWebhookDisabledAfterFailing: an endpoint that fails for the retry
// window is disabled, which the audit log shows as the system's doing;
// re-enabled, it delivers from where it stopped.
func TestWebhookDisabledAfterFailing(t *testing.T) {
	e := newEnv(t, webhookSettings)
	acme := e.newOrg("Acme")
	recv := newReceiver(t)
	recv.down = true
	h := e.createWebhook(acme.allKey, `{"url": "`+recv.srv.URL+`"}`)
	ev := e.ev(acme.accessPoints[0], gatehouse.EventAccessDenied, 1)
	e.ingest(acme, ev)
	e.roundsUntil("disabled for failing", func() bool {
		w, err := e.svc.FindWebhook(context.Background(), acme.ID, h.ID)
		return err == nil && !w.Enabled
	})
	var got gatehouse.Webhook
	e.getOK("/api/consumer/v1/webhooks/"+h.ID.String(), acme.allKey, &got)
	if got.Enabled || got.DisabledReason != "failing" {
		t.Fatalf("after 100 s of failures: %+v, want disabled for failing", got)
	}
	tried := len(recv.messages())
	e.rounds(3)
	if len(recv.messages()) != tried {
		t.Errorf("a disabled endpoint was sent to")
	}
	var disabled *struct{ Actor struct{ Type string } }
	for _, a := range e.auditLog(t, acme.allKey, "action=webhook.disabled").Data {
		disabled = &struct{ Actor struct{ Type string } }{Actor: struct{ Type string }{a.Actor.Type}}
	}
	if disabled == nil || disabled.Actor.Type != "system" {
		t.Errorf("webhook.disabled entry = %+v, want one by the system", disabled)
	}

	recv.mu.Lock()
	recv.down = false
	recv.mu.Unlock()
	r := e.do(http.MethodPatch, "/api/consumer/v1/webhooks/"+h.ID.String(), acme.allKey, strings.NewReader(`{"enabled": true}`), "Content-Type", "application/json")
	if r.status != http.StatusOK {
		t.Fatalf("re-enable = %d %s", r.status, r.body)
	}
	e.roundsUntil("delivered once re-enabled", func() bool { return len(recv.delivered()) >= 1 })
	if got := recv.delivered(); !slices.Equal(got, []string{ev.ID.String()}) {
		t.Errorf("re-enabled, delivered %v, want the event it stopped at", got)
	}
}

// TestDeliveryLogLimit: the delivery log keeps 1,000 deliveries, and
// GET /webhooks/{id}/deliveries gives up to all of them at once, as
// docs/api.md and the service say; past that is a 400 naming the bound.
func TestDeliveryLogLimit(t *testing.T) {
	e := newEnv(t)
	acme := e.newOrg("Acme")
	key := e.newKey(acme.ID, gatehouse.ScopeWebhooksWrite, gatehouse.ScopeEventsRead)
	h := e.createWebhook(key, `{"url": "https://hooks.example.com/x"}`)
	path := "/api/consumer/v1/webhooks/" + h.ID.String() + "/deliveries?limit="
	if r := e.get(path+"1000", key); r.status != http.StatusOK {
		t.Errorf("limit=1000: %d %s, want 200", r.status, r.body)
	}
	r := e.get(path+"1001", key)
	if r.status != http.StatusBadRequest || !strings.Contains(strings.Join(r.apiError(t).Issues["limit"], ""), "1 to 1000") {
		t.Errorf("limit=1001: %d %s, want 400 naming 1 to 1000", r.status, r.body)
	}
}
