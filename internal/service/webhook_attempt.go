package service

import (
	"context"
	"encoding/json"
	"errors"
	"math/rand/v2"
	"net/http"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/gatehouse/gatehouse"
	"github.com/google/uuid"
)

// send delivers one message of the endpoint's queue and logs it; on
// failure it records the endpoint's failure and reports false.
func (r *webhookRound) send(ctx context.Context, t gatehouse.WebhookType, msgID string, object uuid.UUID, data any) bool {
	d := gatehouse.WebhookDelivery{ID: gatehouse.NewID(), MessageID: msgID, Type: t, ObjectID: object, Attempt: r.p.Attempts + 1}
	r.attempt(ctx, &d, data)
	r.p.Deliveries = append(r.p.Deliveries, d)
	if d.Status != gatehouse.DeliverySucceeded {
		r.fail(d.Error)
		return false
	}
	r.p.Attempts, r.p.FailingSince, r.p.LastError = 0, nil, ""
	return true
}

// sendManual sends a pending redelivery or test once; its outcome
// touches only its own log row.
func (r *webhookRound) sendManual(ctx context.Context, d gatehouse.WebhookDelivery) {
	var data any = map[string]any{"webhookId": r.c.Webhook.ID, "deliveryId": d.ID}
	switch d.Type {
	case gatehouse.WebhookEventCreated:
		ev, err := r.s.findEvent(ctx, r.c.Webhook.OrgID, d.ObjectID)
		switch {
		case errors.Is(err, gatehouse.ErrNotFound):
			d.Status, d.Error = gatehouse.DeliveryFailed, "the event no longer exists"
		case err != nil:
			d.Status, d.Error = gatehouse.DeliveryFailed, gatehouse.ErrorText(err)
		default:
			data = ev
		}
	case gatehouse.WebhookCommandUpdated:
		c, err := r.s.store.FindCommand(ctx, r.c.Webhook.OrgID, d.ObjectID)
		if err != nil {
			d.Status, d.Error = gatehouse.DeliveryFailed, gatehouse.ErrorText(err)
		}
		c.Deliveries = nil
		data = c
	case gatehouse.WebhookLockdownUpdated:
		l, err := r.s.store.FindLockdown(ctx, r.c.Webhook.OrgID, d.ObjectID, r.s.Now())
		if err != nil {
			d.Status, d.Error = gatehouse.DeliveryFailed, gatehouse.ErrorText(err)
		}
		data = l
	}
	d.Attempt = 1
	if d.Status == gatehouse.DeliveryPending {
		r.attempt(ctx, &d, data)
	} else {
		d.At = gatehouse.Time(gatehouse.Truncate(r.s.Now()))
	}
	r.p.Deliveries = append(r.p.Deliveries, d)
}

// attempt signs and sends d's message and fills in its outcome.
func (r *webhookRound) attempt(ctx context.Context, d *gatehouse.WebhookDelivery, data any) {
	now := r.s.Now()
	d.At = gatehouse.Time(gatehouse.Truncate(now))
	body, err := json.Marshal(webhookMessage{Type: d.Type, Data: data})
	var header http.Header
	if err == nil {
		header, err = gatehouse.SignWebhook(r.secret, d.MessageID, now, body)
	}
	if err != nil {
		d.Status, d.Error = gatehouse.DeliveryFailed, err.Error()
		return
	}
	header.Set("Content-Type", "application/json")
	header.Set("User-Agent", "Gatehouse-Webhooks/1")
	sent := time.Now() // the latency is real time, whatever the service's clock
	if r.pool != nil {
		// A receiver still answering after Slow keeps its round, not a
		// worker.
		waiting := time.AfterFunc(r.s.webhooks.Slow, func() { r.pool.wait(r) })
		defer waiting.Stop()
	}
	status, response, err := r.s.webhooks.Send(ctx, r.c.Webhook.URL, header, body)
	took := time.Since(sent)
	r.slow = r.slow || took >= r.s.webhooks.Slow
	ms := took.Milliseconds()
	d.LatencyMS = &ms
	d.Response = logText(response, 1024)
	switch {
	case err != nil:
		d.Status, d.Error = gatehouse.DeliveryFailed, logText([]byte(err.Error()), 300)
	case status < 200 || status > 299:
		d.ResponseCode = &status
		d.Status, d.Error = gatehouse.DeliveryFailed, "the endpoint answered "+http.StatusText(status)
	default:
		d.ResponseCode = &status
		d.Status = gatehouse.DeliverySucceeded
	}
}

// fail records a failed attempt at the head of the endpoint's queue: the
// next is due after the backoff, and after [WebhookSettings.RetryFor] of
// failures the endpoint is disabled.
func (r *webhookRound) fail(reason string) {
	now := r.s.Now()
	if r.p.FailingSince == nil {
		r.p.FailingSince = &now
	}
	r.p.Attempts++
	r.p.LastError = reason
	r.p.NextAt = now.Add(r.s.webhooks.backoff(r.p.Attempts))
	if now.Sub(*r.p.FailingSince) >= r.s.webhooks.RetryFor {
		ctx := gatehouse.WithActor(context.Background(), gatehouse.Actor{Type: gatehouse.ActorSystem})
		e := r.s.entry(ctx, r.p.OrgID, gatehouse.AuditWebhookDisabled, gatehouse.TargetWebhook).
			Change("enabled", "true", "false").Change("reason", "", "failing since "+gatehouse.FormatTime(*r.p.FailingSince)+": "+reason)
		r.p.Disable = &e
	}
}

// backoff is the wait after the n-th failed attempt:
// [WebhookSettings.RetryBase] doubling to [WebhookSettings.RetryMax], less
// up to half of it at random, so that endpoints that failed together do
// not retry together.
func (w WebhookSettings) backoff(n int) time.Duration {
	d := w.RetryMax
	if n < 31 {
		d = min(w.RetryBase<<(n-1), w.RetryMax)
	}
	return d - rand.N(d/2+1)
}

// logText keeps at most n bytes of b, cut on a rune boundary, for the
// delivery log.
func logText(b []byte, n int) string {
	if len(b) > n {
		b = b[:n]
		for len(b) > 0 && !utf8.Valid(b) {
			b = b[:len(b)-1]
		}
	}
	return strings.ToValidUTF8(string(b), "\uFFFD")
}
