package gatehouse

import (
	"strconv"
	"time"
)

// DecisionInput is who asks to pass, as the game server states it, and
// what the caller knows of the access point beyond its policy: the
// lockdowns, remote unlocks and grants that cover it.
type DecisionInput struct {
	PlatformUserID string           `json:"platformUserId"`
	ServerJobID    string           `json:"serverJobId"`
	Attributes     PlayerAttributes `json:"attributes"`
	// Unlocks are the remote unlocks of this access point (the caller
	// picks those of the access point). [Decide] keeps those whose scope
	// covers the player and that run at the instant (From at or before
	// it, Until after it). They are never read from JSON: a request body
	// that could state its own unlock would let any game server open any
	// door.
	Unlocks []ActiveUnlock `json:"-"`
	// Lockdowns are the lockdowns covering this access point (its
	// location's, its universe's, the organization's); Decide keeps
	// those that run at the instant. Never read from JSON either.
	Lockdowns []ActiveSpan `json:"-"`
	// Grants are the timed grants of this access point (the caller picks
	// those of the access point, directly or through its location);
	// Decide keeps the player's that run at the instant. Never read from
	// JSON: a game server cannot grant itself a pass.
	Grants []ActiveGrant `json:"-"`
}

// Bounds of what a game server states about a player: above the
// platform's own limits (100 groups a player, badges and passes shown by
// the game), small enough to keep a decision request a few kilobytes.
const (
	MaxPlayerGroups     = 200
	MaxPlayerGamepasses = 500
	MaxPlayerBadges     = 500
)

// Check returns nil or a *[ValidationError] naming every bad field of what
// a game server states: the player's id and job id, and the attributes'
// ids and ranks (a group's rank is 0 to 255).
func (r DecisionInput) Check() error {
	var errs ValidationError
	if !IsPlatformUserID(r.PlatformUserID) {
		errs.Add("platformUserId", "must be a platform user id (digits)")
	}
	if r.ServerJobID != "" {
		checkJobID(&errs, "serverJobId", r.ServerJobID)
	}
	a := r.Attributes
	if len(a.Groups) > MaxPlayerGroups {
		errs.Add("attributes.groups", "must hold at most %d groups", MaxPlayerGroups)
	}
	for id, rank := range a.Groups {
		if !isPositiveInteger(id) {
			errs.Add("attributes.groups", "keys must be group ids (positive integers)")
		} else if rank < 0 || rank > MaxGroupRank {
			errs.Add("attributes.groups."+id, "must be a rank between 0 and %d", MaxGroupRank)
		}
	}
	checkIDs(&errs, "attributes.gamepasses", a.Gamepasses, MaxPlayerGamepasses)
	checkIDs(&errs, "attributes.badges", a.Badges, MaxPlayerBadges)
	return errs.Err()
}

func checkIDs(errs *ValidationError, field string, ids []string, most int) {
	if len(ids) > most {
		errs.Add(field, "must hold at most %d ids", most)
		return
	}
	for i, id := range ids {
		if !isPositiveInteger(id) {
			errs.Add(field+"["+strconv.Itoa(i)+"]", "must be a positive integer")
		}
	}
}

// PlayerAttributes are what the game server knows of a player: the
// groups they belong to with their rank, the gamepasses and badges they
// own, and whether they have Premium.
type PlayerAttributes struct {
	Groups     map[string]int `json:"groups"`
	Gamepasses []string       `json:"gamepasses"`
	Badges     []string       `json:"badges"`
	Premium    bool           `json:"premium"`
}

// ActiveUnlock is a remote unlock as the evaluator sees it: whom it
// covers, and when: from its issue (inclusive; zero is "since ever") until
// its end (exclusive). A decision about an instant before From does not
// count it: an unlock issued today does not explain yesterday's attempt.
type ActiveUnlock struct {
	Scope          CommandScope `json:"scope"`
	ServerJobID    string       `json:"serverJobId,omitempty"`
	PlatformUserID string       `json:"platformUserId,omitempty"`
	From           Time         `json:"from,omitzero"`
	Until          Time         `json:"until"`
}

// ActiveSpan is a lockdown as the evaluator sees it: from its start
// (inclusive; zero is "since ever") until its end (exclusive; zero is
// "until released"). A lockdown released early ends at its release.
type ActiveSpan struct {
	From  Time `json:"from,omitzero"`
	Until Time `json:"until,omitzero"`
}

// covers reports whether the span runs at the instant.
func (s ActiveSpan) covers(at time.Time) bool {
	if !time.Time(s.From).IsZero() && time.Time(s.From).After(at) {
		return false
	}
	return time.Time(s.Until).IsZero() || time.Time(s.Until).After(at)
}

// ActiveGrant is a timed grant as the evaluator sees it: whose it is and
// when it runs, from (inclusive) until (exclusive). A revoked grant ends
// at its revocation.
type ActiveGrant struct {
	PlatformUserID string `json:"platformUserId"`
	From           Time   `json:"from"`
	Until          Time   `json:"until"`
}

// Decision is the evaluator's answer: the outcome, the reason (one of
// DecisionReasons) and the rule that decided, e.g. "allow[1]", "deny[0]",
// "schedule.windows[2]", "mode", "remoteUnlock".
type Decision struct {
	Allowed Outcome `json:"allowed"`
	Reason  string  `json:"reason"`
	Rule    string  `json:"rule"`
}

// The rule names a decision gives that are not a list entry.
const (
	RuleLockdown     = "lockdown"
	RuleRemoteUnlock = "remoteUnlock"
	RuleGrant        = "grant"
	RuleMode         = "mode"
	RuleSchedule     = "schedule" // outside every window, or always in schedule (no schedule)
	RuleAllow        = "allow"    // no allow rule matched
	RuleFailMode     = "failMode"
)
