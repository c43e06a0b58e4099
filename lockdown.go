package gatehouse

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"slices"
	"time"

	"github.com/google/uuid"
)

// LockdownScope is what a lockdown covers.
type LockdownScope string

// The scopes of a lockdown:
//   - ORGANIZATION covers every access point of the organization;
//   - UNIVERSE every access point whose location names the universe;
//   - LOCATION every access point of the location.
const (
	LockdownOrganization LockdownScope = "ORGANIZATION"
	LockdownUniverse     LockdownScope = "UNIVERSE"
	LockdownLocation     LockdownScope = "LOCATION"
)

// LockdownScopes lists the scopes in documentation order.
var LockdownScopes = []LockdownScope{LockdownOrganization, LockdownUniverse, LockdownLocation}

// CommandLockdown is the command that tells a universe's servers of a
// lockdown started or released (docs/api.md, "Lockdowns"). It is issued
// only by POST /lockdowns and its release: POST /commands refuses it.
const CommandLockdown CommandType = "LOCKDOWN"

// Bounds of a lockdown (docs/decisions.md, "Lockdown").
const (
	MaxLockdownReason = 200
	// MaxLockdownFor bounds how far in the future a lockdown's until may
	// be: a lockdown is an incident's tool, and one that should last
	// longer is a policy (a door's LOCKED mode). One without until runs
	// until released.
	MaxLockdownFor = 30 * 24 * time.Hour
	// LockdownCommandTTL is how long a LOCKDOWN command waits for the
	// servers live at its issue to answer before it expires; a server
	// that misses it learns of the lockdown from the policy set.
	LockdownCommandTTL = 5 * time.Minute
)

// LockdownRequest is the body of POST /lockdowns.
type LockdownRequest struct {
	Scope      LockdownScope `json:"scope"`
	UniverseID *string       `json:"universeId"`
	LocationID *uuid.UUID    `json:"locationId"`
	Reason     string        `json:"reason"`
	Until      *Time         `json:"until"`
}

// Check returns r with blank fields cleared, or a *[ValidationError]
// naming every bad field: the scope and the one target it needs (a
// universe id for UNIVERSE, a location id for LOCATION, neither for
// ORGANIZATION), a reason of 1 to [MaxLockdownReason] characters, and an
// until after now and at most [MaxLockdownFor] after it.
func (r LockdownRequest) Check(now time.Time) (LockdownRequest, error) {
	var errs ValidationError
	r.UniverseID = blankToNil(r.UniverseID)
	if r.LocationID != nil && *r.LocationID == uuid.Nil {
		r.LocationID = nil
	}
	if !slices.Contains(LockdownScopes, r.Scope) {
		errs.Add("scope", "must be one of ORGANIZATION, UNIVERSE, LOCATION")
	}
	switch r.Scope {
	case LockdownUniverse:
		if r.UniverseID == nil {
			errs.Add("universeId", "is required when scope is UNIVERSE")
		} else if !IsUniverseID(*r.UniverseID) {
			errs.Add("universeId", "must be a platform universe id (digits)")
		}
	case LockdownLocation:
		if r.LocationID == nil {
			errs.Add("locationId", "is required when scope is LOCATION")
		}
	}
	if r.Scope != LockdownUniverse && r.UniverseID != nil {
		errs.Add("universeId", "must be empty unless scope is UNIVERSE")
	}
	if r.Scope != LockdownLocation && r.LocationID != nil {
		errs.Add("locationId", "must be empty unless scope is LOCATION")
	}
	if r.Reason == "" {
		errs.Add("reason", "is required")
	} else {
		CheckText(&errs, "reason", r.Reason, MaxLockdownReason)
	}
	if r.Until != nil {
		u := time.Time(*r.Until)
		switch {
		case !u.After(now):
			errs.Add("until", "must be in the future")
		case u.Sub(now) > MaxLockdownFor:
			errs.Add("until", "must be at most %d days from now", int(MaxLockdownFor/(24*time.Hour)))
		}
	}
	return r, errs.Err()
}

// Lockdown is a lockdown as Gatehouse answers it (API, webhooks, sync,
// policy sets). It runs from StartedAt (inclusive) to the earlier of
// Until and ReleasedAt (exclusive); with neither, until released.
type Lockdown struct {
	ID          uuid.UUID      `json:"id"`
	OrgID       uuid.UUID      `json:"-"`
	Scope       LockdownScope  `json:"scope"`
	UniverseID  *string        `json:"universeId"`
	LocationID  *uuid.UUID     `json:"locationId"`
	Location    *NamedRef      `json:"location"`
	Reason      string         `json:"reason"`
	StartedAt   Time           `json:"startedAt"`
	Until       *Time          `json:"until"`
	ReleasedAt  *Time          `json:"releasedAt"`
	Active      bool           `json:"active"`
	RequestedBy *Requester     `json:"requestedBy"`
	IssuedByKey *KeyRef        `json:"issuedByKey"`
	ReleasedBy  *LockdownActor `json:"releasedBy"`
	Targets     CommandTargets `json:"targets"`
}

// LockdownActor is who released a lockdown: a dashboard user, an API
// key, or the system (its until came).
type LockdownActor struct {
	Type   ActorType  `json:"type"`
	ID     *uuid.UUID `json:"id,omitempty"`
	Email  string     `json:"email,omitempty"`
	Name   string     `json:"name,omitempty"`
	Prefix string     `json:"prefix,omitempty"`
}

// Ends is when the lockdown stops running: the earlier of Until and
// ReleasedAt, nil while neither is set.
func (l Lockdown) Ends() *time.Time {
	var end *time.Time
	for _, t := range []*Time{l.Until, l.ReleasedAt} {
		if t != nil && (end == nil || time.Time(*t).Before(*end)) {
			e := time.Time(*t)
			end = &e
		}
	}
	return end
}

// RunsAt reports whether the lockdown runs at the instant at.
func (l Lockdown) RunsAt(at time.Time) bool {
	if at.Before(time.Time(l.StartedAt)) {
		return false
	}
	end := l.Ends()
	return end == nil || at.Before(*end)
}

// Span is the lockdown as the evaluator sees it.
func (l Lockdown) Span() ActiveSpan {
	s := ActiveSpan{From: l.StartedAt}
	if end := l.Ends(); end != nil {
		s.Until = Time(*end)
	}
	return s
}

// WithActive returns l with Active set as of now.
func (l Lockdown) WithActive(now time.Time) Lockdown {
	l.Active = l.RunsAt(now)
	return l
}

// Covers reports whether l covers an access point of the location
// locationID, whose universe is universeID ("" for none).
func (l Lockdown) Covers(locationID uuid.UUID, universeID string) bool {
	switch l.Scope {
	case LockdownOrganization:
		return true
	case LockdownUniverse:
		return l.UniverseID != nil && universeID != "" && *l.UniverseID == universeID
	case LockdownLocation:
		return l.LocationID != nil && *l.LocationID == locationID
	}
	return false
}

// NewLockdown is a lockdown ready to store: the service has resolved its
// location and the LOCKDOWN commands that tell live servers of it.
type NewLockdown struct {
	Lockdown
	// Commands are its start commands, one per universe it covers.
	Commands []IssuedCommand
	// RequestedByUser and IssuedByKeyID attribute it (one is set).
	RequestedByUser *uuid.UUID
	IssuedByKeyID   *uuid.UUID
}

// LockdownRelease is a release asked of a store.
type LockdownRelease struct {
	At time.Time
	By LockdownActor
	// Commands are its release commands, one per universe it covers.
	Commands []IssuedCommand
}

// LockdownFilter selects lockdowns of one organization, newest first.
type LockdownFilter struct {
	// Active keeps those running at Now.
	Active bool
	Now    time.Time
	// Within, when not nil, keeps the lockdowns that cover one of those
	// locations: the whole organization's, a universe's that one of
	// them names, and theirs. The actor's reach (set by the service).
	Within Reach
	Limit  int
	After  *LockdownKey
}

// LockdownKey is a lockdown's position in the list order: startedAt
// descending, then id descending.
type LockdownKey struct {
	StartedAt time.Time
	ID        uuid.UUID
}

// Key returns the lockdown's position in the list order.
func (l Lockdown) Key() LockdownKey {
	return LockdownKey{StartedAt: time.Time(l.StartedAt), ID: l.ID}
}

// LockdownPage is one page of lockdowns; Next is set when more follow.
type LockdownPage struct {
	Lockdowns []Lockdown
	Next      *LockdownKey
}

// LockdownChange is one start or release of a lockdown, in the order of
// the lockdown.updated feed of webhooks.
type LockdownChange struct {
	ID       uuid.UUID
	Released bool
	Position FeedPosition
}

// LockdownsVersion folds the lockdowns a policy set carries into the
// set's version: the set's version without them, unchanged when there
// are none, so that a set no lockdown touches keeps its version.
func LockdownsVersion(version string, lockdowns []Lockdown) string {
	if len(lockdowns) == 0 {
		return version
	}
	h := sha256.New()
	b := make([]byte, 0, 128)
	b = append(b, "lockdowns 1\x00"...)
	b = appendField(b, version)
	h.Write(b)
	for _, l := range lockdowns {
		b = append(b[:0], l.ID[:]...)
		var until int64
		if end := l.Ends(); end != nil {
			until = end.UnixMilli()
		}
		b = binary.BigEndian.AppendUint64(b, uint64(until))
		h.Write(b)
	}
	return hex.EncodeToString(h.Sum(nil)[:12])
}

// EndUnlockSeconds is the duration an unlock started at started keeps
// when a lockdown starting at at ends it: the whole seconds it had run,
// rounded up (at least 0), so that it ends within a second of the
// lockdown's start and never runs again after the lockdown's release.
func EndUnlockSeconds(started, at time.Time) int {
	d := at.Sub(started)
	if d <= 0 {
		return 0
	}
	return int((d + time.Second - 1) / time.Second)
}

// CommandLockdownOf decodes the lockdown a store keeps with a LOCKDOWN
// command (its JSON as of the command's issue); "" is none (an UNLOCK).
func CommandLockdownOf(stored string) (*Lockdown, error) {
	if stored == "" {
		return nil, nil
	}
	var l Lockdown
	if err := json.Unmarshal([]byte(stored), &l); err != nil {
		return nil, fmt.Errorf("a LOCKDOWN command's lockdown: %w: %w", ErrUnreadable, err)
	}
	return &l, nil
}
