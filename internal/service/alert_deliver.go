package service

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/gatehouse/gatehouse"
	"github.com/gatehouse/gatehouse/internal/clock"
)

// RunAlerts evaluates the threshold rules of every organization and
// delivers the alerts they (and the audit rules) fire, until ctx ends.
// Every instance runs it: holder names this instance, and errors are
// reported and retried. Rules and alerts are leased in the database, so
// instances share the work and never do one piece of it twice.
func (s *Service) RunAlerts(ctx context.Context, holder string, report func(error)) {
	if s.alerts.Send == nil {
		report(errors.New("alerts: no sender configured"))
		return
	}
	var wg sync.WaitGroup
	defer wg.Wait()
	loop := func(name string, work func(context.Context, string) (bool, error)) {
		wg.Go(func() {
			for ctx.Err() == nil {
				did, err := work(ctx, name)
				if err != nil && ctx.Err() == nil {
					report(err)
				}
				if !did || err != nil {
					clock.Sleep(ctx, s.alerts.Poll)
				}
			}
		})
	}
	loop(holder+"/alert-rules", s.EvaluateAlertRules)
	for i := range s.alerts.Workers {
		loop(fmt.Sprintf("%s/alerts-%d", holder, i), s.DeliverAlerts)
	}
}

// DeliverAlerts claims an alert whose delivery is due, if any, sends it
// once to its rule's destination, and reports whether it claimed one.
// A failed attempt is tried again after the webhooks' backoff (or the
// receiver's Retry-After, up to the backoff's ceiling) until the webhooks'
// retry period since the alert fired has passed; then the alert's
// delivery has failed.
func (s *Service) DeliverAlerts(ctx context.Context, holder string) (bool, error) {
	if s.alerts.Send == nil {
		return false, errors.New("alerts: no sender configured")
	}
	c, err := s.store.ClaimAlert(ctx, holder, s.Now(), s.alerts.Lease)
	if errors.Is(err, gatehouse.ErrNotFound) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	a := s.withLink(c.Alert)
	d := a.Delivery
	t := gatehouse.AlertAttempt{ID: gatehouse.NewID(), Attempt: d.Attempts + 1}
	wait := s.sendAlert(ctx, c, a, &t)
	now := s.Now()
	d.Attempts++
	res := gatehouse.AlertAttemptResult{OrgID: a.OrgID, AlertID: a.ID, Holder: holder, Now: now, Attempt: t, NextAt: now}
	switch {
	case t.Status == gatehouse.DeliverySucceeded:
		d.Status, d.LastError = gatehouse.DeliverySucceeded, ""
	case now.Sub(time.Time(a.FiredAt)) >= s.webhooks.RetryFor:
		d.Status, d.LastError = gatehouse.DeliveryFailed, t.Error
	default:
		d.Status, d.LastError = gatehouse.DeliveryPending, t.Error
		res.NextAt = now.Add(max(s.webhooks.backoff(d.Attempts), min(wait, s.webhooks.RetryMax)))
	}
	res.Delivery = d
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	err = s.store.SaveAlertAttempt(ctx, res)
	if errors.Is(err, gatehouse.ErrConflict) {
		return true, nil // the lease ran out: another instance tries it
	}
	return true, err
}

// sendAlert makes and sends a's message to c's destination and fills in
// the attempt t; it returns how long the receiver asked to be left alone
// (Retry-After), if it did.
func (s *Service) sendAlert(ctx context.Context, c gatehouse.AlertClaim, a gatehouse.Alert, t *gatehouse.AlertAttempt) time.Duration {
	now := s.Now()
	t.At = gatehouse.Time(gatehouse.Truncate(now))
	a.Deliveries = nil
	body, err := gatehouse.AlertMessage(c.Destination.Format, a)
	header := http.Header{}
	if err == nil && c.Destination.Format == gatehouse.AlertStandardWebhook {
		var secret string
		if secret, err = s.openAlertSecret(ctx, a.OrgID, a.RuleID, c.Sealed); err == nil {
			header, err = gatehouse.SignWebhook(secret, "msg_alert_"+a.ID.String(), now, body)
		}
	}
	if err != nil {
		t.Status, t.Error = gatehouse.DeliveryFailed, gatehouse.ErrorText(err)
		return 0
	}
	header.Set("Content-Type", "application/json")
	header.Set("User-Agent", "Gatehouse-Alerts/1")
	ctx, cancel := context.WithTimeout(ctx, s.alerts.Lease*3/4)
	defer cancel()
	sent := time.Now() // the latency is real time, whatever the service's clock
	status, answer, response, err := s.alerts.Send(ctx, c.Destination.URL, header, body)
	ms := time.Since(sent).Milliseconds()
	t.LatencyMS = &ms
	t.Response = logText(response, 1024)
	switch {
	case err != nil:
		t.Status, t.Error = gatehouse.DeliveryFailed, logText([]byte(err.Error()), 300)
	case status < 200 || status > 299:
		t.ResponseCode = &status
		t.Status, t.Error = gatehouse.DeliveryFailed, "the destination answered "+http.StatusText(status)
		return retryAfter(answer, response, now)
	default:
		t.ResponseCode = &status
		t.Status = gatehouse.DeliverySucceeded
	}
	return 0
}

// retryAfter reads how long a receiver asks to wait: the Retry-After
// header (seconds or a date), or Discord's JSON "retry_after" (seconds).
func retryAfter(h http.Header, body []byte, now time.Time) time.Duration {
	if v := h.Get("Retry-After"); v != "" {
		if n, err := strconv.ParseFloat(v, 64); err == nil && n > 0 {
			return time.Duration(n * float64(time.Second))
		}
		if t, err := http.ParseTime(v); err == nil {
			return t.Sub(now)
		}
	}
	var discord struct {
		RetryAfter float64 `json:"retry_after"`
	}
	if json.Unmarshal(body, &discord) == nil && discord.RetryAfter > 0 {
		return time.Duration(discord.RetryAfter * float64(time.Second))
	}
	return 0
}
