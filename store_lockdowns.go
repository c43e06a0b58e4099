package gatehouse

import (
	"context"
	"time"

	"github.com/google/uuid"
)

// LockdownStore is the part of [Store] that keeps lockdowns
// (docs/api.md, "Lockdowns").
type LockdownStore interface {
	// CreateLockdown stores l, started at l.StartedAt, and returns it as
	// [LockdownStore.FindLockdown] does. In one transaction it:
	//   - stores l.Commands as LOCKDOWN commands (no REMOTE_UNLOCK event,
	//     no access point), with a delivery row per target server, and
	//     leaves their wakes for [CommandStore.WatchCommands];
	//   - ends the organization's unlocks in force on the access points l
	//     covers: an UNLOCK command not delivered yet (PENDING) becomes
	//     CANCELLED; one started keeps as duration the seconds it had run
	//     at l.StartedAt ([EndUnlockSeconds]), so that it never runs
	//     again, after the release either;
	//   - appends e (lockdown.started).
	//
	// A location of another organization is [ErrNotFound].
	CreateLockdown(ctx context.Context, e AuditEntry, l NewLockdown) (Lockdown, error)
	// FindLockdown returns one of the organization's lockdowns with its
	// targets (the sums of its start commands' counts), Active as of
	// now, or [ErrNotFound].
	FindLockdown(ctx context.Context, orgID, id uuid.UUID, now time.Time) (Lockdown, error)
	// ListLockdowns returns a page of the organization's lockdowns
	// matching f, newest first (startedAt, then id, descending).
	ListLockdowns(ctx context.Context, orgID uuid.UUID, f LockdownFilter) (LockdownPage, error)
	// ReleaseLockdown marks the organization's lockdown released at r.At
	// by r.By, stores r.Commands and appends e (lockdown.released), in
	// one transaction, and returns it with released true. A lockdown
	// released already (or past its until) is returned as it is, with
	// released false: nothing is stored. [ErrNotFound].
	ReleaseLockdown(ctx context.Context, e AuditEntry, orgID, id uuid.UUID, r LockdownRelease) (l Lockdown, released bool, err error)
	// ExpireLockdowns marks released, at their until and by the system,
	// the lockdowns of every organization whose until is at or before
	// now and that are not released, appending for each an entry made
	// of e (lockdown.released), and returns them. Several instances may
	// run it at once: each lockdown is released once.
	ExpireLockdowns(ctx context.Context, e AuditEntry, now time.Time) ([]Lockdown, error)
	// LockdownsOf returns the organization's lockdowns that cover the
	// location locationID of universe universeID ("" for none) and run
	// at the instant at, oldest first.
	LockdownsOf(ctx context.Context, orgID, locationID uuid.UUID, universeID string, at time.Time) ([]Lockdown, error)
	// UniverseLockdowns returns the organization's lockdowns running at
	// now that cover an access point of the universe's set: ORGANIZATION
	// ones, UNIVERSE ones of universeID and LOCATION ones of a location
	// naming it; oldest first. Their Targets are not read (zero): every
	// sync of the universe may ask, and the set has no use of them.
	UniverseLockdowns(ctx context.Context, orgID uuid.UUID, universeID string, now time.Time) ([]Lockdown, error)
	// OrgUniverses returns the universes the organization's locations
	// name, in order.
	OrgUniverses(ctx context.Context, orgID uuid.UUID) ([]string, error)
	// ReadLockdownChanges returns the organization's lockdown starts and
	// releases after a position, in the order they were stored, at most
	// limit.
	ReadLockdownChanges(ctx context.Context, orgID uuid.UUID, after FeedPosition, limit int) ([]LockdownChange, error)
}
