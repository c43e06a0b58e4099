package shards

import (
	"context"
	"time"

	"github.com/gatehouse/gatehouse"
	"github.com/gatehouse/gatehouse/internal/postgres"
	"github.com/google/uuid"
)

// Each method here runs on the shard of its organization (Router.of), in
// one statement of the same form: a Store method added later is routed by
// writing its own.

func (r *Router) AppendAudit(ctx context.Context, e gatehouse.AuditEntry) error {
	return routed(r, ctx, method("Store.AppendAudit", e.OrgID), func(ctx context.Context, db *postgres.DB) error { return db.AppendAudit(ctx, e) })
}

func (r *Router) ListAuditEntries(ctx context.Context, orgID uuid.UUID, f gatehouse.AuditFilter) (gatehouse.AuditPage, error) {
	return routedTo(r, ctx, method("Store.ListAuditEntries", orgID), func(ctx context.Context, db *postgres.DB) (gatehouse.AuditPage, error) {
		return db.ListAuditEntries(ctx, orgID, f)
	})
}

func (r *Router) CreateAPIKey(ctx context.Context, e gatehouse.AuditEntry, k gatehouse.APIKey) error {
	return routed(r, ctx, method("Store.CreateAPIKey", k.OrgID), func(ctx context.Context, db *postgres.DB) error { return db.CreateAPIKey(ctx, e, k) })
}

func (r *Router) ListAPIKeys(ctx context.Context, orgID uuid.UUID) ([]gatehouse.APIKey, error) {
	return routedTo(r, ctx, method("Store.ListAPIKeys", orgID), func(ctx context.Context, db *postgres.DB) ([]gatehouse.APIKey, error) {
		return db.ListAPIKeys(ctx, orgID)
	})
}

func (r *Router) FindAPIKey(ctx context.Context, orgID uuid.UUID, id uuid.UUID) (gatehouse.APIKey, error) {
	return routedTo(r, ctx, method("Store.FindAPIKey", orgID, id), func(ctx context.Context, db *postgres.DB) (gatehouse.APIKey, error) {
		return db.FindAPIKey(ctx, orgID, id)
	})
}

func (r *Router) RevokeAPIKey(ctx context.Context, e gatehouse.AuditEntry, orgID uuid.UUID, id uuid.UUID, at time.Time) (gatehouse.APIKey, error) {
	return routedTo(r, ctx, method("Store.RevokeAPIKey", orgID, id), func(ctx context.Context, db *postgres.DB) (gatehouse.APIKey, error) {
		return db.RevokeAPIKey(ctx, e, orgID, id, at)
	})
}

func (r *Router) SetAPIKeyRate(ctx context.Context, e gatehouse.AuditEntry, orgID uuid.UUID, id uuid.UUID, rate *gatehouse.Rate) (gatehouse.APIKey, error) {
	return routedTo(r, ctx, method("Store.SetAPIKeyRate", orgID, id), func(ctx context.Context, db *postgres.DB) (gatehouse.APIKey, error) {
		return db.SetAPIKeyRate(ctx, e, orgID, id, rate)
	})
}

func (r *Router) CreateUser(ctx context.Context, e gatehouse.AuditEntry, u gatehouse.User, inv *gatehouse.Invitation) (gatehouse.User, error) {
	return routedTo(r, ctx, method("Store.CreateUser", u.OrgID), func(ctx context.Context, db *postgres.DB) (gatehouse.User, error) {
		return db.CreateUser(ctx, e, u, inv)
	})
}

func (r *Router) SetInvitation(ctx context.Context, e gatehouse.AuditEntry, inv gatehouse.Invitation) (gatehouse.User, error) {
	return routedTo(r, ctx, method("Store.SetInvitation", inv.OrgID, inv.UserID), func(ctx context.Context, db *postgres.DB) (gatehouse.User, error) {
		return db.SetInvitation(ctx, e, inv)
	})
}

func (r *Router) UseInvitation(ctx context.Context, e gatehouse.AuditEntry, orgID, userID uuid.UUID, hash [32]byte, passwordHash string, now time.Time) (gatehouse.User, error) {
	return routedTo(r, ctx, method("Store.UseInvitation", orgID, userID), func(ctx context.Context, db *postgres.DB) (gatehouse.User, error) {
		return db.UseInvitation(ctx, e, orgID, userID, hash, passwordHash, now)
	})
}

func (r *Router) ListUsers(ctx context.Context, orgID uuid.UUID) ([]gatehouse.User, error) {
	return routedTo(r, ctx, method("Store.ListUsers", orgID), func(ctx context.Context, db *postgres.DB) ([]gatehouse.User, error) { return db.ListUsers(ctx, orgID) })
}

func (r *Router) SetUserPassword(ctx context.Context, e gatehouse.AuditEntry, orgID uuid.UUID, email string, passwordHash string) (gatehouse.User, error) {
	return routedTo(r, ctx, method("Store.SetUserPassword", orgID), func(ctx context.Context, db *postgres.DB) (gatehouse.User, error) {
		return db.SetUserPassword(ctx, e, orgID, email, passwordHash)
	})
}

func (r *Router) SetUserRole(ctx context.Context, e gatehouse.AuditEntry, orgID uuid.UUID, email string, role gatehouse.Role, reach gatehouse.Reach) (gatehouse.User, error) {
	return routedTo(r, ctx, method("Store.SetUserRole", orgID), func(ctx context.Context, db *postgres.DB) (gatehouse.User, error) {
		return db.SetUserRole(ctx, e, orgID, email, role, reach)
	})
}

func (r *Router) RemoveUser(ctx context.Context, e gatehouse.AuditEntry, orgID uuid.UUID, email string) (gatehouse.User, error) {
	return routedTo(r, ctx, method("Store.RemoveUser", orgID), func(ctx context.Context, db *postgres.DB) (gatehouse.User, error) {
		return db.RemoveUser(ctx, e, orgID, email)
	})
}

func (r *Router) SetUserTimeZone(ctx context.Context, orgID uuid.UUID, userID uuid.UUID, zone string) error {
	return routed(r, ctx, method("Store.SetUserTimeZone", orgID, userID), func(ctx context.Context, db *postgres.DB) error { return db.SetUserTimeZone(ctx, orgID, userID, zone) })
}

func (r *Router) SetSecondFactor(ctx context.Context, e gatehouse.AuditEntry, orgID, userID uuid.UUID, f *gatehouse.SecondFactor) (gatehouse.User, error) {
	return routedTo(r, ctx, method("Store.SetSecondFactor", orgID, userID), func(ctx context.Context, db *postgres.DB) (gatehouse.User, error) {
		return db.SetSecondFactor(ctx, e, orgID, userID, f)
	})
}

func (r *Router) FindSecondFactor(ctx context.Context, orgID, userID uuid.UUID) (gatehouse.SecondFactor, error) {
	return routedTo(r, ctx, method("Store.FindSecondFactor", orgID, userID), func(ctx context.Context, db *postgres.DB) (gatehouse.SecondFactor, error) {
		return db.FindSecondFactor(ctx, orgID, userID)
	})
}

func (r *Router) UseTOTPStep(ctx context.Context, orgID, userID uuid.UUID, step int64) (bool, error) {
	return routedTo(r, ctx, method("Store.UseTOTPStep", orgID, userID), func(ctx context.Context, db *postgres.DB) (bool, error) {
		return db.UseTOTPStep(ctx, orgID, userID, step)
	})
}

func (r *Router) UseRecoveryCode(ctx context.Context, e gatehouse.AuditEntry, orgID, userID uuid.UUID, hash [32]byte) (bool, error) {
	return routedTo(r, ctx, method("Store.UseRecoveryCode", orgID, userID), func(ctx context.Context, db *postgres.DB) (bool, error) {
		return db.UseRecoveryCode(ctx, e, orgID, userID, hash)
	})
}

func (r *Router) SignInRequired(ctx context.Context, orgID uuid.UUID, what gatehouse.SignInRequirement) (bool, error) {
	return routedTo(r, ctx, method("Store.SignInRequired", orgID), func(ctx context.Context, db *postgres.DB) (bool, error) {
		return db.SignInRequired(ctx, orgID, what)
	})
}

func (r *Router) SetSignInRequired(ctx context.Context, e gatehouse.AuditEntry, orgID uuid.UUID, what gatehouse.SignInRequirement, required bool) error {
	return routed(r, ctx, method("Store.SetSignInRequired", orgID), func(ctx context.Context, db *postgres.DB) error {
		return db.SetSignInRequired(ctx, e, orgID, what, required)
	})
}

func (r *Router) SeenSession(ctx context.Context, orgID uuid.UUID, tokenHash [32]byte, now time.Time) error {
	return routed(r, ctx, method("Store.SeenSession", orgID), func(ctx context.Context, db *postgres.DB) error {
		return db.SeenSession(ctx, orgID, tokenHash, now)
	})
}

func (r *Router) ListSessions(ctx context.Context, orgID, userID uuid.UUID, now time.Time) ([]gatehouse.Session, error) {
	return routedTo(r, ctx, method("Store.ListSessions", orgID, userID), func(ctx context.Context, db *postgres.DB) ([]gatehouse.Session, error) {
		return db.ListSessions(ctx, orgID, userID, now)
	})
}

func (r *Router) EndSessions(ctx context.Context, e gatehouse.AuditEntry, orgID, userID, id uuid.UUID) (int, error) {
	return routedTo(r, ctx, method("Store.EndSessions", orgID, userID), func(ctx context.Context, db *postgres.DB) (int, error) {
		return db.EndSessions(ctx, e, orgID, userID, id)
	})
}

func (r *Router) CreateLocation(ctx context.Context, e gatehouse.AuditEntry, orgID uuid.UUID, name string) (gatehouse.Location, error) {
	return routedTo(r, ctx, method("Store.CreateLocation", orgID), func(ctx context.Context, db *postgres.DB) (gatehouse.Location, error) {
		return db.CreateLocation(ctx, e, orgID, name)
	})
}

func (r *Router) RenameLocation(ctx context.Context, e gatehouse.AuditEntry, orgID uuid.UUID, id uuid.UUID, name string) (gatehouse.Location, error) {
	return routedTo(r, ctx, method("Store.RenameLocation", orgID, id), func(ctx context.Context, db *postgres.DB) (gatehouse.Location, error) {
		return db.RenameLocation(ctx, e, orgID, id, name)
	})
}

func (r *Router) FindLocation(ctx context.Context, orgID uuid.UUID, id uuid.UUID) (gatehouse.Location, error) {
	return routedTo(r, ctx, method("Store.FindLocation", orgID, id), func(ctx context.Context, db *postgres.DB) (gatehouse.Location, error) {
		return db.FindLocation(ctx, orgID, id)
	})
}

func (r *Router) ListLocations(ctx context.Context, orgID uuid.UUID, limit int, after *gatehouse.LocationKey, withArchived bool, within gatehouse.Reach) (locations []gatehouse.Location, next *gatehouse.LocationKey, err error) {
	db, err := r.of(ctx, method("Store.ListLocations", orgID))
	if err != nil {
		return locations, next, err
	}
	return db.ListLocations(ctx, orgID, limit, after, withArchived, within)
}

func (r *Router) SetLocationUniverse(ctx context.Context, e gatehouse.AuditEntry, orgID uuid.UUID, id uuid.UUID, universeID string) (gatehouse.Location, error) {
	return routedTo(r, ctx, method("Store.SetLocationUniverse", orgID, id), func(ctx context.Context, db *postgres.DB) (gatehouse.Location, error) {
		return db.SetLocationUniverse(ctx, e, orgID, id, universeID)
	})
}

func (r *Router) NamesUniverse(ctx context.Context, orgID uuid.UUID, universeID string) (bool, error) {
	return routedTo(r, ctx, method("Store.NamesUniverse", orgID), func(ctx context.Context, db *postgres.DB) (bool, error) {
		return db.NamesUniverse(ctx, orgID, universeID)
	})
}

func (r *Router) CreateAccessPoint(ctx context.Context, e gatehouse.AuditEntry, orgID uuid.UUID, locationID uuid.UUID, name string) (gatehouse.AccessPoint, error) {
	return routedTo(r, ctx, method("Store.CreateAccessPoint", orgID, locationID), func(ctx context.Context, db *postgres.DB) (gatehouse.AccessPoint, error) {
		return db.CreateAccessPoint(ctx, e, orgID, locationID, name)
	})
}

func (r *Router) RenameAccessPoint(ctx context.Context, e gatehouse.AuditEntry, orgID uuid.UUID, id uuid.UUID, name string) (gatehouse.AccessPoint, error) {
	return routedTo(r, ctx, method("Store.RenameAccessPoint", orgID, id), func(ctx context.Context, db *postgres.DB) (gatehouse.AccessPoint, error) {
		return db.RenameAccessPoint(ctx, e, orgID, id, name)
	})
}

func (r *Router) MoveAccessPoint(ctx context.Context, e gatehouse.AuditEntry, orgID uuid.UUID, id uuid.UUID, locationID uuid.UUID) (gatehouse.AccessPoint, error) {
	return routedTo(r, ctx, method("Store.MoveAccessPoint", orgID, id, locationID), func(ctx context.Context, db *postgres.DB) (gatehouse.AccessPoint, error) {
		return db.MoveAccessPoint(ctx, e, orgID, id, locationID)
	})
}

func (r *Router) FindAccessPoint(ctx context.Context, orgID uuid.UUID, id uuid.UUID) (gatehouse.AccessPoint, error) {
	return routedTo(r, ctx, method("Store.FindAccessPoint", orgID, id), func(ctx context.Context, db *postgres.DB) (gatehouse.AccessPoint, error) {
		return db.FindAccessPoint(ctx, orgID, id)
	})
}

func (r *Router) SetLocationArchived(ctx context.Context, e gatehouse.AuditEntry, orgID uuid.UUID, id uuid.UUID, at *time.Time) (gatehouse.Location, error) {
	return routedTo(r, ctx, method("Store.SetLocationArchived", orgID, id), func(ctx context.Context, db *postgres.DB) (gatehouse.Location, error) {
		return db.SetLocationArchived(ctx, e, orgID, id, at)
	})
}

func (r *Router) SetAccessPointArchived(ctx context.Context, e gatehouse.AuditEntry, orgID uuid.UUID, id uuid.UUID, at *time.Time) (gatehouse.AccessPoint, error) {
	return routedTo(r, ctx, method("Store.SetAccessPointArchived", orgID, id), func(ctx context.Context, db *postgres.DB) (gatehouse.AccessPoint, error) {
		return db.SetAccessPointArchived(ctx, e, orgID, id, at)
	})
}

func (r *Router) DeleteLocation(ctx context.Context, e gatehouse.AuditEntry, orgID uuid.UUID, id uuid.UUID) error {
	return routed(r, ctx, method("Store.DeleteLocation", orgID, id), func(ctx context.Context, db *postgres.DB) error { return db.DeleteLocation(ctx, e, orgID, id) })
}

func (r *Router) DeleteAccessPoint(ctx context.Context, e gatehouse.AuditEntry, orgID uuid.UUID, id uuid.UUID) error {
	return routed(r, ctx, method("Store.DeleteAccessPoint", orgID, id), func(ctx context.Context, db *postgres.DB) error { return db.DeleteAccessPoint(ctx, e, orgID, id) })
}

func (r *Router) SetMessagingKey(ctx context.Context, e gatehouse.AuditEntry, orgID uuid.UUID, universeID string, sealed []byte, hint string) (gatehouse.MessagingKey, error) {
	return routedTo(r, ctx, method("Store.SetMessagingKey", orgID), func(ctx context.Context, db *postgres.DB) (gatehouse.MessagingKey, error) {
		return db.SetMessagingKey(ctx, e, orgID, universeID, sealed, hint)
	})
}

func (r *Router) RemoveMessagingKey(ctx context.Context, e gatehouse.AuditEntry, orgID uuid.UUID, universeID string) error {
	return routed(r, ctx, method("Store.RemoveMessagingKey", orgID), func(ctx context.Context, db *postgres.DB) error {
		return db.RemoveMessagingKey(ctx, e, orgID, universeID)
	})
}

func (r *Router) ListMessagingKeys(ctx context.Context, orgID uuid.UUID) ([]gatehouse.MessagingKey, error) {
	return routedTo(r, ctx, method("Store.ListMessagingKeys", orgID), func(ctx context.Context, db *postgres.DB) ([]gatehouse.MessagingKey, error) {
		return db.ListMessagingKeys(ctx, orgID)
	})
}

func (r *Router) FindMessagingKey(ctx context.Context, orgID uuid.UUID, universeID string) ([]byte, error) {
	return routedTo(r, ctx, method("Store.FindMessagingKey", orgID), func(ctx context.Context, db *postgres.DB) ([]byte, error) {
		return db.FindMessagingKey(ctx, orgID, universeID)
	})
}

func (r *Router) FindOrganization(ctx context.Context, id uuid.UUID) (gatehouse.Organization, error) {
	return routedTo(r, ctx, method("Store.FindOrganization", id), func(ctx context.Context, db *postgres.DB) (gatehouse.Organization, error) {
		return db.FindOrganization(ctx, id)
	})
}

func (r *Router) RenameOrganization(ctx context.Context, e gatehouse.AuditEntry, id uuid.UUID, name string) (gatehouse.Organization, error) {
	return routedTo(r, ctx, method("Store.RenameOrganization", id), func(ctx context.Context, db *postgres.DB) (gatehouse.Organization, error) {
		return db.RenameOrganization(ctx, e, id, name)
	})
}

func (r *Router) PutPolicy(ctx context.Context, e gatehouse.AuditEntry, orgID uuid.UUID, accessPointID uuid.UUID, p gatehouse.Policy, ifVersion *int64, at time.Time) (gatehouse.Policy, error) {
	return routedTo(r, ctx, method("Store.PutPolicy", orgID, accessPointID), func(ctx context.Context, db *postgres.DB) (gatehouse.Policy, error) {
		return db.PutPolicy(ctx, e, orgID, accessPointID, p, ifVersion, at)
	})
}

func (r *Router) FindPolicy(ctx context.Context, orgID uuid.UUID, accessPointID uuid.UUID) (*gatehouse.Policy, error) {
	return routedTo(r, ctx, method("Store.FindPolicy", orgID, accessPointID), func(ctx context.Context, db *postgres.DB) (*gatehouse.Policy, error) {
		return db.FindPolicy(ctx, orgID, accessPointID)
	})
}

func (r *Router) FindPolicyAt(ctx context.Context, orgID uuid.UUID, accessPointID uuid.UUID, at time.Time) (*gatehouse.Policy, error) {
	return routedTo(r, ctx, method("Store.FindPolicyAt", orgID, accessPointID), func(ctx context.Context, db *postgres.DB) (*gatehouse.Policy, error) {
		return db.FindPolicyAt(ctx, orgID, accessPointID, at)
	})
}

func (r *Router) PolicySet(ctx context.Context, orgID uuid.UUID, universeID string) ([]gatehouse.AccessPointPolicy, error) {
	return routedTo(r, ctx, method("Store.PolicySet", orgID), func(ctx context.Context, db *postgres.DB) ([]gatehouse.AccessPointPolicy, error) {
		return db.PolicySet(ctx, orgID, universeID)
	})
}

func (r *Router) PolicySetMembers(ctx context.Context, orgID uuid.UUID, universeID string) ([]gatehouse.PolicySetMember, error) {
	return routedTo(r, ctx, method("Store.PolicySetMembers", orgID), func(ctx context.Context, db *postgres.DB) ([]gatehouse.PolicySetMember, error) {
		return db.PolicySetMembers(ctx, orgID, universeID)
	})
}

func (r *Router) FindDecisionContext(ctx context.Context, orgID uuid.UUID, accessPointID uuid.UUID, now time.Time) (gatehouse.DecisionContext, error) {
	return routedTo(r, ctx, method("Store.FindDecisionContext", orgID, accessPointID), func(ctx context.Context, db *postgres.DB) (gatehouse.DecisionContext, error) {
		return db.FindDecisionContext(ctx, orgID, accessPointID, now)
	})
}
