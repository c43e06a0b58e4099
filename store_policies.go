package gatehouse

import (
	"context"
	"time"

	"github.com/google/uuid"
)

// PolicyStore is the part of [Store] that keeps the access policies of
// access points and reads what a decision needs.
type PolicyStore interface {
	// PutPolicy stores p, checked by the service, as the policy of an
	// organization's access point, and records the change (e with
	// [AuditEntry.Change]("version", old, new)) in the same transaction.
	// The policy stored has version one more than the current one (1 for
	// the first) and updatedAt at.
	//   - When ifVersion is set and is not the current version (0: none
	//     yet), nothing changes and the error is [ErrConflict].
	//   - When p's rules equal the current policy's ([PolicyBody]),
	//     nothing is stored or recorded, and the current policy is
	//     returned.
	//   - An unknown access point, or one of another organization, is
	//     [ErrNotFound].
	PutPolicy(ctx context.Context, e AuditEntry, orgID, accessPointID uuid.UUID, p Policy, ifVersion *int64, at time.Time) (Policy, error)
	// FindPolicy returns the current policy of an organization's access
	// point with its Version and UpdatedAt, or nil when it has none.
	// [ErrNotFound] for an unknown access point or one of another
	// organization.
	FindPolicy(ctx context.Context, orgID, accessPointID uuid.UUID) (*Policy, error)
	// FindPolicyAt returns the version of an organization's access
	// point's policy in force at an instant: the latest whose UpdatedAt is
	// at or before it, or nil when it had none yet. [ErrNotFound] as
	// FindPolicy.
	FindPolicyAt(ctx context.Context, orgID, accessPointID uuid.UUID, at time.Time) (*Policy, error)
	// PolicySet returns every access point of the organization's
	// locations of universeID, ordered by access point id, with its
	// location and its current policy (nil when it has none). None is no
	// error.
	PolicySet(ctx context.Context, orgID uuid.UUID, universeID string) ([]AccessPointPolicy, error)
	// PolicySetMembers returns what [PolicyStore.PolicySet] would, without
	// the policies' bodies: each access point's name, location and current
	// policy version (0: none), ordered alike. None is no error. A set's
	// version is computed from it ([PolicySetVersion]), so that knowing
	// the version costs no policy read.
	PolicySetMembers(ctx context.Context, orgID uuid.UUID, universeID string) ([]PolicySetMember, error)
	// FindDecisionContext returns, in one read, what deciding for an
	// organization's access point at now needs:
	//   - the access point and its location;
	//   - the location's universe;
	//   - the current policy (nil when none);
	//   - the unlocks of the access point active at now
	//     ([Command.ActiveUnlock]).
	//
	// An unknown access point, or one of another organization, is
	// [ErrNotFound].
	FindDecisionContext(ctx context.Context, orgID, accessPointID uuid.UUID, now time.Time) (DecisionContext, error)
}
