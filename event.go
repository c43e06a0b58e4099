package gatehouse

import (
	"time"

	"github.com/google/uuid"
)

// EventType says what an event records.
type EventType string

// The known event types.
const (
	EventAccessGranted EventType = "ACCESS_GRANTED"
	EventAccessDenied  EventType = "ACCESS_DENIED"
	EventRemoteUnlock  EventType = "REMOTE_UNLOCK"
)

// EventTypes lists the known event types.
var EventTypes = []EventType{EventAccessGranted, EventAccessDenied, EventRemoteUnlock}

// Outcome is whether an access attempt was let through.
type Outcome string

// The outcomes of an access attempt.
const (
	Granted Outcome = "granted"
	Denied  Outcome = "denied"
)

// Type is the one event type with this outcome: an outcome follows from
// the type (ingest refuses any other), so stores filter by type instead.
func (o Outcome) Type() EventType {
	if o == Granted {
		return EventAccessGranted
	}
	return EventAccessDenied
}

// CommandScope says whom a remote unlock applies to.
type CommandScope string

// The scopes of a remote-unlock command.
const (
	ScopeUniverse CommandScope = "UNIVERSE" // every server of the game
	ScopeServer   CommandScope = "SERVER"   // one server, by job id
	ScopePlayer   CommandScope = "PLAYER"   // one platform user
)

// CommandScopes lists the command scopes.
var CommandScopes = []CommandScope{ScopeUniverse, ScopeServer, ScopePlayer}

// CommandStatus is where a remote command stands.
type CommandStatus string

// The statuses of a remote command, from issued to settled.
const (
	CommandPending   CommandStatus = "PENDING"   // issued, not yet delivered to a server
	CommandDelivered CommandStatus = "DELIVERED" // received by at least one game server
	CommandExecuted  CommandStatus = "EXECUTED"  // the access point was unlocked
	CommandFailed    CommandStatus = "FAILED"    // a server reported an error
	CommandExpired   CommandStatus = "EXPIRED"   // not executed before its deadline
	CommandCancelled CommandStatus = "CANCELLED" // cancelled before it settled
)

// CommandStatuses lists the command statuses.
var CommandStatuses = []CommandStatus{CommandPending, CommandDelivered, CommandExecuted, CommandFailed, CommandExpired, CommandCancelled}

// Known reason codes. Others matching ReasonPattern are accepted too.
const (
	ReasonOutsideSchedule     = "OUTSIDE_SCHEDULE"
	ReasonNotOnAllowlist      = "NOT_ON_ALLOWLIST"
	ReasonAccessPointDisabled = "ACCESS_POINT_DISABLED"
	ReasonSchedule            = "SCHEDULE"
	ReasonAllowlist           = "ALLOWLIST"
	ReasonRemoteUnlock        = "REMOTE_UNLOCK" // an active remote unlock let the player through
	ReasonBlocked             = "BLOCKED"       // a deny rule of the policy
	ReasonOpen                = "OPEN"          // the policy's mode is OPEN
	ReasonLockdown            = "LOCKDOWN"      // a lockdown covers the access point
	ReasonGrant               = "GRANT"         // a timed grant (pass) of the player
)

// DecisionReasons lists every reason the evaluator (Decide) gives, in the
// contract's order of evaluation.
var DecisionReasons = []string{
	ReasonLockdown, ReasonRemoteUnlock, ReasonAccessPointDisabled, ReasonBlocked, ReasonGrant,
	ReasonOpen, ReasonOutsideSchedule, ReasonAllowlist, ReasonSchedule, ReasonNotOnAllowlist,
}

// ReasonPattern is the shape of a reason code.
const ReasonPattern = `^[A-Z][A-Z0-9_]{0,63}$`

// Event is one access attempt or remote-unlock activity, as recorded. The
// location and access point names are those at the time of the event: an
// audit record does not change when a door is renamed.
type Event struct {
	ID             uuid.UUID `json:"id"`
	Type           EventType `json:"type"`
	OccurredAt     Time      `json:"occurredAt"`
	ReceivedAt     Time      `json:"receivedAt"`
	Allowed        *Outcome  `json:"allowed"`
	Reason         *string   `json:"reason"`
	PlatformUserID *string   `json:"platformUserId"`
	// PlatformUserName is the player's display name as the game server
	// reported it with the event; null when it did not.
	PlatformUserName *string         `json:"platformUserName"`
	ServerJobID      *string         `json:"serverJobId"`
	Scope            *CommandScope   `json:"scope"`
	Location         NamedRef        `json:"location"`
	AccessPoint      NamedRef        `json:"accessPoint"`
	RequestedBy      *Requester      `json:"requestedBy"`
	Command          *CommandSummary `json:"command"`
}

// NamedRef names a location or access point inside an event.
type NamedRef struct {
	ID   uuid.UUID `json:"id"`
	Name string    `json:"name"`
}

// Requester is the dashboard user who requested an action.
type Requester struct {
	ID    uuid.UUID `json:"id"`
	Email string    `json:"email"`
	Name  string    `json:"name"`
}

// CommandSummary is the current state of a remote command an event relates to.
type CommandSummary struct {
	ID             uuid.UUID     `json:"id"`
	Scope          CommandScope  `json:"scope"`
	Status         CommandStatus `json:"status"`
	ServerJobID    *string       `json:"serverJobId"`
	PlatformUserID *string       `json:"platformUserId"`
	IssuedAt       Time          `json:"issuedAt"`
}

// EventKey is the position of an event in the event order: occurredAt
// descending, then id descending.
type EventKey struct {
	OccurredAt time.Time
	ID         uuid.UUID
}

// Key returns the event's position in the event order.
func (e Event) Key() EventKey {
	return EventKey{OccurredAt: time.Time(e.OccurredAt), ID: e.ID}
}
