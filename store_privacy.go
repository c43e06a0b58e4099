package gatehouse

import (
	"context"
	"time"

	"github.com/google/uuid"
)

// PrivacyStore is the part of Store that erases players, keeps the
// retention, and records the platform's erasure requests.
type PrivacyStore interface {
	// SetRetention sets how many days of an organization's events are
	// kept and records the change (nothing changed: nothing recorded).
	// [ErrNotFound].
	SetRetention(ctx context.Context, e AuditEntry, orgID uuid.UUID, days int) (Organization, error)
	// DeleteEventsBefore deletes at most limit of the organization's
	// events that occurred before before, in one short transaction, and
	// returns how many. DeletePlayerEvents does the same for the events
	// of one platform user. Neither lets a position of the feed be handed
	// out again.
	DeleteEventsBefore(ctx context.Context, orgID uuid.UUID, before time.Time, limit int) (int, error)
	DeletePlayerEvents(ctx context.Context, orgID uuid.UUID, platformUserID string, limit int) (int, error)
	// DeleteCommandsBefore deletes, in one transaction, at most limit of
	// the organization's commands issued before before whose events are
	// gone, with their deliveries and idempotency keys, and returns how
	// many. Call it after [PrivacyStore.DeleteEventsBefore].
	//   - Once it finds fewer than limit, it also deletes the
	//     organization's webhook delivery log rows of before before.
	//   - No position of the command feed is handed out again.
	DeleteCommandsBefore(ctx context.Context, orgID uuid.UUID, before time.Time, limit int) (int, error)
	// PruneTerms deletes the organization's platform user search terms
	// that no event has any more (after retention), in short
	// transactions, and returns how many.
	PruneTerms(ctx context.Context, orgID uuid.UUID) (int, error)
	// OldestEvent returns when the organization's oldest event occurred;
	// false when it has none.
	OldestEvent(ctx context.Context, orgID uuid.UUID) (time.Time, bool, error)
	// FinishErasure deletes, in one transaction, the organization's
	// commands of the platform user (of either scope that names them,
	// with their deliveries) and the user's search term, and appends e
	// with the number of commands (Change "commands"). It returns that
	// number. Call it once DeletePlayerEvents has found nothing more.
	FinishErasure(ctx context.Context, e AuditEntry, orgID uuid.UUID, platformUserID string) (int, error)
	// SetErasureIntegration stores (replacing any) the organization's
	// right-to-erasure webhook: the hash its token is found by, the
	// sealed token and secret, and records it. [ErrNotFound].
	SetErasureIntegration(ctx context.Context, e AuditEntry, orgID uuid.UUID, tokenHash [32]byte, sealedToken, sealedSecret []byte, at time.Time) error
	// FindErasureIntegration returns the organization's sealed token and
	// secret, or [ErrNotFound] when it has none.
	FindErasureIntegration(ctx context.Context, orgID uuid.UUID) (sealedToken, sealedSecret []byte, createdAt time.Time, err error)
	// ErasureIntegrationByToken returns the organization whose token has
	// that hash and its sealed secret, or [ErrNotFound].
	ErasureIntegrationByToken(ctx context.Context, tokenHash [32]byte) (orgID uuid.UUID, sealedSecret []byte, err error)
	// ClaimErasure claims the organization's notification, until
	// now+lease, for the one delivery of it that erases: claimed when it
	// was not erased already (done) and no other claim on it is live.
	// Deliveries that claim at once: one is claimed.
	ClaimErasure(ctx context.Context, orgID uuid.UUID, notificationID string, now time.Time, lease time.Duration) (claimed, done bool, err error)
	// ReleaseErasure ends the claim on a notification whose erasure
	// failed, so that a redelivery of it erases.
	ReleaseErasure(ctx context.Context, orgID uuid.UUID, notificationID string) error
	// RecordErasureRequest appends r to the organization's erasure
	// requests, keeping every erasure and the latest 1,000 others; an
	// erasure marks its notification's claim done in the same
	// transaction. [ErrConflict] when r is an erasure of a notification
	// erased already.
	RecordErasureRequest(ctx context.Context, orgID uuid.UUID, r ErasureRequest) error
	// ListErasureRequests returns the organization's latest limit
	// requests, newest first.
	ListErasureRequests(ctx context.Context, orgID uuid.UUID, limit int) ([]ErasureRequest, error)
}
