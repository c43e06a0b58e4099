package gatehouse

import (
	"context"

	"github.com/google/uuid"
)

// MessagingStore is the part of [Store] that keeps the sealed Open Cloud
// keys the platform's messaging is reached with, one per universe.
type MessagingStore interface {
	// SetMessagingKey stores the sealed Open Cloud key of an
	// organization's universe with its hint, replacing the one it had
	// (createdAt becomes now), and records the hint's change. [ErrNotFound]
	// for an unknown organization.
	SetMessagingKey(ctx context.Context, e AuditEntry, orgID uuid.UUID, universeID string, sealed []byte, hint string) (MessagingKey, error)
	// RemoveMessagingKey deletes the key of an organization's universe.
	// [ErrNotFound] when it has none.
	RemoveMessagingKey(ctx context.Context, e AuditEntry, orgID uuid.UUID, universeID string) error
	// ListMessagingKeys returns the universes of an organization that have
	// a key, ordered by universe id (numerically), with hint and creation
	// time: never the sealed key.
	ListMessagingKeys(ctx context.Context, orgID uuid.UUID) ([]MessagingKey, error)
	// FindMessagingKey returns the sealed key of an organization's
	// universe, or [ErrNotFound].
	FindMessagingKey(ctx context.Context, orgID uuid.UUID, universeID string) ([]byte, error)
}
