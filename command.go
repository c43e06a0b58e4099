package gatehouse

import (
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"time"
	"unicode/utf8"

	"github.com/google/uuid"
)

// CommandType is what a remote command asks a game server to do.
type CommandType string

// CommandUnlock opens an access point for a while.
const CommandUnlock CommandType = "UNLOCK"

// Limits of a command (see docs/api.md, "POST /commands").
const (
	MinUnlockSeconds     = 1
	MaxUnlockSeconds     = 3600
	DefaultUnlockSeconds = 10
	MinCommandTTL        = 5
	MaxCommandTTL        = 3600
	DefaultCommandTTL    = 60
	MaxCommandNote       = 200
	// IdempotencyWindow is how long an Idempotency-Key answers with the
	// command it first issued.
	IdempotencyWindow = 24 * time.Hour
	// MaxIdempotencyKey bounds an Idempotency-Key's length.
	MaxIdempotencyKey = 255
)

// Failure reasons Gatehouse itself gives a command (a server's own
// message is stored as it sent it).
const (
	FailServerNotLive   = "SERVER_NOT_LIVE"
	FailPlayerNotOnline = "PLAYER_NOT_ONLINE"
)

// Settled reports whether a status is final: nothing moves it again.
func (s CommandStatus) Settled() bool {
	return s != CommandPending && s != CommandDelivered
}

// CommandRequest is what a caller asks for when issuing a command: the
// body of POST /commands.
type CommandRequest struct {
	Type            CommandType  `json:"type"`
	AccessPointID   uuid.UUID    `json:"accessPointId"`
	Scope           CommandScope `json:"scope"`
	ServerJobID     *string      `json:"serverJobId"`
	PlatformUserID  *string      `json:"platformUserId"`
	DurationSeconds int          `json:"durationSeconds"`
	TTLSeconds      int          `json:"ttlSeconds"`
	Note            *string      `json:"note"`
}

// Check fills the defaults of r and returns it, or a *[ValidationError]
// naming every bad field.
func (r CommandRequest) Check() (CommandRequest, error) {
	var errs ValidationError
	if r.Type == "" {
		r.Type = CommandUnlock
	}
	if r.Type != CommandUnlock {
		errs.Add("type", "must be UNLOCK")
	}
	if r.AccessPointID == uuid.Nil {
		errs.Add("accessPointId", "is required")
	}
	if !slices.Contains(CommandScopes, r.Scope) {
		errs.Add("scope", "must be one of UNIVERSE, SERVER, PLAYER")
	}
	if r.DurationSeconds == 0 {
		r.DurationSeconds = DefaultUnlockSeconds
	}
	if r.DurationSeconds < MinUnlockSeconds || r.DurationSeconds > MaxUnlockSeconds {
		errs.Add("durationSeconds", "must be between %d and %d", MinUnlockSeconds, MaxUnlockSeconds)
	}
	if r.TTLSeconds == 0 {
		r.TTLSeconds = DefaultCommandTTL
	}
	if r.TTLSeconds < MinCommandTTL || r.TTLSeconds > MaxCommandTTL {
		errs.Add("ttlSeconds", "must be between %d and %d", MinCommandTTL, MaxCommandTTL)
	}
	r.ServerJobID = blankToNil(r.ServerJobID)
	r.PlatformUserID = blankToNil(r.PlatformUserID)
	r.Note = blankToNil(r.Note)
	switch r.Scope {
	case ScopeServer:
		if r.ServerJobID == nil {
			errs.Add("serverJobId", "is required when scope is SERVER")
		}
		if r.PlatformUserID != nil {
			errs.Add("platformUserId", "must be empty when scope is SERVER")
		}
	case ScopePlayer:
		if r.PlatformUserID == nil {
			errs.Add("platformUserId", "is required when scope is PLAYER")
		}
		if r.ServerJobID != nil {
			errs.Add("serverJobId", "must be empty when scope is PLAYER")
		}
	case ScopeUniverse:
		if r.ServerJobID != nil {
			errs.Add("serverJobId", "must be empty when scope is UNIVERSE")
		}
		if r.PlatformUserID != nil {
			errs.Add("platformUserId", "must be empty when scope is UNIVERSE")
		}
	}
	if r.ServerJobID != nil {
		checkJobID(&errs, "serverJobId", *r.ServerJobID)
	}
	if r.PlatformUserID != nil && !IsPlatformUserID(*r.PlatformUserID) {
		errs.Add("platformUserId", "must be a platform user id (digits)")
	}
	if r.Note != nil {
		CheckText(&errs, "note", *r.Note, MaxCommandNote)
	}
	return r, errs.Err()
}

// Digest is what an Idempotency-Key remembers of a request: the same key
// with another digest is a conflict. Defaults are filled first (Check), so
// a request that spells a default out is the same request.
func (r CommandRequest) Digest() [32]byte {
	b, _ := json.Marshal(r)
	return sha256.Sum256(b)
}

func blankToNil(s *string) *string {
	if s == nil || *s == "" {
		return nil
	}
	return s
}

// MaxJobID bounds a server job id (the platform's are UUIDs).
const MaxJobID = 100

func checkJobID(errs *ValidationError, field, s string) {
	if s == "" || len(s) > MaxJobID || HasUnsafeRune(s) || !utf8.ValidString(s) {
		errs.Add(field, "must be 1 to %d printable characters", MaxJobID)
	}
}

// IsPlatformUserID reports whether s looks like a platform user id: a
// positive integer of at most 20 digits.
func IsPlatformUserID(s string) bool {
	return isPositiveInteger(s)
}

// IsUniverseID reports whether s is a platform universe id: a positive
// integer (as a string) of at most 20 digits.
func IsUniverseID(s string) bool {
	return isPositiveInteger(s)
}

func isPositiveInteger(s string) bool {
	if s == "" || len(s) > 20 || s[0] == '0' {
		return false
	}
	_, err := strconv.ParseUint(s, 10, 64)
	return err == nil
}

// Command is a remote command as Gatehouse tracks it. Targets counts the
// servers that were live at issue (for UNIVERSE: every one of the
// universe; for SERVER and PLAYER: the one, or none when it failed at
// issue) and what they did with it.
type Command struct {
	ID              uuid.UUID      `json:"id"`
	OrgID           uuid.UUID      `json:"-"`
	Type            CommandType    `json:"type"`
	Status          CommandStatus  `json:"status"`
	FailureReason   *string        `json:"failureReason"`
	Scope           CommandScope   `json:"scope"`
	ServerJobID     *string        `json:"serverJobId"`
	PlatformUserID  *string        `json:"platformUserId"`
	UniverseID      string         `json:"universeId"`
	AccessPoint     NamedRef       `json:"accessPoint"`
	Location        NamedRef       `json:"location"`
	DurationSeconds int            `json:"durationSeconds"`
	Note            *string        `json:"note"`
	IssuedAt        Time           `json:"issuedAt"`
	ExpiresAt       Time           `json:"expiresAt"`
	StatusAt        Time           `json:"statusAt"`
	StartedAt       *Time          `json:"startedAt"`
	RequestedBy     *Requester     `json:"requestedBy"`
	IssuedByKey     *KeyRef        `json:"issuedByKey"`
	Targets         CommandTargets `json:"targets"`
	// Deliveries is set when one command is read (FindCommand).
	Deliveries []Delivery `json:"deliveries,omitempty"`
	// RemainingSeconds is set in a sync answer: how long the server keeps
	// the access point unlocked from now (less than DurationSeconds for a
	// server that joins an unlock already running).
	RemainingSeconds *int `json:"remainingSeconds,omitempty"`
	// Lockdown is, for a LOCKDOWN command, the lockdown as of the
	// command's issue (ReleasedAt nil for a start, set for a release);
	// nil for an UNLOCK.
	Lockdown *Lockdown `json:"lockdown"`
}

// MarshalJSON writes c; a LOCKDOWN command has no access point and no
// duration (null), and its location is the lockdown's, or null.
func (c Command) MarshalJSON() ([]byte, error) {
	type plain Command
	if c.Type != CommandLockdown {
		return json.Marshal(plain(c))
	}
	var loc *NamedRef
	if c.Location.ID != uuid.Nil {
		loc = &c.Location
	}
	return json.Marshal(struct {
		plain
		AccessPoint     *NamedRef `json:"accessPoint"`
		Location        *NamedRef `json:"location"`
		DurationSeconds *int      `json:"durationSeconds"`
	}{plain: plain(c), Location: loc})
}

// KeyRef names the API key that issued a command.
type KeyRef struct {
	ID     uuid.UUID `json:"id"`
	Name   string    `json:"name"`
	Prefix string    `json:"prefix"`
}

// CommandTargets are the k-of-N counts of a command: of the servers live
// at issue, how many received it, applied it and failed it.
type CommandTargets struct {
	Live      int `json:"live"`
	Delivered int `json:"delivered"`
	Executed  int `json:"executed"`
	Failed    int `json:"failed"`
	// Joined counts the servers that started during the unlock and
	// received it; they are not targets.
	Joined int `json:"joined"`
}

// AckResult is what a game server reports of a command it received.
type AckResult string

// The results a server may acknowledge.
const (
	AckExecuted AckResult = "EXECUTED"
	AckFailed   AckResult = "FAILED"
)

// Delivery is one server's copy of a command. Target says whether the
// server was live at issue (and so counts in Targets); a server that
// joined a running unlock has Target false.
type Delivery struct {
	ServerJobID string     `json:"serverJobId"`
	Target      bool       `json:"target"`
	DeliveredAt *Time      `json:"deliveredAt"`
	Result      *AckResult `json:"result"`
	Detail      *string    `json:"detail"`
	AckedAt     *Time      `json:"ackedAt"`
}

// Settle is the one rule of how acknowledgements move a command. Given
// the command with its counts after ack was applied, it returns the
// status the command moves to and the failure reason. Settled statuses
// never move.
//   - A SERVER or PLAYER command settles on its server's answer (a
//     failure keeps the server's message).
//   - A UNIVERSE command settles when every server live at issue
//     answered: FAILED when any failed.
//   - A command that had no live server at issue settles on the first
//     answer of a server that joined.
func Settle(c Command, ack Ack, target bool) (CommandStatus, *string) {
	if c.Status.Settled() {
		return c.Status, c.FailureReason
	}
	t := c.Targets
	switch {
	case t.Live > 0 && t.Executed+t.Failed >= t.Live && t.Failed > 0:
		if c.Scope != ScopeUniverse {
			return CommandFailed, ptr(ack.reason())
		}
		return CommandFailed, ptr(fmt.Sprintf("%d of %d servers failed", t.Failed, t.Live))
	case t.Live > 0 && t.Executed+t.Failed >= t.Live:
		return CommandExecuted, nil
	case t.Live == 0 && !target && ack.Result == AckFailed:
		return CommandFailed, ptr(ack.reason())
	case t.Live == 0 && !target:
		return CommandExecuted, nil
	}
	return c.Status, c.FailureReason
}

// Expire is the status a command that is not settled at its deadline
// takes: FAILED when a server live at issue reported failure, EXPIRED
// otherwise.
func Expire(c Command) (CommandStatus, *string) {
	if c.Targets.Failed > 0 {
		return CommandFailed, ptr(fmt.Sprintf("%d of %d servers failed", c.Targets.Failed, c.Targets.Live))
	}
	return CommandExpired, nil
}

func ptr[T any](v T) *T { return &v }

// UnlockEndsAt is when an unlock ends on every server: its duration from
// the first delivery, or (not delivered yet) from now.
func (c Command) UnlockEndsAt(now time.Time) time.Time {
	start := now
	if c.StartedAt != nil {
		start = time.Time(*c.StartedAt)
	}
	return start.Add(time.Duration(c.DurationSeconds) * time.Second)
}

// Remaining is how many whole seconds (at least 1) of the unlock remain
// at now: what a server that receives it now keeps the access point open.
func (c Command) Remaining(now time.Time) int {
	left := c.UnlockEndsAt(now).Sub(now)
	secs := int((left + time.Second - 1) / time.Second)
	return max(secs, 1)
}

// IssuedCommand is a command ready to store: the service has resolved its
// access point, location, universe and targets.
type IssuedCommand struct {
	Command
	// TargetJobIDs are the servers live at issue that must receive it.
	TargetJobIDs []string
	// RequestedByUser and IssuedByKeyID attribute it (one is set).
	RequestedByUser *uuid.UUID
	IssuedByKeyID   *uuid.UUID
	// Idempotency, when set, is remembered with the command.
	Idempotency *IdempotencyKey
}

// IdempotencyKey is an Idempotency-Key header and the digest of the
// request it first came with.
type IdempotencyKey struct {
	Key    string
	Digest [32]byte
	At     time.Time
}
