package gatehouse

import (
	"context"
	"slices"

	"github.com/google/uuid"
)

// Role is what a dashboard user may do in their organization.
type Role string

// The roles, from most to least trusted.
const (
	// RoleAdmin may do everything, managing keys, locations and users included.
	RoleAdmin Role = "admin"
	// RoleOperator runs the doors: everything a viewer may, and issuing
	// and cancelling commands (and, when it arrives, testing decisions).
	RoleOperator Role = "operator"
	// RoleViewer may look, and change nothing.
	RoleViewer Role = "viewer"
)

// Roles lists every role, most trusted first.
var Roles = []Role{RoleAdmin, RoleOperator, RoleViewer}

// ParseRole returns the role named s, or a *[ValidationError] keyed "role".
func ParseRole(s string) (Role, error) {
	if r := Role(s); slices.Contains(Roles, r) {
		return r, nil
	}
	return "", Invalid("role", "must be one of admin, operator, viewer")
}

// Below reports whether r is less trusted than other: moving a user from
// other to r lowers their role, which ends their sessions.
func (r Role) Below(other Role) bool {
	return slices.Index(Roles, r) > slices.Index(Roles, other)
}

// Permission is one kind of action the service checks before acting for
// a dashboard user.
type Permission string

// The permissions.
const (
	// PermView: read events, locations and access points.
	PermView Permission = "view"
	// PermManageKeys: list, create and revoke API keys.
	PermManageKeys Permission = "keys:manage"
	// PermManageLocations: create, rename, archive, restore and delete
	// locations and access points, and move access points between
	// locations.
	PermManageLocations Permission = "locations:manage"
	// PermManageUsers: list, add, change the role of and remove users.
	PermManageUsers Permission = "users:manage"
	// PermReadAudit: read the organization's audit log.
	PermReadAudit Permission = "audit:read"
	// PermIssueCommands: issue and cancel remote commands (unlock).
	PermIssueCommands Permission = "commands:issue"
	// PermManageMessaging: set, list and remove the platform messaging
	// (Open Cloud) keys of the organization's universes: credentials of
	// the organization's game, so only admins hold it.
	PermManageMessaging Permission = "messaging:manage"
	// PermManagePolicies: change the access policies of access points
	// (reading them is PermView).
	PermManagePolicies Permission = "policies:manage"
	// PermTestDecisions: ask for a decision and its explanation without
	// recording it (the dashboard's "test a decision").
	PermTestDecisions Permission = "decisions:test"
	// PermManageWebhooks: create, change, delete and watch webhook
	// endpoints: where the organization's events go, so only admins
	// hold it.
	PermManageWebhooks Permission = "webhooks:manage"
	// PermManagePrivacy: erase a player's data, set the retention, set
	// up the platform's right-to-erasure webhook and read its requests.
	PermManagePrivacy Permission = "privacy:manage"
	// PermManageGrants: create and revoke timed grants. A grant lets a
	// player through whatever the schedule and allow rules, for up to
	// 366 days: a change of who may pass, as a policy is, so only admins
	// hold it (reading grants is PermView).
	PermManageGrants Permission = "grants:manage"
)

// permissions is the one table of what each role may do. RoleAdmin is not
// listed: it may do everything.
var permissions = map[Role][]Permission{
	RoleOperator: {PermView, PermIssueCommands, PermTestDecisions},
	RoleViewer:   {PermView},
}

// reachPermissions are those a role limited to locations keeps (see
// Reach): each is checked against the locations of what it touches.
// The others (users, locations themselves, the audit log, webhooks,
// privacy, messaging keys) concern the whole organization, and a
// limited role is refused them.
var reachPermissions = []Permission{PermView, PermIssueCommands, PermTestDecisions, PermManagePolicies, PermManageGrants, PermManageKeys}

// Can reports whether r grants p.
func (r Role) Can(p Permission) bool {
	return r == RoleAdmin || slices.Contains(permissions[r], p)
}

// Authorize returns nil when the actor of ctx may do p in the
// organization orgID. It refuses:
//   - a user of another organization as if the record did not exist
//     ([ErrNotFound]);
//   - a role that does not grant p, with [ErrForbidden];
//   - a user who must enrol a second factor first ([Actor.EnrolOnly]),
//     with [ErrForbidden];
//   - an actor limited to locations ([Actor.Reach]), user or key, with
//     [ErrForbidden]: what Authorize guards concerns the whole
//     organization; operations the reach narrows call AuthorizeIn.
//
// Only dashboard users are checked here: the CLI acts as the system,
// which may do everything, and an API key's scopes are checked by the API
// before the service is called.
func Authorize(ctx context.Context, orgID uuid.UUID, p Permission) error {
	a := ActorFrom(ctx)
	if err := authorize(a, orgID, p); err != nil {
		return err
	}
	if a.Reach != nil {
		return ErrOutsideReach
	}
	return nil
}

func authorize(a Actor, orgID uuid.UUID, p Permission) error {
	switch {
	case a.Type != ActorUser:
		return nil
	case a.OrgID != orgID:
		return ErrNotFound
	case a.EnrolOnly || !a.Role.Can(p):
		return ErrForbidden
	}
	return nil
}
