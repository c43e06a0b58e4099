package gatehouse

import (
	"context"
	"time"

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
	// FindLocation returns an organization's location with all its access
	// points, archived ones included, or [ErrNotFound].
	FindLocation(ctx context.Context, orgID, id uuid.UUID) (Location, error)
	// ListLocations returns a page of an organization's locations ordered by
	// name then id, each with its access points ordered by name then id.
	// Archived locations and access points are left out unless
	// withArchived. after, when set, is the last location of the previous
	// page; next is set when more locations follow. within, when not
	// nil, keeps those locations only (an actor's reach).
	ListLocations(ctx context.Context, orgID uuid.UUID, limit int, after *LocationKey, withArchived bool, within Reach) (page []Location, next *LocationKey, err error)
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
	// FindAccessPoint returns an organization's access point, with
	// LocationArchived set, or [ErrNotFound].
	FindAccessPoint(ctx context.Context, orgID, id uuid.UUID) (AccessPoint, error)

	// SetLocationArchived archives an organization's location at at, or
	// restores it when at is nil. Nothing is recorded when it is unchanged
	// (an archived location keeps the instant it was archived first).
	// [ErrNotFound].
	SetLocationArchived(ctx context.Context, e AuditEntry, orgID, id uuid.UUID, at *time.Time) (Location, error)
	// SetAccessPointArchived is [LocationStore.SetLocationArchived] for an
	// access point; its location's state is not changed.
	SetAccessPointArchived(ctx context.Context, e AuditEntry, orgID, id uuid.UUID, at *time.Time) (AccessPoint, error)
	// DeleteLocation deletes an organization's location, with the grants
	// of it, in one transaction that first reads its [History]: a location
	// with access points, or that events, commands or lockdowns name, is
	// refused with [History.Deletable]'s *[StateError] and nothing changes.
	// [ErrNotFound].
	DeleteLocation(ctx context.Context, e AuditEntry, orgID, id uuid.UUID) error
	// DeleteAccessPoint deletes an organization's access point with every
	// version of its policy, and takes it off the grants that list it (a
	// grant that listed it alone is deleted), in one transaction that
	// first reads its [History]: one that events or commands name is
	// refused as DeleteLocation's. The transaction holds the access point
	// against a concurrent ingest, remote unlock or new grant: either they
	// commit first (their events are counted and the delete refused; a
	// grant is taken off like any), or they find the access point gone and
	// fail as for an unknown one. [ErrNotFound].
	DeleteAccessPoint(ctx context.Context, e AuditEntry, orgID, id uuid.UUID) error
}
