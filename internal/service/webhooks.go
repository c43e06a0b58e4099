package service

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/gatehouse/gatehouse"
	"github.com/google/uuid"
)

// CreateWebhook makes an endpoint that receives the organization's events
// (and, if subscribed, command changes) stored from now on, and returns it
// with its secret: the only time the secret is shown. The secret is stored
// sealed under the service secret.
//
// Errors:
//   - a [*gatehouse.ValidationError] keyed by field;
//   - [gatehouse.ErrConflict] past [gatehouse.MaxWebhooks];
//   - [gatehouse.ErrForbidden] unless the acting user is an admin;
//   - a [*gatehouse.ScopeError] for a key without events:read when the
//     endpoint receives events.
func (s *Service) CreateWebhook(ctx context.Context, orgID uuid.UUID, in gatehouse.WebhookInput) (gatehouse.Webhook, string, error) {
	if err := gatehouse.Authorize(ctx, orgID, gatehouse.PermManageWebhooks); err != nil {
		return gatehouse.Webhook{}, "", err
	}
	c, err := gatehouse.CheckWebhook(in, true, s.webhooks.AllowPrivate)
	if err != nil {
		return gatehouse.Webhook{}, "", err
	}
	if err := mayReceive(ctx, c.Types); err != nil {
		return gatehouse.Webhook{}, "", err
	}
	sealer, err := s.sealing(ctx)
	if err != nil {
		return gatehouse.Webhook{}, "", err
	}
	w := gatehouse.Webhook{ID: gatehouse.NewID(), OrgID: orgID, URL: *c.URL, Types: c.Types, CreatedAt: gatehouse.Time(gatehouse.Truncate(s.Now()))}
	if c.Description != nil {
		w.Description = *c.Description
	}
	secret := gatehouse.NewWebhookSecret()
	sealed := sealer.Seal(orgID, gatehouse.WebhookSealLabel(w.ID), []byte(secret))
	w, err = s.store.CreateWebhook(ctx, s.entry(ctx, orgID, gatehouse.AuditWebhookCreated, gatehouse.TargetWebhook), w, *c.Filters, sealed)
	return s.withCursor(w), secret, err
}

// withCursor sets the endpoint's Cursor: its feed position, sealed for
// its organization as the feed's cursors are.
func (s *Service) withCursor(w gatehouse.Webhook) gatehouse.Webhook {
	w.Cursor = s.FeedCursor(w.OrgID, w.EventsAfter)
	return w
}

// ListWebhooks returns the organization's endpoints, oldest first.
func (s *Service) ListWebhooks(ctx context.Context, orgID uuid.UUID) ([]gatehouse.Webhook, error) {
	if err := gatehouse.Authorize(ctx, orgID, gatehouse.PermManageWebhooks); err != nil {
		return nil, err
	}
	hooks, err := s.store.ListWebhooks(ctx, orgID)
	for i := range hooks {
		hooks[i] = s.withCursor(hooks[i])
	}
	return hooks, err
}

// FindWebhook returns one of the organization's endpoints, or
// [gatehouse.ErrNotFound].
func (s *Service) FindWebhook(ctx context.Context, orgID, id uuid.UUID) (gatehouse.Webhook, error) {
	if err := gatehouse.Authorize(ctx, orgID, gatehouse.PermManageWebhooks); err != nil {
		return gatehouse.Webhook{}, err
	}
	w, err := s.store.FindWebhook(ctx, orgID, id)
	return s.withCursor(w), err
}

// UpdateWebhook changes the fields in gives of one of the organization's
// endpoints: its URL, description, types, filters, or whether it is
// enabled. Enabling an endpoint disabled for failing starts again from the
// delivery it stopped at.
//
// Errors:
//   - [gatehouse.ErrNotFound];
//   - a [*gatehouse.ValidationError];
//   - a [*gatehouse.ScopeError] for a key without events:read when the
//     endpoint receives events once changed.
func (s *Service) UpdateWebhook(ctx context.Context, orgID, id uuid.UUID, in gatehouse.WebhookInput) (gatehouse.Webhook, error) {
	if err := gatehouse.Authorize(ctx, orgID, gatehouse.PermManageWebhooks); err != nil {
		return gatehouse.Webhook{}, err
	}
	c, err := gatehouse.CheckWebhook(in, false, s.webhooks.AllowPrivate)
	if err != nil {
		return gatehouse.Webhook{}, err
	}
	if types := c.Types; gatehouse.ActorFrom(ctx).Type == gatehouse.ActorKey {
		if types == nil {
			old, err := s.store.FindWebhook(ctx, orgID, id)
			if err != nil {
				return gatehouse.Webhook{}, err
			}
			types = old.Types
		}
		if err := mayReceive(ctx, types); err != nil {
			return gatehouse.Webhook{}, err
		}
	}
	w, err := s.store.UpdateWebhook(ctx, s.entry(ctx, orgID, gatehouse.AuditWebhookChanged, gatehouse.TargetWebhook), orgID, id, c, s.Now())
	return s.withCursor(w), err
}

// RotateWebhookSecret gives one of the organization's endpoints a new
// secret and returns it: the only time it is shown. It is recorded as
// webhook.secret_rotated.
//
// For overlap (0 to [gatehouse.MaxWebhookSecretOverlap]; nil:
// [gatehouse.DefaultWebhookSecretOverlap]) the previous secret signs every
// delivery too, so that receivers can move to the new one without
// refusing any; then only the new one signs. Rotating again during an
// overlap drops the oldest secret at once.
//
// Errors:
//   - [gatehouse.ErrNotFound];
//   - a [*gatehouse.ValidationError] keyed "overlapSeconds";
//   - [gatehouse.ErrConflict] when another rotation won.
func (s *Service) RotateWebhookSecret(ctx context.Context, orgID, id uuid.UUID, overlap *time.Duration) (gatehouse.Webhook, string, error) {
	if err := gatehouse.Authorize(ctx, orgID, gatehouse.PermManageWebhooks); err != nil {
		return gatehouse.Webhook{}, "", err
	}
	keep := gatehouse.DefaultWebhookSecretOverlap
	if overlap != nil {
		keep = *overlap
	}
	if keep < 0 || keep > gatehouse.MaxWebhookSecretOverlap || keep%time.Second != 0 {
		return gatehouse.Webhook{}, "", gatehouse.Invalid("overlapSeconds", "must be whole seconds from 0 to %d (7 days)", int(gatehouse.MaxWebhookSecretOverlap/time.Second))
	}
	old, err := s.store.WebhookSecret(ctx, orgID, id)
	if err != nil {
		return gatehouse.Webhook{}, "", err
	}
	opened, err := s.openWebhookSecret(ctx, orgID, id, old)
	if err != nil {
		return gatehouse.Webhook{}, "", err
	}
	sealer, err := s.sealing(ctx)
	if err != nil {
		return gatehouse.Webhook{}, "", err
	}
	secret := gatehouse.NewWebhookSecret()
	secrets, now := secret, gatehouse.Truncate(s.Now())
	var until *time.Time
	if keep > 0 {
		current, _, _ := strings.Cut(opened, " ")
		secrets += " " + current
		end := now.Add(keep)
		until = &end
	}
	e := s.entry(ctx, orgID, gatehouse.AuditWebhookSecretRotated, gatehouse.TargetWebhook).Change("previousSecretExpiresAt", "", formatOptTime(until))
	w, err := s.store.RotateWebhookSecret(ctx, e, orgID, id, old, sealer.Seal(orgID, gatehouse.WebhookSealLabel(id), []byte(secrets)), until)
	if err != nil {
		return gatehouse.Webhook{}, "", err
	}
	return w, secret, nil
}

func formatOptTime(t *time.Time) string {
	if t == nil {
		return ""
	}
	return gatehouse.FormatTime(*t)
}

// DeleteWebhook deletes one of the organization's endpoints and its
// delivery log. [gatehouse.ErrNotFound].
func (s *Service) DeleteWebhook(ctx context.Context, orgID, id uuid.UUID) error {
	if err := gatehouse.Authorize(ctx, orgID, gatehouse.PermManageWebhooks); err != nil {
		return err
	}
	return s.store.DeleteWebhook(ctx, s.entry(ctx, orgID, gatehouse.AuditWebhookDeleted, gatehouse.TargetWebhook), orgID, id)
}

// ListWebhookDeliveries returns the most recent deliveries of one of the
// organization's endpoints, newest first: limit of them, 1 to
// [gatehouse.MaxDeliveriesListed]. [gatehouse.ErrNotFound].
func (s *Service) ListWebhookDeliveries(ctx context.Context, orgID, id uuid.UUID, limit int) ([]gatehouse.WebhookDelivery, error) {
	if err := gatehouse.Authorize(ctx, orgID, gatehouse.PermManageWebhooks); err != nil {
		return nil, err
	}
	if limit < 1 || limit > gatehouse.MaxDeliveriesListed {
		return nil, gatehouse.Invalid("limit", "must be between 1 and %d", gatehouse.MaxDeliveriesListed)
	}
	return s.store.ListWebhookDeliveries(ctx, orgID, id, limit)
}

// RedeliverWebhook sends the message of one of an endpoint's deliveries
// again, once, with the same webhook-id: it is queued (pending) and the
// endpoint's next round sends it before anything else, out of order. The
// message is made anew: an event erased since cannot be redelivered.
// [gatehouse.ErrNotFound]; [gatehouse.ErrConflict] when the endpoint is
// disabled.
func (s *Service) RedeliverWebhook(ctx context.Context, orgID, id, deliveryID uuid.UUID) (gatehouse.WebhookDelivery, error) {
	if err := gatehouse.Authorize(ctx, orgID, gatehouse.PermManageWebhooks); err != nil {
		return gatehouse.WebhookDelivery{}, err
	}
	d, err := s.store.FindWebhookDelivery(ctx, orgID, id, deliveryID)
	if err != nil {
		return gatehouse.WebhookDelivery{}, err
	}
	return s.store.AddWebhookDelivery(ctx, orgID, id, s.manualDelivery(d.MessageID, d.Type, d.ObjectID))
}

// TestWebhook queues a webhook.test message to one of the organization's
// endpoints, sent by its next round like a redelivery.
// [gatehouse.ErrNotFound]; [gatehouse.ErrConflict] when the endpoint is
// disabled.
func (s *Service) TestWebhook(ctx context.Context, orgID, id uuid.UUID) (gatehouse.WebhookDelivery, error) {
	if err := gatehouse.Authorize(ctx, orgID, gatehouse.PermManageWebhooks); err != nil {
		return gatehouse.WebhookDelivery{}, err
	}
	d := s.manualDelivery("", gatehouse.WebhookTest, uuid.Nil)
	d.ObjectID, d.MessageID = d.ID, "msg_test_"+d.ID.String()
	return s.store.AddWebhookDelivery(ctx, orgID, id, d)
}

func (s *Service) manualDelivery(msgID string, t gatehouse.WebhookType, object uuid.UUID) gatehouse.WebhookDelivery {
	return gatehouse.WebhookDelivery{ID: gatehouse.NewID(), MessageID: msgID, Type: t, ObjectID: object, Status: gatehouse.DeliveryPending,
		Manual: true, Attempt: 1, At: gatehouse.Time(gatehouse.Truncate(s.Now()))}
}

// mayReceive refuses, with a [*gatehouse.ScopeError], a key that makes or
// changes an endpoint subscribed to types without the scope that reads
// what it would receive: webhooks:write alone would otherwise read, through
// an endpoint of its own,
//   - every event (event.created), which needs events:read;
//   - every command (command.updated), which needs commands:write, the
//     scope of GET /commands;
//   - every lockdown (lockdown.updated), which needs commands:write, the
//     scope of GET /lockdowns.
func mayReceive(ctx context.Context, types []gatehouse.WebhookType) error {
	a := gatehouse.ActorFrom(ctx)
	if slices.Contains(types, gatehouse.WebhookEventCreated) {
		if err := gatehouse.RequireKeyScope(a, gatehouse.ScopeEventsRead, "an endpoint that receives events needs"); err != nil {
			return err
		}
	}
	if slices.Contains(types, gatehouse.WebhookCommandUpdated) {
		if err := gatehouse.RequireKeyScope(a, gatehouse.ScopeCommandsWrite, "an endpoint that receives command changes needs"); err != nil {
			return err
		}
	}
	if slices.Contains(types, gatehouse.WebhookLockdownUpdated) {
		return gatehouse.RequireKeyScope(a, gatehouse.ScopeCommandsWrite, "an endpoint that receives lockdowns needs")
	}
	return nil
}

// openWebhookSecret opens an endpoint's sealed secret.
func (s *Service) openWebhookSecret(ctx context.Context, orgID, id uuid.UUID, sealed []byte) (string, error) {
	return s.openSealed(ctx, orgID, gatehouse.WebhookSealLabel(id), "webhook "+id.String(), sealed)
}

// openSealed opens a secret sealed under label; owner names what it is
// the secret of in the error ("webhook <id>").
func (s *Service) openSealed(ctx context.Context, orgID uuid.UUID, label, owner string, sealed []byte) (string, error) {
	sealer, err := s.sealing(ctx)
	if err != nil {
		return "", err
	}
	secret, err := sealer.Open(orgID, label, sealed)
	if err != nil {
		return "", fmt.Errorf("the secret of %s: %w", owner, errors.Join(err, gatehouse.ErrUnsealable))
	}
	return string(secret), nil
}
