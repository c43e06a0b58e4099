package gatehouse

import (
	"fmt"
	"strconv"
	"time"
	_ "time/tzdata" // every IANA zone, whatever the host has installed: a policy decides alike everywhere
)

// PolicyMode is the overall state of an access point's policy.
type PolicyMode string

// The modes of a policy (see docs/api.md, "PUT /access-points/{id}/policy").
const (
	ModeRules  PolicyMode = "RULES"  // the schedule and the allow list decide
	ModeOpen   PolicyMode = "OPEN"   // everyone not denied passes, whatever the schedule
	ModeLocked PolicyMode = "LOCKED" // nobody passes but a remote unlock
)

// PolicyModes lists the policy modes.
var PolicyModes = []PolicyMode{ModeRules, ModeOpen, ModeLocked}

// FailMode says what a game server does for an access point whose policy
// it cannot obtain (see DecideWithoutPolicy).
type FailMode string

// The fail modes.
const (
	FailClosed FailMode = "CLOSED"
	FailOpen   FailMode = "OPEN"
)

// Bounds of a policy: enough for any real door, small enough that a policy
// stays a few hundred kilobytes at most and compiles in a blink.
const (
	MaxPolicyWindows          = 100
	MaxPolicyExceptions       = 366
	MaxPolicyExceptionWindows = 10
	MaxPolicyAllowRules       = 1000
	MaxPolicyDenyRules        = 1000
	MaxTimeZoneName           = 64
	MaxGroupRank              = 255
	// DefaultMinRank is a group rule's minimum rank when none is given:
	// any member (the platform's rank 0 is a non-member).
	DefaultMinRank = 1
)

// Weekdays are the day names a window uses, Monday first; their index is
// not time.Weekday's (see weekdayOf).
var Weekdays = []string{"MON", "TUE", "WED", "THU", "FRI", "SAT", "SUN"}

// Policy is the rules of one access point, as the API takes and answers
// them. Version and UpdatedAt are set by the store.
type Policy struct {
	Mode      PolicyMode  `json:"mode"`
	Schedule  *Schedule   `json:"schedule"`
	Allow     []AllowRule `json:"allow"`
	Deny      []DenyRule  `json:"deny"`
	FailMode  FailMode    `json:"failMode"`
	Version   int64       `json:"version,omitempty"`
	UpdatedAt *Time       `json:"updatedAt,omitempty"`
}

// Schedule is when an access point admits at all, in wall-clock times of
// an IANA time zone. A policy without one is always in schedule.
type Schedule struct {
	TimeZone   string      `json:"timeZone"`
	Windows    []Window    `json:"windows"`
	Exceptions []Exception `json:"exceptions"`
}

// Window is a weekly opening: on each of Days, from From (inclusive) to To
// (exclusive), "HH:MM" between 00:00 and 24:00. A To at or before From
// crosses midnight: the window belongs to the day it starts.
type Window struct {
	Days []string `json:"days"`
	From string   `json:"from"`
	To   string   `json:"to"`
}

// Exception changes one local date: Closed opens no window that starts
// that date; Windows replace the weekly windows that start that date
// (special hours). Exactly one of the two is given.
type Exception struct {
	Date    string      `json:"date"`
	Closed  bool        `json:"closed,omitempty"`
	Windows []TimeRange `json:"windows,omitempty"`
}

// TimeRange is a window of an exception: its date gives the day.
type TimeRange struct {
	From string `json:"from"`
	To   string `json:"to"`
}

// AllowRule admits a player; exactly one of its criteria is set.
// MinRank goes with GroupID only.
type AllowRule struct {
	PlatformUserID string `json:"platformUserId,omitempty"`
	GroupID        string `json:"groupId,omitempty"`
	MinRank        *int   `json:"minRank,omitempty"`
	GamepassID     string `json:"gamepassId,omitempty"`
	BadgeID        string `json:"badgeId,omitempty"`
	Premium        bool   `json:"premium,omitempty"`
}

// Describe says in words whom the rule admits, as the CLI and the
// dashboard explain a decision: "members of group 456 of rank 200 or
// more".
func (r AllowRule) Describe() string {
	switch {
	case r.PlatformUserID != "":
		return "player " + r.PlatformUserID
	case r.GroupID != "":
		rank := DefaultMinRank
		if r.MinRank != nil {
			rank = *r.MinRank
		}
		return fmt.Sprintf("members of group %s of rank %d or more", r.GroupID, rank)
	case r.GamepassID != "":
		return "owners of gamepass " + r.GamepassID
	case r.BadgeID != "":
		return "holders of badge " + r.BadgeID
	case r.Premium:
		return "Premium members"
	}
	return "nobody"
}

// DenyRule keeps a player out, until Until (exclusive) or for good.
type DenyRule struct {
	PlatformUserID string `json:"platformUserId"`
	Until          *Time  `json:"until,omitempty"`
}

// Check returns p with its defaults filled (failMode CLOSED, empty lists
// rather than null, a group rule's minRank), or a *[ValidationError] naming
// every problem at once by its field path, e.g. schedule.windows[1].to.
func (p Policy) Check() (Policy, error) {
	var errs ValidationError
	switch p.Mode {
	case ModeRules, ModeOpen, ModeLocked:
	default:
		errs.Add("mode", "must be one of RULES, OPEN, LOCKED")
	}
	switch p.FailMode {
	case "":
		p.FailMode = FailClosed
	case FailClosed, FailOpen:
	default:
		errs.Add("failMode", "must be CLOSED or OPEN")
	}
	if p.Schedule != nil {
		s := p.Schedule.check(&errs)
		p.Schedule = &s
	}
	p.Allow = checkAllow(&errs, p.Allow)
	p.Deny = checkDeny(&errs, p.Deny)
	return p, errs.Err()
}

func (s Schedule) check(errs *ValidationError) Schedule {
	switch {
	case s.TimeZone == "" || s.TimeZone == "Local" || len(s.TimeZone) > MaxTimeZoneName:
		errs.Add("schedule.timeZone", "must be an IANA time zone such as Europe/Berlin")
	default:
		if _, err := time.LoadLocation(s.TimeZone); err != nil {
			errs.Add("schedule.timeZone", "is not a known IANA time zone")
		}
	}
	if len(s.Windows) > MaxPolicyWindows {
		errs.Add("schedule.windows", "must hold at most %d windows", MaxPolicyWindows)
	}
	windows := make([]Window, len(s.Windows))
	for i, w := range s.Windows {
		field := fmt.Sprintf("schedule.windows[%d]", i)
		seen := [7]bool{}
		if len(w.Days) == 0 {
			errs.Add(field+".days", "must name at least one day")
		}
		for j, d := range w.Days {
			k := dayIndex(d)
			switch {
			case k < 0:
				errs.Add(fmt.Sprintf("%s.days[%d]", field, j), "must be one of MON, TUE, WED, THU, FRI, SAT, SUN")
			case seen[k]:
				errs.Add(fmt.Sprintf("%s.days[%d]", field, j), "repeats %s", d)
			default:
				seen[k] = true
			}
		}
		checkRange(errs, field, w.From, w.To)
		windows[i] = Window{Days: append([]string{}, w.Days...), From: w.From, To: w.To}
	}
	s.Windows = windows
	if len(s.Exceptions) > MaxPolicyExceptions {
		errs.Add("schedule.exceptions", "must hold at most %d exceptions", MaxPolicyExceptions)
	}
	dates := make(map[string]int, len(s.Exceptions))
	exceptions := make([]Exception, len(s.Exceptions))
	for i, e := range s.Exceptions {
		field := fmt.Sprintf("schedule.exceptions[%d]", i)
		if _, err := time.Parse(time.DateOnly, e.Date); err != nil {
			errs.Add(field+".date", "must be a date YYYY-MM-DD")
		} else if j, dup := dates[e.Date]; dup {
			errs.Add(field+".date", "repeats the date of schedule.exceptions[%d]", j)
		} else {
			dates[e.Date] = i
		}
		switch {
		case e.Closed && len(e.Windows) > 0:
			errs.Add(field+".windows", "must be empty when closed is true")
		case !e.Closed && len(e.Windows) == 0:
			errs.Add(field, "must be closed or give windows")
		case len(e.Windows) > MaxPolicyExceptionWindows:
			errs.Add(field+".windows", "must hold at most %d windows", MaxPolicyExceptionWindows)
		}
		for j, r := range e.Windows {
			checkRange(errs, fmt.Sprintf("%s.windows[%d]", field, j), r.From, r.To)
		}
		exceptions[i] = Exception{Date: e.Date, Closed: e.Closed, Windows: append([]TimeRange(nil), e.Windows...)}
	}
	s.Exceptions = exceptions
	return s
}

// checkRange checks a window's bounds: from 00:00 to 23:59, to 00:00 to
// 24:00, and not equal (a window of no time, or of a whole day, is not
// what anyone means by from == to; 00:00–24:00 says a whole day).
func checkRange(errs *ValidationError, field, from, to string) {
	f, okFrom := parseClock(from)
	okFrom = okFrom && f < minutesPerDay
	if !okFrom {
		errs.Add(field+".from", "must be a time HH:MM from 00:00 to 23:59")
	}
	t, okTo := parseClock(to)
	if !okTo {
		errs.Add(field+".to", "must be a time HH:MM from 00:00 to 24:00")
	}
	if okFrom && okTo && f == t {
		errs.Add(field+".to", "must differ from from")
	}
}

const minutesPerDay = 24 * 60

// parseClock reads "HH:MM" (00:00 to 24:00) as minutes since midnight.
func parseClock(s string) (int, bool) {
	if len(s) != 5 || s[2] != ':' || !isDigit(s[0]) || !isDigit(s[1]) || !isDigit(s[3]) || !isDigit(s[4]) {
		return 0, false
	}
	h := int(s[0]-'0')*10 + int(s[1]-'0')
	m := int(s[3]-'0')*10 + int(s[4]-'0')
	if h > 24 || m > 59 || h == 24 && m != 0 {
		return 0, false
	}
	return h*60 + m, true
}

func isDigit(b byte) bool { return b >= '0' && b <= '9' }

// dayIndex is d's position in Weekdays, or -1.
func dayIndex(d string) int {
	for i, w := range Weekdays {
		if w == d {
			return i
		}
	}
	return -1
}

func checkAllow(errs *ValidationError, rules []AllowRule) []AllowRule {
	if len(rules) > MaxPolicyAllowRules {
		errs.Add("allow", "must hold at most %d rules", MaxPolicyAllowRules)
	}
	out := make([]AllowRule, len(rules))
	seen := make(map[string]int, len(rules))
	for i, r := range rules {
		field := fmt.Sprintf("allow[%d]", i)
		kinds := 0
		var key string
		// named counts one kind of rule, given by an id: the id is checked
		// and keys the rule for the check of repeats.
		named := func(name, id string, valid func(string) bool) bool {
			if id == "" {
				return false
			}
			kinds++
			key = name + ":" + id
			if !valid(id) {
				errs.Add(field+"."+name, "must be a positive integer")
			}
			return true
		}
		named("platformUserId", r.PlatformUserID, IsPlatformUserID)
		if named("groupId", r.GroupID, isPositiveInteger) {
			rank := DefaultMinRank
			if r.MinRank != nil {
				rank = *r.MinRank
			}
			r.MinRank = &rank
			if rank < 0 || rank > MaxGroupRank {
				errs.Add(field+".minRank", "must be between 0 and %d", MaxGroupRank)
			}
		} else if r.MinRank != nil {
			errs.Add(field+".minRank", "goes with groupId only")
		}
		named("gamepassId", r.GamepassID, isPositiveInteger)
		named("badgeId", r.BadgeID, isPositiveInteger)
		if r.Premium {
			kinds++
			key = "premium"
		}
		switch {
		case kinds == 0:
			errs.Add(field, "must give one of platformUserId, groupId, gamepassId, badgeId, premium: true")
		case kinds > 1:
			errs.Add(field, "must give only one of platformUserId, groupId, gamepassId, badgeId, premium")
		default:
			if j, dup := seen[key]; dup {
				errs.Add(field, "repeats allow[%d]", j)
			} else {
				seen[key] = i
			}
		}
		out[i] = r
	}
	return out
}

func checkDeny(errs *ValidationError, rules []DenyRule) []DenyRule {
	if len(rules) > MaxPolicyDenyRules {
		errs.Add("deny", "must hold at most %d rules", MaxPolicyDenyRules)
	}
	out := make([]DenyRule, len(rules))
	seen := make(map[string]int, len(rules))
	for i, r := range rules {
		field := "deny[" + strconv.Itoa(i) + "]"
		if !IsPlatformUserID(r.PlatformUserID) {
			errs.Add(field+".platformUserId", "must be a positive integer")
		} else if j, dup := seen[r.PlatformUserID]; dup {
			errs.Add(field+".platformUserId", "repeats deny[%d]", j)
		} else {
			seen[r.PlatformUserID] = i
		}
		if r.Until != nil {
			if _, err := inRange(time.Time(*r.Until)); err != nil {
				errs.Add(field+".until", instantRule, "2026-12-01T00:00:00Z")
			}
		}
		out[i] = r
	}
	return out
}
