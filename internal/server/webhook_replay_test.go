package server_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/gatehouse/gatehouse"
)

// TestWebhookReplayNeedsStartingPoint: a replay without a starting point
// (no body field, a null or empty cursor) is a 400 saying what to send,
// not the whole feed again; the feed's start is asked for by name, and
// the answer counts the events the replay sends.
func TestWebhookReplayNeedsStartingPoint(t *testing.T) {
	e := newEnv(t, webhookSettings)
	acme := e.newOrg("Acme")
	h := e.createWebhook(acme.allKey, `{"url": "https://hooks.example.com/all"}`)
	denied := e.createWebhook(acme.allKey, `{"url": "https://hooks.example.com/denied", "filters": {"type": "ACCESS_DENIED"}}`)
	for i := range 3 {
		e.ingest(acme, e.ev(acme.accessPoints[0], gatehouse.EventAccessGranted, 10-i))
	}
	e.ingest(acme, e.ev(acme.accessPoints[1], gatehouse.EventAccessDenied, 5))
	path := "/api/consumer/v1/webhooks/" + h.ID.String() + "/replay"

	for _, body := range []string{`{}`, `{"after": null}`, `{"after": ""}`, `{"from": null}`, `{"from": ""}`} {
		r := e.post(path, acme.allKey, body)
		issues := r.apiError(t).Issues["after"]
		if r.status != http.StatusBadRequest || len(issues) == 0 || !strings.Contains(issues[0], `{"from": "start"}`) {
			t.Errorf("replay with %s = %d %s, want a 400 keyed after naming what to send", body, r.status, r.body)
		}
	}
	for body, field := range map[string]string{
		`{"from": "beginning"}`:             "from",
		`{"from": "start", "after": "abc"}`: "from",
		`{"since": "2026-01-01T00:00:00Z"}`: "since",
	} {
		if r := e.post(path, acme.allKey, body); r.status != http.StatusBadRequest || len(r.apiError(t).Issues[field]) == 0 {
			t.Errorf("replay with %s = %d %s, want a 400 keyed %s", body, r.status, r.body, field)
		}
	}

	var got struct {
		gatehouse.Webhook
		ReplayEvents int64 `json:"replayEvents"`
	}
	r := e.post(path, acme.allKey, `{"from": "start"}`)
	if r.status != http.StatusOK {
		t.Fatalf("replay from the start = %d %s", r.status, r.body)
	}
	if r.decode(t, &got); got.ReplayEvents != 4 || got.ID != h.ID {
		t.Errorf("replay from the start: %s, %d events, want %s and 4", got.ID, got.ReplayEvents, h.ID)
	}
	// From the endpoint's own cursor (the start, now): the same count; a
	// filtered endpoint counts what it receives.
	replay := func(path, body string) int64 {
		t.Helper()
		r := e.post(path, acme.allKey, body)
		if r.status != http.StatusOK {
			t.Fatalf("replay with %s = %d %s", body, r.status, r.body)
		}
		r.decode(t, &got)
		return got.ReplayEvents
	}
	if n := replay(path, `{"after": "`+got.Cursor+`"}`); n != 4 {
		t.Errorf("replay from its cursor: %d events, want 4", n)
	}
	if n := replay("/api/consumer/v1/webhooks/"+denied.ID.String()+"/replay", `{"from": "start"}`); n != 1 {
		t.Errorf("replay of the filtered endpoint: %d events, want 1", n)
	}
}
