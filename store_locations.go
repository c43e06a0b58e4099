package gatehouse

import (
	"context"

	"github.com/google/uuid"
)

// LocationStore is the part of [Store] that keeps an organization's
// locations and their access points.
type LocationStore interface {
	// CreateLocation stores a location. [ErrNotFound] for an unknown
	// organization, [ErrInvalid] for a bad name.
	CreateLocation(ctx context.Context, e AuditEntry, orgID uuid.UUID, name string) (Location, error)
	// RenameLocation renames an organization's location; events keep the
	// name they were recorded with. [ErrNotFound], [ErrInvalid].
	RenameLocation(ctx context.Context, e AuditEntry, orgID, id uuid.UUID, name string) (Location, error)
	// FindLocation returns an organization's location with its access
	// points, or [ErrNotFound].
	FindLocation(ctx context.Context, orgID, id uuid.UUID) (Location, error)
	// ListLocations returns a page of an organization's locations ordered by
	// name then id, each with its access points ordered by name then id.
	// after, when set, is the last location of the previous page; next is
	// set when more locations follow.
	ListLocations(ctx context.Context, orgID uuid.UUID, limit int, after *LocationKey) (page []Location, next *LocationKey, err error)
	// SetLocationUniverse sets the platform universe of an organization's
	// location ("" clears it). Nothing is recorded when it is unchanged.
	// [ErrNotFound].
	SetLocationUniverse(ctx context.Context, e AuditEntry, orgID, id uuid.UUID, universeID string) (Location, error)
	// NamesUniverse reports whether any of the organization's locations
	// names universeID; an unknown organization names none.
	NamesUniverse(ctx context.Context, orgID uuid.UUID, universeID string) (bool, error)

	// CreateAccessPoint stores an access point under an organization's
	// location. [ErrNotFound] for a location of another organization.
	CreateAccessPoint(ctx context.Context, e AuditEntry, orgID, locationID uuid.UUID, name string) (AccessPoint, error)
	// RenameAccessPoint renames an organization's access point; events
	// keep the name they were recorded with. Nothing is recorded when the
	// name is unchanged. [ErrNotFound], [ErrInvalid].
	RenameAccessPoint(ctx context.Context, e AuditEntry, orgID, id uuid.UUID, name string) (AccessPoint, error)
	// MoveAccessPoint re-homes an organization's access point under
	// another of its locations; events keep the location they were
	// recorded with. Nothing is recorded when the location is unchanged.
	// [ErrNotFound] for an unknown access point or a location of another
	// organization.
	MoveAccessPoint(ctx context.Context, e AuditEntry, orgID, id, locationID uuid.UUID) (AccessPoint, error)
	// FindAccessPoint returns an organization's access point, or
	// [ErrNotFound].
	FindAccessPoint(ctx context.Context, orgID, id uuid.UUID) (AccessPoint, error)
}
