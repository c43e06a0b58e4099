package service

import (
	"context"
	"errors"

	"github.com/gatehouse/gatehouse"
	"github.com/google/uuid"
)

// ReplayWebhook moves an endpoint's position in the feed to from (after a
// feed cursor, or the feed's start, named so: there is no default): the
// events after it are delivered again, in order, and a failing delivery
// is tried at once. Command changes keep their position. It returns the
// endpoint and how many events the replay sends, counted as it is made
// (those stored since come too).
//
// Errors:
//   - a [*gatehouse.ValidationError] keyed "after" (no starting point, or
//     a bad cursor) or "from";
//   - [gatehouse.ErrNotFound];
//   - a [*gatehouse.ScopeError] for a key without events:read.
func (s *Service) ReplayWebhook(ctx context.Context, orgID, id uuid.UUID, from gatehouse.ReplayFrom) (gatehouse.Webhook, int64, error) {
	p, n, err := s.replayPosition(ctx, orgID, id, from)
	if err != nil {
		return gatehouse.Webhook{}, 0, err
	}
	w, err := s.store.UpdateWebhook(ctx, s.entry(ctx, orgID, gatehouse.AuditWebhookChanged, gatehouse.TargetWebhook), orgID, id,
		gatehouse.WebhookChange{EventsAfter: &p, SealCursor: func(p gatehouse.FeedPosition) string { return s.FeedCursor(orgID, p) }}, s.Now())
	if err != nil {
		return gatehouse.Webhook{}, 0, err
	}
	return s.withCursor(w), n, nil
}

// CountWebhookReplay returns how many events a replay of the endpoint
// from that starting point would send now: the events after it matching
// the endpoint's filters, none for an endpoint that does not receive
// events. It changes nothing; its errors are ReplayWebhook's.
func (s *Service) CountWebhookReplay(ctx context.Context, orgID, id uuid.UUID, from gatehouse.ReplayFrom) (int64, error) {
	_, n, err := s.replayPosition(ctx, orgID, id, from)
	return n, err
}

// replayPosition checks a replay and returns the position it moves the
// endpoint to and the events it sends from there.
func (s *Service) replayPosition(ctx context.Context, orgID, id uuid.UUID, from gatehouse.ReplayFrom) (gatehouse.FeedPosition, int64, error) {
	var p gatehouse.FeedPosition
	if err := gatehouse.Authorize(ctx, orgID, gatehouse.PermManageWebhooks); err != nil {
		return p, 0, err
	}
	if err := gatehouse.RequireKeyScope(gatehouse.ActorFrom(ctx), gatehouse.ScopeEventsRead, "a replay needs: it sends the organization's events"); err != nil {
		return p, 0, err
	}
	if err := from.Check(); err != nil {
		return p, 0, err
	}
	if !from.Start {
		var err error
		if p, err = s.openFeedCursor(ctx, orgID, from.After); errors.Is(err, gatehouse.ErrFeedCursor) {
			return p, 0, gatehouse.Invalid("after", "%s", err.Error())
		} else if err != nil {
			return p, 0, err
		}
	}
	w, err := s.store.FindWebhook(ctx, orgID, id)
	if err != nil {
		return p, 0, err
	}
	f, err := w.FeedFilter()
	if err != nil {
		return p, 0, err
	}
	// Counting also refuses, now rather than at every round, a position
	// this database cannot have made (another backend's).
	n, err := s.store.CountFeed(ctx, orgID, f, p)
	if err != nil {
		return p, 0, err
	}
	if !w.Subscribes(gatehouse.WebhookEventCreated) {
		n = 0
	}
	return p, n, nil
}
