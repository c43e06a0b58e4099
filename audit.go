package gatehouse

import (
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"time"

	"github.com/google/uuid"
)

// AuditAction names what an audit entry records, as noun.verb.
type AuditAction string

// The audited actions. Every change of an organization's records appends
// exactly one of them, in the transaction of the change.
const (
	AuditSignedIn      AuditAction = "user.signed_in"
	AuditSignInFailed  AuditAction = "user.sign_in_failed"
	AuditAPIKeyCreated AuditAction = "api_key.created"
	AuditAPIKeyRevoked AuditAction = "api_key.revoked"
	// AuditAPIKeyRateChanged: a key's own rate limit was set or cleared
	// (cleared: the server's default applies).
	AuditAPIKeyRateChanged  AuditAction = "api_key.rate_changed"
	AuditUserAdded          AuditAction = "user.added"
	AuditUserRoleChanged    AuditAction = "user.role_changed"
	AuditUserRemoved        AuditAction = "user.removed"
	AuditUserPasswordSet    AuditAction = "user.password_set"
	AuditLocationCreated    AuditAction = "location.created"
	AuditLocationRenamed    AuditAction = "location.renamed"
	AuditAccessPointCreated AuditAction = "access_point.created"
	AuditAccessPointRenamed AuditAction = "access_point.renamed"
	AuditAccessPointMoved   AuditAction = "access_point.moved"
	// Archived, restored, deleted: docs/api.md, "Archive and delete". A
	// delete's entry counts what went with the record (its policy
	// versions, the grants it was taken off or that went with it).
	AuditLocationArchived    AuditAction = "location.archived"
	AuditLocationRestored    AuditAction = "location.restored"
	AuditLocationDeleted     AuditAction = "location.deleted"
	AuditAccessPointArchived AuditAction = "access_point.archived"
	AuditAccessPointRestored AuditAction = "access_point.restored"
	AuditAccessPointDeleted  AuditAction = "access_point.deleted"
	AuditOrganizationCreated AuditAction = "organization.created"
	AuditOrganizationRenamed AuditAction = "organization.renamed"
	AuditLocationUniverseSet AuditAction = "location.universe_set"
	AuditCommandIssued       AuditAction = "command.issued"
	AuditCommandCancelled    AuditAction = "command.cancelled"
	AuditMessagingSet        AuditAction = "messaging.set"
	AuditMessagingRemoved    AuditAction = "messaging.removed"
	AuditPolicyChanged       AuditAction = "policy.changed"
	AuditWebhookCreated      AuditAction = "webhook.created"
	AuditWebhookChanged      AuditAction = "webhook.changed"
	AuditWebhookDisabled     AuditAction = "webhook.disabled"
	AuditWebhookDeleted      AuditAction = "webhook.deleted"
	// AuditWebhookSecretRotated: an endpoint's secret was replaced; the
	// entry says until when the previous one signs too (never a secret).
	AuditWebhookSecretRotated AuditAction = "webhook.secret_rotated"
	// AuditPlatformUserErased names the player by a keyed hash of the
	// id, never the id.
	AuditPlatformUserErased AuditAction = "platform_user.erased"
	AuditRetentionChanged   AuditAction = "organization.retention_changed"
	AuditErasureWebhookSet  AuditAction = "privacy.erasure_webhook_set"
	// An alert rule's life (docs/api.md, "Alert rules").
	AuditAlertRuleCreated AuditAction = "alert_rule.created"
	AuditAlertRuleChanged AuditAction = "alert_rule.changed"
	AuditAlertRuleDeleted AuditAction = "alert_rule.deleted"
	// AuditGrantCreated and AuditGrantRevoked: a timed grant was made
	// or ended early.
	AuditGrantCreated AuditAction = "grant.created"
	AuditGrantRevoked AuditAction = "grant.revoked"
	// AuditLockdownStarted and AuditLockdownReleased: a lockdown of a
	// location, a universe or the organization; released by a user, a
	// key, or the system when its until came.
	AuditLockdownStarted  AuditAction = "lockdown.started"
	AuditLockdownReleased AuditAction = "lockdown.released"
	// Two factors (docs/security.md, "Two factors"): a user enrolled or
	// removed their own; an admin reset a user's (a lost phone); a
	// recovery code signed a user in (the entry says how many are left);
	// an organization began or stopped requiring one.
	AuditSecondFactorEnrolled AuditAction = "user.second_factor_enrolled"
	AuditSecondFactorRemoved  AuditAction = "user.second_factor_removed"
	AuditSecondFactorReset    AuditAction = "user.second_factor_reset"
	AuditRecoveryCodeUsed     AuditAction = "user.recovery_code_used"
	AuditSecondFactorRequired AuditAction = "organization.second_factor_required"
	// AuditSessionsEnded: a user ended one of their sessions (another
	// browser), or an admin ended all of a user's; the entry counts them.
	AuditSessionsEnded AuditAction = "user.sessions_ended"
	// AuditUserInvited: an admin made a new invitation link for a user
	// not yet proven (the first comes with user.added); the entry says
	// until when it is good, never the link.
	AuditUserInvited AuditAction = "user.invited"
	// AuditInvitationAccepted: the invited person set their password
	// through the link, or accepted while signed in as the same email.
	AuditInvitationAccepted AuditAction = "user.invitation_accepted"
	// AuditProviderRequired: an admin began, or stopped, requiring the
	// organization's members to sign in through the OpenID provider.
	AuditProviderRequired AuditAction = "organization.provider_required"
)

// AuditActions lists every action in documentation order.
var AuditActions = []AuditAction{
	AuditSignedIn, AuditSignInFailed, AuditAPIKeyCreated, AuditAPIKeyRevoked, AuditAPIKeyRateChanged,
	AuditUserAdded, AuditUserRoleChanged, AuditUserRemoved, AuditUserPasswordSet,
	AuditLocationCreated, AuditLocationRenamed, AuditAccessPointCreated,
	AuditAccessPointRenamed, AuditAccessPointMoved,
	AuditLocationArchived, AuditLocationRestored, AuditLocationDeleted,
	AuditAccessPointArchived, AuditAccessPointRestored, AuditAccessPointDeleted,
	AuditOrganizationCreated, AuditOrganizationRenamed,
	AuditLocationUniverseSet, AuditCommandIssued, AuditCommandCancelled,
	AuditMessagingSet, AuditMessagingRemoved, AuditPolicyChanged,
	AuditWebhookCreated, AuditWebhookChanged, AuditWebhookDisabled, AuditWebhookDeleted, AuditWebhookSecretRotated,
	AuditPlatformUserErased, AuditRetentionChanged, AuditErasureWebhookSet,
	AuditAlertRuleCreated, AuditAlertRuleChanged, AuditAlertRuleDeleted,
	AuditGrantCreated, AuditGrantRevoked,
	AuditLockdownStarted, AuditLockdownReleased,
	AuditSecondFactorEnrolled, AuditSecondFactorRemoved, AuditSecondFactorReset, AuditRecoveryCodeUsed,
	AuditSecondFactorRequired, AuditSessionsEnded, AuditUserInvited, AuditInvitationAccepted, AuditProviderRequired,
}

// The kinds of record an audit entry targets.
const (
	TargetOrganization = "organization"
	TargetAPIKey       = "api_key"
	TargetUser         = "user"
	TargetLocation     = "location"
	TargetAccessPoint  = "access_point"
	TargetCommand      = "command"
	// TargetMessaging is a universe's messaging key: the entry has no
	// record id, its name is the universe id, and its only change is the
	// key's hint (never the key).
	TargetMessaging = "messaging"
	// TargetWebhook is a webhook endpoint, named by its URL.
	TargetWebhook = "webhook"
	// TargetPlatformUser is an erased player: no id, named by the keyed
	// hash of the platform user id.
	TargetPlatformUser = "platform_user"
	// TargetAlertRule is an alert rule, named by its name.
	TargetAlertRule = "alert_rule"
	// TargetGrant is a timed grant, named by its player's id.
	TargetGrant = "grant"
	// TargetLockdown is a lockdown, named by what it covers (the
	// location's name, "universe N" or "organization").
	TargetLockdown = "lockdown"
)

// AuditActor is who made a change: a user (ID and email in Label), a key
// (ID and display prefix in Label), an operator's CLI (no ID; the
// operating-system user and host in Label) or the system (neither). A failed
// sign-in of an unknown email has the email as typed and no ID.
type AuditActor struct {
	Type  ActorType
	ID    *uuid.UUID
	Label string
}

// AuditTarget is the record a change touched, named as it was then.
type AuditTarget struct {
	Type string
	ID   uuid.UUID
	Name string
}

// AuditChange is one field's value before and after a change; a created
// record has only To. Never a raw key or a password hash.
type AuditChange struct {
	From string `json:"from,omitempty"`
	To   string `json:"to,omitempty"`
}

// AuditEntry is one line of an organization's audit log. Entries are
// appended, never changed or deleted.
type AuditEntry struct {
	ID uuid.UUID
	// OrgID is the organization whose log holds the entry; uuid.Nil only
	// for a failed sign-in of an email no organization knows.
	OrgID         uuid.UUID
	At            time.Time
	Action        AuditAction
	Actor         AuditActor
	Target        AuditTarget
	Changes       map[string]AuditChange
	RequestID     string
	ClientAddress string
}

// SystemEntry is an entry of action made by Gatehouse itself, with no
// request: what setup code (the demo, tests) passes to a Store directly.
// A store completes its id, time, organization and target.
func SystemEntry(action AuditAction) AuditEntry {
	return AuditEntry{Action: action, Actor: AuditActor{Type: ActorSystem}, Changes: map[string]AuditChange{}}
}

// Of returns e as an entry of the organization orgID about the record t:
// what a store calls once the record it changes is known, so that the
// entry always names the organization and the record of the change, as
// the store has them.
func (e AuditEntry) Of(orgID uuid.UUID, t AuditTarget) AuditEntry {
	e.OrgID, e.Target = orgID, t
	return e
}

// Change returns e with field recorded as changed from from to to. An
// unchanged field is not recorded.
func (e AuditEntry) Change(field, from, to string) AuditEntry {
	if from == to {
		return e
	}
	changes := make(map[string]AuditChange, len(e.Changes)+1)
	for k, v := range e.Changes {
		changes[k] = v
	}
	changes[field] = AuditChange{From: from, To: to}
	e.Changes = changes
	return e
}

// Complete fills what a store may be handed empty (by SystemEntry): the
// id and the time. [ErrInvalid] for an entry without an action, so that no
// change is ever stored unrecorded.
func (e AuditEntry) Complete(now time.Time) (AuditEntry, error) {
	if e.Action == "" || e.Actor.Type == "" {
		return e, fmt.Errorf("audit entry without action or actor: %w", ErrInvalid)
	}
	if e.ID == uuid.Nil {
		e.ID = NewID()
	}
	if e.At.IsZero() {
		e.At = now
	}
	e.At = Truncate(e.At)
	if e.Changes == nil {
		e.Changes = map[string]AuditChange{}
	}
	return e, nil
}

// AuditKey is the position of an entry in the log's order: newest first,
// then id descending.
type AuditKey struct {
	At time.Time
	ID uuid.UUID
}

// AuditFilter selects entries of one organization's log. All set fields
// are ANDed; From is inclusive, To exclusive.
type AuditFilter struct {
	Action   AuditAction
	ActorID  *uuid.UUID
	TargetID *uuid.UUID
	From, To *time.Time
	Limit    int // 1..MaxLimit
	After    *AuditKey
}

// AuditPage is a page of entries; Next is set when more follow.
type AuditPage struct {
	Entries []AuditEntry
	Next    *AuditKey
}

// Digest binds a cursor to the organization and the filters (not the
// limit or the position).
func (f AuditFilter) Digest(orgID uuid.UUID) [8]byte {
	h := sha256.New()
	h.Write([]byte("audit\x00"))
	h.Write(orgID[:])
	fmt.Fprintf(h, "\x00%s\x00", f.Action)
	for _, id := range []*uuid.UUID{f.ActorID, f.TargetID} {
		if id != nil {
			h.Write(id[:])
		}
		h.Write([]byte{0})
	}
	for _, t := range []*time.Time{f.From, f.To} {
		var b [8]byte
		if t != nil {
			binary.BigEndian.PutUint64(b[:], uint64(t.UnixMilli()))
		}
		h.Write(b[:])
	}
	return [8]byte(h.Sum(nil)[:8])
}

// EncodeAuditKey writes an audit position as cursor bytes.
func EncodeAuditKey(k AuditKey) []byte {
	b := make([]byte, 8, 24)
	binary.BigEndian.PutUint64(b, uint64(k.At.UnixMilli()))
	return append(b, k.ID[:]...)
}

// DecodeAuditKey reads cursor bytes written by EncodeAuditKey.
func DecodeAuditKey(b []byte) (AuditKey, error) {
	k, err := DecodeEventKey(b)
	return AuditKey{At: k.OccurredAt, ID: k.ID}, err
}
