package gatehouse

import (
	"context"
	"time"

	"github.com/google/uuid"
)

// WebhookStore is the part of Store that keeps webhook endpoints, their
// positions and leases, their delivery log, and the command changes
// they deliver.
type WebhookStore interface {
	// CreateWebhook stores an organization's endpoint w (ID, URL,
	// Description, Types, CreatedAt set; Filters encoded in filters) with
	// its sealed secret, enabled, its positions at the heads of the
	// organization's feeds (it receives what is stored from then on), and
	// records it. [ErrNotFound] for an unknown organization; [ErrConflict]
	// when it has [MaxWebhooks] already.
	CreateWebhook(ctx context.Context, e AuditEntry, w Webhook, filters string, sealed []byte) (Webhook, error)
	// ListWebhooks returns an organization's endpoints, oldest first.
	ListWebhooks(ctx context.Context, orgID uuid.UUID) ([]Webhook, error)
	// FindWebhook returns an organization's endpoint, or [ErrNotFound].
	FindWebhook(ctx context.Context, orgID, id uuid.UUID) (Webhook, error)
	// UpdateWebhook applies c to an organization's endpoint at now and
	// records what changed (nothing changed: nothing recorded).
	// [ErrNotFound].
	//   - Enabling a disabled endpoint, or moving its position (a replay),
	//     clears its failures and makes it due at now.
	//   - A change of its URL, types, filters, state or position also
	//     moves its generation, so a round of deliveries already under way
	//     saves nothing and stops.
	UpdateWebhook(ctx context.Context, e AuditEntry, orgID, id uuid.UUID, c WebhookChange, now time.Time) (Webhook, error)
	// WebhookSecret returns an organization's endpoint's sealed secrets.
	// [ErrNotFound].
	WebhookSecret(ctx context.Context, orgID, id uuid.UUID) ([]byte, error)
	// RotateWebhookSecret replaces an organization's endpoint's sealed
	// secrets old by sealed, sets when the previous secret stops signing
	// (nil: it is gone already), and records it. [ErrNotFound]; [ErrConflict]
	// when the sealed secrets are no longer old (another rotation).
	RotateWebhookSecret(ctx context.Context, e AuditEntry, orgID, id uuid.UUID, old, sealed []byte, previousUntil *time.Time) (Webhook, error)
	// DeleteWebhook deletes an organization's endpoint and its delivery
	// log, and records it. [ErrNotFound].
	DeleteWebhook(ctx context.Context, e AuditEntry, orgID, id uuid.UUID) error
	// AddWebhookDelivery stores d, a pending manual delivery (redeliver,
	// test), in the log of an organization's enabled endpoint and makes
	// the endpoint due at d.At. [ErrNotFound]; [ErrConflict] when the
	// endpoint is disabled.
	AddWebhookDelivery(ctx context.Context, orgID, webhookID uuid.UUID, d WebhookDelivery) (WebhookDelivery, error)
	// FindWebhookDelivery returns one delivery of an organization's
	// endpoint, or [ErrNotFound].
	FindWebhookDelivery(ctx context.Context, orgID, webhookID, id uuid.UUID) (WebhookDelivery, error)
	// ListWebhookDeliveries returns the most recent limit deliveries of
	// an organization's endpoint, newest first. [ErrNotFound] for an
	// unknown endpoint.
	ListWebhookDeliveries(ctx context.Context, orgID, webhookID uuid.UUID, limit int) ([]WebhookDelivery, error)
	// ClaimWebhook leases to holder, until now+ttl, an enabled endpoint
	// that is due (at or before now) and not leased by another holder,
	// and returns it with its pending manual deliveries (at most 10,
	// oldest first). [ErrNotFound] when none is due. Instances that claim
	// at once get different endpoints.
	//
	// The endpoints due are shared between organizations. It takes, in
	// this order of preference:
	//   - one of the organization with the fewest endpoints leased (by any
	//     holder);
	//   - then of the organization whose last lease ended longest ago;
	//   - then the endpoint due soonest.
	ClaimWebhook(ctx context.Context, holder string, now time.Time, ttl time.Duration) (WebhookClaim, error)
	// SaveWebhookProgress stores a round of deliveries in one
	// transaction:
	//   - the log rows (the oldest beyond the 1,000 most recent are
	//     deleted);
	//   - when holder still holds the lease and the generation is the
	//     endpoint's: the positions, the failure state, when it is due,
	//     the lease's end and the disabling.
	//
	// When the lease or the generation moved, the log rows are stored and
	// the error is [ErrConflict]: the round stops.
	SaveWebhookProgress(ctx context.Context, p WebhookProgress) error
	// ReadCommandChanges returns, in the order they were stored, at most
	// limit of the organization's issued commands whose status changed
	// after position after, each once at its latest change, with the
	// position to continue from (after, when none). As for
	// [EventStore.ReadFeed], no transaction still in flight can land
	// before a position handed out.
	ReadCommandChanges(ctx context.Context, orgID uuid.UUID, after FeedPosition, limit int) ([]CommandChange, FeedPosition, error)
}
