package gatehouse

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"time"

	"github.com/google/uuid"
)

// AccessPointPolicy is one access point of a universe as game servers
// cache it: where it is and its current policy (nil when it has none, in
// which case a decision for it fails closed: Decide(nil, …)).
type AccessPointPolicy struct {
	AccessPoint NamedRef `json:"accessPoint"`
	Location    NamedRef `json:"location"`
	Policy      *Policy  `json:"policy"`
	// Unreadable, set by a store, says that the current policy (of
	// version Policy.Version) cannot be decoded ([ErrUnreadable]):
	// NewPolicySet lists the access point in the set's Unreadable, not
	// among its AccessPoints.
	Unreadable error `json:"-"`
}

// UnreadablePolicy names an access point of a set whose current policy
// cannot be read: game servers decide for it as for a door they have no
// policy of (their configured fail mode), and replacing its policy (PUT)
// repairs it.
type UnreadablePolicy struct {
	AccessPoint   NamedRef `json:"accessPoint"`
	Location      NamedRef `json:"location"`
	PolicyVersion int64    `json:"policyVersion"`
}

// PolicySet is every policy that applies to one universe: what
// GET /policies?universeId= answers and game servers decide from.
//
// Version is the set's ETag and the policyVersion of sync answers. It
// changes whenever anything in the set does:
//   - a policy;
//   - an access point's name or location;
//   - a location joining or leaving the universe;
//   - once a year, the window of Zones.
type PolicySet struct {
	UniverseID   string              `json:"universeId"`
	Version      string              `json:"version"`
	AccessPoints []AccessPointPolicy `json:"accessPoints"`
	// Zones are the UTC offsets of every zone the policies' schedules
	// name, from January 1 of this year to January 1 of the year after
	// next (ZoneOffsets): a game server has no time-zone database.
	Zones map[string][]ZoneOffset `json:"zones"`
	// Unreadable are the access points whose stored policy cannot be
	// read, left out of AccessPoints so that one bad record does not
	// take the whole set down; empty almost always.
	Unreadable []UnreadablePolicy `json:"unreadable"`
	// Lockdowns are the lockdowns running that cover at least one access
	// point of the set: game servers deny every access point they cover
	// with LOCKDOWN, and end them at until themselves.
	Lockdowns []Lockdown `json:"lockdowns"`
}

// WithLockdowns returns s carrying lockdowns, its Version covering them
// ([LockdownsVersion]).
func (s PolicySet) WithLockdowns(lockdowns []Lockdown) PolicySet {
	if lockdowns == nil {
		lockdowns = []Lockdown{}
	}
	s.Lockdowns, s.Version = lockdowns, LockdownsVersion(s.Version, lockdowns)
	return s
}

// Bounds of what one universe's set may hold, checked when a change would
// grow it (a policy, an access point created in or moved into one of its
// locations, a location joining it): a set is read by every game server
// of the universe and encoded whole, so it must stay a few megabytes. A
// universe already past a bound (made before it) is served and may
// shrink; it may not grow.
const (
	MaxUniverseAccessPoints = 1000
	// MaxUniversePolicyBytes bounds the stored policies (PolicyBody) of a
	// universe's access points together: sixteen of the largest valid
	// policy, or thousands of ordinary ones.
	MaxUniversePolicyBytes = 4 << 20
)

// PolicySetMember is one access point of a universe's set as its version
// sees it: where it is, what it is called, and which policy version it
// has (0: none).
type PolicySetMember struct {
	AccessPoint   NamedRef
	Location      NamedRef
	PolicyVersion int64
}

// PolicySetVersion is the version of the set of universeID whose members
// are members (in the store's order) as of now. It is a digest of their
// ids, names and policy versions, and of the year the window of Zones
// starts. So:
//   - it changes whenever the set's content does: a policy's version
//     names its rules (a store never reuses one), and the zones follow
//     from the rules and that window;
//   - knowing it reads no policy ([PolicyStore.PolicySetMembers]);
//   - every instance computes the same version for the same set, without
//     storing one.
func PolicySetVersion(universeID string, members []PolicySetMember, now time.Time) string {
	from, _ := zoneWindow(now)
	h := sha256.New()
	b := make([]byte, 0, 256)
	b = append(b, "policy set 2\x00"...)
	b = appendField(b, universeID)
	b = binary.BigEndian.AppendUint32(b, uint32(from.Year()))
	h.Write(b)
	for _, m := range members {
		b = append(b[:0], m.AccessPoint.ID[:]...)
		b = appendField(b, m.AccessPoint.Name)
		b = append(b, m.Location.ID[:]...)
		b = appendField(b, m.Location.Name)
		b = binary.BigEndian.AppendUint64(b, uint64(m.PolicyVersion))
		h.Write(b)
	}
	return hex.EncodeToString(h.Sum(nil)[:12])
}

// appendField appends s with its length, so that no two lists of names
// digest alike.
func appendField(b []byte, s string) []byte {
	return append(binary.BigEndian.AppendUint32(b, uint32(len(s))), s...)
}

// NewPolicySet returns the set of a universe's access points (in the
// store's order, by access point id) with the zones of their schedules
// as of now (see zoneWindow), read from zones (nil: [ZoneOffsets]), and
// its Version ([PolicySetVersion]).
func NewPolicySet(universeID string, aps []AccessPointPolicy, now time.Time, zones ZoneSource) PolicySet {
	readable := make([]AccessPointPolicy, 0, len(aps))
	unreadable := []UnreadablePolicy{}
	members := make([]PolicySetMember, len(aps))
	for i, ap := range aps {
		members[i] = PolicySetMember{AccessPoint: ap.AccessPoint, Location: ap.Location}
		if ap.Policy != nil {
			members[i].PolicyVersion = ap.Policy.Version
		}
		if ap.Unreadable != nil {
			unreadable = append(unreadable, UnreadablePolicy{AccessPoint: ap.AccessPoint, Location: ap.Location, PolicyVersion: ap.Policy.Version})
			continue
		}
		readable = append(readable, ap)
	}
	aps = readable
	return PolicySet{UniverseID: universeID, Version: PolicySetVersion(universeID, members, now), AccessPoints: aps,
		Zones: policyZones(aps, now, zones), Unreadable: unreadable, Lockdowns: []Lockdown{}}
}

// PolicyBody is the rules of p without its version and time, as stores
// keep them and compare them: two policies with the same body decide
// alike, so storing one again makes no new version.
func PolicyBody(p Policy) []byte {
	p.Version, p.UpdatedAt = 0, nil
	body, err := json.Marshal(p)
	if err != nil {
		panic(err) // policies are plain data: this cannot fail
	}
	return body
}

// DecisionContext is what deciding for one access point needs, read at
// once ([PolicyStore.FindDecisionContext]).
type DecisionContext struct {
	AccessPoint NamedRef
	Location    NamedRef
	// UniverseID is the location's universe, "" when it has none.
	UniverseID string
	// Policy is the current policy, nil when the access point has none.
	Policy *Policy
	// Unlocks are the access point's remote unlocks active at the instant
	// asked ([Command.ActiveUnlock]).
	Unlocks []ActiveUnlock
	// Lockdowns are the lockdowns covering the access point that run at
	// the instant asked, or ran then (a decision explained at an earlier
	// instant sees the lockdown of that instant).
	Lockdowns []ActiveSpan
	// Grants are the grants of the access point (directly or through its
	// location) running at the instant asked, of the player asked about.
	Grants []ActiveGrant
}

// UnlockLookback bounds how long ago a command still active can have
// been issued: it may wait its whole ttl, then run its whole duration.
// Stores read only commands issued after now minus this.
const UnlockLookback = (MaxCommandTTL + MaxUnlockSeconds) * time.Second

// ActiveUnlock returns the command as the evaluator sees it at now, and
// whether it counts. A command counts when it is an UNLOCK:
//   - issued at or before now (now may be an instant in the past);
//   - PENDING or DELIVERED and not expired, or EXECUTED;
//   - whose unlock has not ended at now: its duration runs from its first
//     delivery, or from now when no server has it yet, since the operator
//     asked for the door to be open now.
//
// CANCELLED, FAILED and EXPIRED commands open nothing.
func (c Command) ActiveUnlock(now time.Time) (ActiveUnlock, bool) {
	if c.Type != CommandUnlock || now.Before(time.Time(c.IssuedAt)) {
		return ActiveUnlock{}, false
	}
	switch c.Status {
	case CommandPending, CommandDelivered:
		if !now.Before(time.Time(c.ExpiresAt)) && c.StartedAt == nil {
			return ActiveUnlock{}, false
		}
	case CommandExecuted:
	default:
		return ActiveUnlock{}, false
	}
	end := c.UnlockEndsAt(now)
	if !now.Before(end) {
		return ActiveUnlock{}, false
	}
	u := ActiveUnlock{Scope: c.Scope, From: c.IssuedAt, Until: Time(end)}
	if c.ServerJobID != nil {
		u.ServerJobID = *c.ServerJobID
	}
	if c.PlatformUserID != nil {
		u.PlatformUserID = *c.PlatformUserID
	}
	return u, true
}

// DecisionRequest is a decision asked of Gatehouse (POST /decisions, the
// dashboard's test form, `gatehouse decide`).
type DecisionRequest struct {
	AccessPointID uuid.UUID `json:"accessPointId"`
	DecisionInput
	// PlatformUserName is the player's display name, recorded with the
	// event (Record); it decides nothing.
	PlatformUserName string `json:"platformUserName,omitempty"`
	// Record stores the decision as an ACCESS_GRANTED or ACCESS_DENIED
	// event in the same call.
	Record bool `json:"record"`
	// At decides at another instant, as things stood then (an
	// explanation: "why was this attempt denied?"): by the policy version
	// in force then, the unlocks issued by then, the lockdowns and grants
	// running then; nil is now. A recorded decision is always now.
	At *Time `json:"at,omitempty"`
	// CurrentPolicy decides at At by the current policy instead of the
	// version in force then: a test of the rules as they are now ("would
	// this player pass at 23:30?"), as the dashboard's test form and
	// decide --current-policy ask. Only with At.
	CurrentPolicy bool `json:"currentPolicy,omitempty"`
}

// DecisionResult is a decision with what it was made from.
type DecisionResult struct {
	Decision
	// PolicyVersion is the version of the policy that decided, nil when
	// the access point has none (the decision then fails closed).
	PolicyVersion *int64 `json:"policyVersion"`
	// EventID is the recorded event's id, nil when not recorded.
	EventID     *uuid.UUID `json:"eventId"`
	AccessPoint NamedRef   `json:"accessPoint"`
	Location    NamedRef   `json:"location"`
	At          Time       `json:"at"`
}

// Check returns nil or a *ValidationError naming every bad field of r,
// its [DecisionInput] included.
func (r DecisionRequest) Check() error {
	var errs ValidationError
	if r.AccessPointID == uuid.Nil {
		errs.Add("accessPointId", "is required")
	}
	var in *ValidationError
	if err := r.DecisionInput.Check(); errors.As(err, &in) {
		errs.Merge("", in)
	}
	if r.Record && r.At != nil {
		errs.Add("at", "must be absent when record is true: a recorded decision is made now")
	}
	if r.CurrentPolicy && r.At == nil {
		errs.Add("currentPolicy", "needs at: a decision now is by the current policy already")
	}
	if r.At != nil && !errs.Reported("at") {
		if _, err := inRange(time.Time(*r.At)); err != nil {
			errs.Add("at", instantRule, "2026-11-20T23:30:00Z")
		}
	}
	return errs.Err()
}
