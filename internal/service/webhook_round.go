package service

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/gatehouse/gatehouse"
	"github.com/google/uuid"
)

// DeliverWebhooks claims a due endpoint, if any, delivers to it for one
// round, and reports whether it claimed one. A round sends the endpoint's
// pending manual deliveries, then its events and its command changes in
// order, a page at a time, until:
//   - it has sent everything;
//   - one fails;
//   - a receiver is slow; or
//   - the round's share of its lease is spent.
func (s *Service) DeliverWebhooks(ctx context.Context, holder string) (bool, error) {
	r, err := s.claimWebhook(ctx, holder)
	if r == nil {
		return false, err
	}
	return true, r.deliver(ctx)
}

// claimWebhook claims a due endpoint for holder's round: nil when none
// is due.
func (s *Service) claimWebhook(ctx context.Context, holder string) (*webhookRound, error) {
	if s.webhooks.Send == nil {
		return nil, errors.New("webhooks: no sender configured")
	}
	start := s.Now()
	c, err := s.store.ClaimWebhook(ctx, holder, start, s.webhooks.Lease)
	if errors.Is(err, gatehouse.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return &webhookRound{s: s, c: c, holder: holder, start: start, stopAt: start.Add(s.webhooks.Lease / 2)}, nil
}

// deliver runs the round.
func (r *webhookRound) deliver(ctx context.Context) error {
	// Sends end by three quarters of the lease, in real time (the
	// service's clock may be a test's).
	ctx, cancel := context.WithTimeout(ctx, r.s.webhooks.Lease*3/4)
	defer cancel()
	c := r.c
	secret, err := r.s.openWebhookSecret(ctx, c.Webhook.OrgID, c.Webhook.ID, c.Sealed)
	if err == nil {
		r.secret = gatehouse.SigningSecrets(secret, c.Webhook, r.start)
		r.filter, err = gatehouse.ParseWebhookFilter(c.Filters)
	}
	if err != nil {
		// Nothing can be sent: count it as a failed attempt, so that
		// the endpoint backs off (and is disabled in time) rather than
		// being claimed again at once.
		r.p = r.progress()
		r.fail(gatehouse.ErrorText(err))
		return r.save(ctx, true)
	}
	return r.run(ctx)
}

// webhookRound is one claim's work on an endpoint.
type webhookRound struct {
	s      *Service
	c      gatehouse.WebhookClaim
	holder string
	secret string
	filter gatehouse.EventFilter
	// start is when the claim was made; stopAt, half a lease later, is
	// when the round starts no more sends.
	start, stopAt time.Time
	p             gatehouse.WebhookProgress
	// slow is set once a send took [WebhookSettings.Slow] or longer: the
	// round ends.
	slow bool
	// pool, when the round runs in one ([Service.RunWebhooks]); waiting and
	// ended are the pool's, under its lock.
	pool           *webhookPool
	waiting, ended bool
}

// over reports whether the round may start no more sends: a receiver was
// slow, the round's share of its lease is spent, or its context ended.
func (r *webhookRound) over(ctx context.Context) bool {
	return r.slow || ctx.Err() != nil || !r.s.Now().Before(r.stopAt)
}

func (r *webhookRound) progress() gatehouse.WebhookProgress {
	w := r.c.Webhook
	p := gatehouse.WebhookProgress{OrgID: w.OrgID, ID: w.ID, Holder: r.holder, Generation: w.Generation,
		EventsAfter: w.EventsAfter, CommandsAfter: w.CommandsAfter, LockdownsAfter: w.LockdownsAfter}
	if w.Failing != nil {
		since := time.Time(w.Failing.Since)
		p.Attempts, p.FailingSince, p.LastError = w.Failing.Attempts, &since, w.Failing.LastError
		// A round that sends no feed message (it ends after a manual
		// one) leaves the backoff as it was.
		p.NextAt = time.Time(w.Failing.NextAttemptAt)
	}
	return p
}

// run sends the pending manual deliveries, then pages of events and
// command changes, saving after each page. Manual sends count against
// the round as the feed's do: none starts once the round is over, and
// a slow one ends it.
func (r *webhookRound) run(ctx context.Context) error {
	r.p = r.progress()
	for _, d := range r.c.Pending {
		if r.over(ctx) {
			break
		}
		r.sendManual(ctx, d)
	}
	if r.over(ctx) {
		return r.saveReleased(ctx)
	}
	for {
		more, failed, err := r.page(ctx)
		if err != nil {
			return errors.Join(err, r.save(ctx, true))
		}
		done := failed || !more || r.over(ctx)
		if done {
			return r.saveReleased(ctx)
		}
		if err := r.save(ctx, false); err != nil {
			if errors.Is(err, gatehouse.ErrConflict) {
				return nil // a replay or another instance took over
			}
			return err
		}
		r.p.Deliveries = nil
	}
}

// saveReleased saves the round's progress and ends it.
func (r *webhookRound) saveReleased(ctx context.Context) error {
	err := r.save(ctx, true)
	if errors.Is(err, gatehouse.ErrConflict) {
		return nil // a replay or another instance took over
	}
	return err
}

// page sends the next page of events, then of command changes. more
// reports that a page was full; failed that a send failed.
func (r *webhookRound) page(ctx context.Context) (more, failed bool, err error) {
	w := r.c.Webhook
	if w.Subscribes(gatehouse.WebhookEventCreated) {
		f := r.filter
		f.Limit = webhookPage
		page, err := r.s.store.ReadFeed(ctx, w.OrgID, f, r.p.EventsAfter)
		if errors.Is(err, gatehouse.ErrInvalid) {
			// A position the database cannot follow (restored from a
			// dump): the endpoint fails, visibly, until it is replayed.
			r.fail("the endpoint's feed position is invalid here (" + gatehouse.ErrorText(err) + "): replay it from a cursor")
			return false, true, nil
		}
		if err != nil {
			return false, false, err
		}
		for i, ev := range page.Events {
			if r.over(ctx) {
				// The rest of the page is the next round's.
				return true, false, nil
			}
			// A round sends a page for as long as half its lease: an
			// erasure may have committed since the page was read, and
			// what it erased must not be sent: webhooks never show it
			// again (docs/api.md, "Privacy: erasure and retention").
			erased, err := r.erased(ctx, ev.ID)
			if err != nil {
				return false, false, err
			}
			if !erased && !r.send(ctx, gatehouse.WebhookEventCreated, "msg_evt_"+ev.ID.String(), ev.ID, ev) {
				return false, true, nil
			}
			r.p.EventsAfter = page.Positions[i]
		}
		r.p.EventsAfter = page.Next // the same as the last's; an empty page's is where it was
		more = len(page.Events) == webhookPage
	}
	if w.Subscribes(gatehouse.WebhookCommandUpdated) {
		changes, _, err := r.s.store.ReadCommandChanges(ctx, w.OrgID, r.p.CommandsAfter, webhookPage)
		if err != nil {
			return more, false, err
		}
		for _, ch := range changes {
			if r.over(ctx) {
				return true, false, nil
			}
			c, err := r.s.store.FindCommand(ctx, w.OrgID, ch.ID)
			if errors.Is(err, gatehouse.ErrNotFound) {
				// Erased since the changes were read: never sent.
				r.p.CommandsAfter = ch.Position
				continue
			}
			if err != nil {
				return more, false, err
			}
			c.Deliveries = nil
			if !r.send(ctx, gatehouse.WebhookCommandUpdated, "msg_cmd_"+ch.ID.String()+"_"+strings.ToLower(string(c.Status)), ch.ID, c) {
				return false, true, nil
			}
			r.p.CommandsAfter = ch.Position
		}
		more = more || len(changes) == webhookPage
	}
	if w.Subscribes(gatehouse.WebhookLockdownUpdated) {
		changes, err := r.s.store.ReadLockdownChanges(ctx, w.OrgID, r.p.LockdownsAfter, webhookPage)
		if err != nil {
			return more, false, err
		}
		for _, ch := range changes {
			if r.over(ctx) {
				return true, false, nil
			}
			l, err := r.s.store.FindLockdown(ctx, w.OrgID, ch.ID, r.s.Now())
			if err != nil {
				return more, false, err
			}
			// Each change is sent as it left the lockdown: a start
			// read after the release still says it started.
			state := "released"
			if !ch.Released {
				state, l.ReleasedAt, l.ReleasedBy, l.Active = "started", nil, nil, true
			}
			if !r.send(ctx, gatehouse.WebhookLockdownUpdated, "msg_lockdown_"+ch.ID.String()+"_"+state, ch.ID, l) {
				return false, true, nil
			}
			r.p.LockdownsAfter = ch.Position
		}
		more = more || len(changes) == webhookPage
	}
	return more, false, nil
}

// erased reports whether an event read for the round is gone since.
func (r *webhookRound) erased(ctx context.Context, id uuid.UUID) (bool, error) {
	_, err := r.s.findEvent(ctx, r.c.Webhook.OrgID, id)
	if errors.Is(err, gatehouse.ErrNotFound) {
		return true, nil
	}
	return false, err
}

// webhookMessage is a delivery's body.
type webhookMessage struct {
	Type gatehouse.WebhookType `json:"type"`
	Data any                   `json:"data"`
}

// save stores the round's progress. release ends the lease, and sets when
// the endpoint is due next:
//   - after the backoff when failing;
//   - at once when there is more;
//   - after [WebhookSettings.Idle] when it is caught up.
func (r *webhookRound) save(ctx context.Context, release bool) error {
	now := r.s.Now()
	r.p.Now, r.p.Release = now, release
	if r.p.FailingSince == nil {
		r.p.NextAt = now
		if release {
			r.p.NextAt = now.Add(r.s.webhooks.Idle)
		}
	}
	// Saved even when the round's context ended: what was sent is
	// logged and its position kept.
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	return r.s.store.SaveWebhookProgress(ctx, r.p)
}
