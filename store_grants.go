package gatehouse

import (
	"context"
	"time"

	"github.com/google/uuid"
)

// GrantStore is the part of [Store] that keeps timed grants.
type GrantStore interface {
	// CreateGrant stores g and returns it as [GrantStore.FindGrant] does,
	// with created true. In one transaction it appends e and leaves
	// g.Wakes for [CommandStore.WatchCommands] of other processes.
	//
	// When the organization holds a grant with g's receipt id already,
	// it stores nothing and returns that grant with created false, also
	// when the other grant is being stored concurrently.
	CreateGrant(ctx context.Context, e AuditEntry, g NewGrant) (_ Grant, created bool, err error)
	// FindGrant returns an organization's grant, or [ErrNotFound].
	FindGrant(ctx context.Context, orgID, id uuid.UUID) (Grant, error)
	// ListGrants returns a page of an organization's grants matching f,
	// newest first (createdAt, then id, descending). f.Limit must be set.
	ListGrants(ctx context.Context, orgID uuid.UUID, f GrantFilter) (GrantPage, error)
	// RevokeGrant ends an organization's grant at at, appends e and
	// leaves wakes, and returns the grant with revoked true. A grant
	// revoked already is returned as it is, with revoked false: nothing
	// is recorded. [ErrNotFound] for an unknown grant.
	RevokeGrant(ctx context.Context, e AuditEntry, orgID, id uuid.UUID, at time.Time, wakes []Wake) (_ Grant, revoked bool, err error)
	// RunningGrants returns the organization's grants of player that
	// cover the access point accessPointID of the location locationID
	// (listing it, or naming its location) and run at at, as the
	// evaluator sees them.
	RunningGrants(ctx context.Context, orgID, accessPointID, locationID uuid.UUID, player string, at time.Time) ([]ActiveGrant, error)
	// LiveGrants returns the organization's grants of the players (nil:
	// of every player) that are not revoked and end after now (running
	// or starting later), at most limit, those that end soonest first
	// (then by id).
	LiveGrants(ctx context.Context, orgID uuid.UUID, players []string, now time.Time, limit int) ([]Grant, error)
	// PlayerServers returns the organization's servers, of any
	// universe, seen at or after since that host player.
	PlayerServers(ctx context.Context, orgID uuid.UUID, player string, since time.Time) ([]GameServer, error)
}
