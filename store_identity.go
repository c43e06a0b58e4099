package gatehouse

import (
	"context"
	"time"

	"github.com/google/uuid"
)

// IdentityStore is the part of [Store] that keeps who may act: API
// keys, dashboard users and their sessions.
type IdentityStore interface {
	// CreateAPIKey stores k, whose ID, OrgID, Name, Prefix, Hash, Scopes and
	// CreatedAt are set by the caller. [ErrNotFound] when the organization
	// does not exist, [ErrInvalid] for a bad name.
	CreateAPIKey(ctx context.Context, e AuditEntry, k APIKey) error
	// ListAPIKeys returns an organization's keys, newest first.
	ListAPIKeys(ctx context.Context, orgID uuid.UUID) ([]APIKey, error)
	// FindAPIKeyByHash returns the key with that hash, whatever its status,
	// or [ErrNotFound].
	FindAPIKeyByHash(ctx context.Context, hash KeyHash) (APIKey, error)
	// FindAPIKey returns an organization's key, whatever its status, or
	// [ErrNotFound] (another organization's key included).
	FindAPIKey(ctx context.Context, orgID, id uuid.UUID) (APIKey, error)
	// RevokeAPIKey marks an organization's key revoked at time at, unless
	// it already is, and returns it. [ErrNotFound] for an unknown key or one
	// of another organization.
	RevokeAPIKey(ctx context.Context, e AuditEntry, orgID, id uuid.UUID, at time.Time) (APIKey, error)
	// SetAPIKeyRate sets an organization's key's own rate limit (nil: the
	// server's) and returns the key. It records e only when the rate
	// changed. [ErrNotFound] for an unknown key or one of another
	// organization.
	SetAPIKeyRate(ctx context.Context, e AuditEntry, orgID, id uuid.UUID, rate *Rate) (APIKey, error)
	// CountAPIKeysExpiring counts the keys of every organization, not
	// revoked, that expire after from and by to: what the operator's metrics
	// show, with no organization named.
	CountAPIKeysExpiring(ctx context.Context, from, to time.Time) (int, error)
	// MarkAPIKeysUsed records last-use times in one write; unknown ids are
	// ignored and a time never moves backwards.
	MarkAPIKeysUsed(ctx context.Context, used map[uuid.UUID]time.Time) error

	// CreateUser stores a dashboard user with u's OrgID, Email, Name,
	// Role, PasswordHash (empty for an invitation) and Proven, and, when
	// inv is not nil, the user's invitation (inv's UserID and the user's
	// InvitedUntil are set from it), in one transaction. The first user
	// of an organization is made [RoleAdmin] whatever u.Role says
	// (checked in the same transaction). Errors:
	//   - [ErrConflict] when the email is taken in the organization (it may
	//     be used in others);
	//   - [ErrNotFound] for an unknown organization.
	CreateUser(ctx context.Context, e AuditEntry, u User, inv *Invitation) (User, error)
	// SetInvitation stores inv as the invitation of the organization's
	// user inv.UserID, replacing the link it had, and appends e, in one
	// transaction. [ErrNotFound] when there is no such user;
	// [ErrConflict] when the user is proven already.
	SetInvitation(ctx context.Context, e AuditEntry, inv Invitation) (User, error)
	// FindInvitation returns the invitation with that hash (expired or
	// not; its CreatedAt left out) and its user, or [ErrNotFound]: a
	// link used, replaced or never made.
	FindInvitation(ctx context.Context, hash [32]byte) (Invitation, User, error)
	// UseInvitation uses the invitation of the organization's user, if
	// it expires after now and, unless hash is zero, is the link of hash:
	// deletes it, sets passwordHash unless it is empty, marks the user
	// proven (at now) and appends e, in one transaction, and returns the
	// user. [ErrNotFound] when the user has no such invitation (used
	// already, replaced, expired, or never made).
	UseInvitation(ctx context.Context, e AuditEntry, orgID, userID uuid.UUID, hash [32]byte, passwordHash string, now time.Time) (User, error)
	// FindUsersByEmail returns every user with that email
	// (case-insensitive), one per organization, oldest first; none is no
	// error. Only sign-in and the operator's CLI, which span
	// organizations, ask it.
	FindUsersByEmail(ctx context.Context, email string) ([]User, error)
	// ListUsers returns an organization's users ordered by email.
	ListUsers(ctx context.Context, orgID uuid.UUID) ([]User, error)
	// SetUserPassword replaces the password hash of the organization's
	// user with that email, proves the user (the operator, or the user,
	// set it) and ends the user's sessions and invitation; [ErrNotFound]
	// when there is none.
	SetUserPassword(ctx context.Context, e AuditEntry, orgID uuid.UUID, email, passwordHash string) (User, error)
	// SetUserRole changes the role of the organization's user with that
	// email and returns the user. When the role is lowered ([Role.Below]),
	// the user's sessions end in the same transaction. [ErrNotFound] when
	// there is no such user; [ErrConflict] when it would leave the
	// organization without an admin.
	SetUserRole(ctx context.Context, e AuditEntry, orgID uuid.UUID, email string, role Role, reach Reach) (User, error)
	// RemoveUser deletes the organization's user with that email and their
	// sessions, in one transaction, and returns the user. Events keep the
	// id of the user who requested them. [ErrNotFound] when there is no such
	// user; [ErrConflict] when it is the organization's last admin.
	RemoveUser(ctx context.Context, e AuditEntry, orgID uuid.UUID, email string) (User, error)
	// SetUserTimeZone stores the zone of the organization's user with that
	// id; [ErrNotFound] when the organization has no such user.
	SetUserTimeZone(ctx context.Context, orgID, userID uuid.UUID, zone string) error

	// SetSecondFactor enrols f as the second factor of the
	// organization's user userID, replacing any and its recovery codes,
	// or removes it when f is nil; either way the user's sessions end, in
	// the transaction that appends e. [ErrNotFound] when the organization
	// has no such user.
	SetSecondFactor(ctx context.Context, e AuditEntry, orgID, userID uuid.UUID, f *SecondFactor) (User, error)
	// FindSecondFactor returns the organization's user's second factor
	// (its RecoveryCodes left out), or [ErrNotFound] when the user has
	// none.
	FindSecondFactor(ctx context.Context, orgID, userID uuid.UUID) (SecondFactor, error)
	// UseTOTPStep records that a code of step signed the user in, unless
	// a code of that step or a later one already did: false then (a
	// replayed code), and for a user without a second factor.
	UseTOTPStep(ctx context.Context, orgID, userID uuid.UUID, step int64) (bool, error)
	// UseRecoveryCode marks the user's unused recovery code with that
	// hash used at e.At and appends e, in one transaction; false, with
	// nothing appended, when the user has no such unused code.
	UseRecoveryCode(ctx context.Context, e AuditEntry, orgID, userID uuid.UUID, hash [32]byte) (bool, error)
	// SignInRequired says whether the organization requires what of its
	// members' sign-ins. [ErrNotFound] for an unknown organization.
	SignInRequired(ctx context.Context, orgID uuid.UUID, what SignInRequirement) (bool, error)
	// SetSignInRequired sets it, appending e (its change named after
	// what) only when it changed.
	SetSignInRequired(ctx context.Context, e AuditEntry, orgID uuid.UUID, what SignInRequirement, required bool) error

	// CreateSession stores a dashboard session and marks its user
	// proven ([User.Proven]), in one transaction. It refuses with
	// [ErrSecondFactorNeeded] a session not [Session.SecondFactorGiven]
	// of a user who has a second factor (enrolled since the password
	// was checked).
	CreateSession(ctx context.Context, e AuditEntry, s Session) error
	// FindSession returns the unexpired session with that token hash and
	// its user, or [ErrNotFound].
	FindSession(ctx context.Context, tokenHash [32]byte, now time.Time) (Session, User, error)
	// SeenSession records that the session with that token hash, of the
	// organization's user, was used at now, unless it was within
	// SessionSeenEvery.
	SeenSession(ctx context.Context, orgID uuid.UUID, tokenHash [32]byte, now time.Time) error
	// ListSessions returns the unexpired sessions of the organization's
	// user, last seen first.
	ListSessions(ctx context.Context, orgID, userID uuid.UUID, now time.Time) ([]Session, error)
	// EndSessions ends the sessions of the organization's user: the one
	// with that id, or every one when id is uuid.Nil, appending e in the
	// same transaction; it returns how many of them had not expired (0
	// appends nothing).
	EndSessions(ctx context.Context, e AuditEntry, orgID, userID, id uuid.UUID) (int, error)
	// DeleteSession ends a session; ending one that does not exist is no
	// error. It also deletes every session that has expired.
	DeleteSession(ctx context.Context, tokenHash [32]byte, now time.Time) error
}
