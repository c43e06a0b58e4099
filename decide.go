package gatehouse

import (
	"fmt"
	"strconv"
	"time"
)

// CompiledPolicy is a checked policy made ready to decide: the zone
// loaded, windows as minute ranges per weekday, rules in maps keyed by id,
// and every rule name built once, so that Decide allocates nothing.
type CompiledPolicy struct {
	Policy     Policy
	mode       PolicyMode
	loc        *time.Location // nil: no schedule, always in schedule
	week       [7][]span      // by time.Weekday: the windows that start that day
	exceptions map[int64]exceptionDay
	users      map[string]int // allow index by id
	gamepasses map[string]int
	badges     map[string]int
	groups     []groupRule          // in allow order
	groupByID  map[string]groupRule // the same, by group id
	premium    int                  // allow index of the premium rule, or -1
	allowNames []string
	anyAllow   bool
	deny       map[string]denyRule
}

// span is a window on its starting day: minutes [from, to) since that
// day's midnight; to passes 1440 when the window crosses midnight.
type span struct {
	from, to int
	rule     string
}

type exceptionDay struct {
	rule  string // schedule.exceptions[i]
	spans []span // nil when closed
}

type groupRule struct {
	id      string
	minRank int
	index   int
}

type denyRule struct {
	rule    string
	until   time.Time
	forever bool
}

// Compile checks p and prepares it for Decide. It is done once per policy
// version, not per decision.
func (p Policy) Compile() (*CompiledPolicy, error) {
	p, err := p.Check()
	if err != nil {
		return nil, err
	}
	c := &CompiledPolicy{
		Policy:     p,
		mode:       p.Mode,
		users:      map[string]int{},
		gamepasses: map[string]int{},
		badges:     map[string]int{},
		groupByID:  map[string]groupRule{},
		premium:    -1,
		allowNames: make([]string, len(p.Allow)),
		anyAllow:   len(p.Allow) > 0,
		deny:       make(map[string]denyRule, len(p.Deny)),
	}
	if s := p.Schedule; s != nil {
		if c.loc, err = time.LoadLocation(s.TimeZone); err != nil {
			return nil, Invalid("schedule.timeZone", "is not a known IANA time zone")
		}
		for i, w := range s.Windows {
			sp := makeSpan(w.From, w.To, fmt.Sprintf("schedule.windows[%d]", i))
			for _, d := range w.Days {
				wd := weekdayOf(dayIndex(d))
				c.week[wd] = append(c.week[wd], sp)
			}
		}
		c.exceptions = make(map[int64]exceptionDay, len(s.Exceptions))
		for i, e := range s.Exceptions {
			d, _ := time.Parse(time.DateOnly, e.Date)
			ex := exceptionDay{rule: fmt.Sprintf("schedule.exceptions[%d]", i)}
			for j, r := range e.Windows {
				ex.spans = append(ex.spans, makeSpan(r.From, r.To, fmt.Sprintf("schedule.exceptions[%d].windows[%d]", i, j)))
			}
			c.exceptions[civilDay(d.Date())] = ex
		}
	}
	for i, r := range p.Allow {
		c.allowNames[i] = "allow[" + strconv.Itoa(i) + "]"
		switch {
		case r.PlatformUserID != "":
			c.users[r.PlatformUserID] = i
		case r.GroupID != "":
			g := groupRule{id: r.GroupID, minRank: *r.MinRank, index: i}
			c.groups = append(c.groups, g)
			c.groupByID[g.id] = g
		case r.GamepassID != "":
			c.gamepasses[r.GamepassID] = i
		case r.BadgeID != "":
			c.badges[r.BadgeID] = i
		case r.Premium:
			c.premium = i
		}
	}
	for i, r := range p.Deny {
		d := denyRule{rule: "deny[" + strconv.Itoa(i) + "]", forever: r.Until == nil}
		if r.Until != nil {
			d.until = time.Time(*r.Until)
		}
		c.deny[r.PlatformUserID] = d
	}
	return c, nil
}

func makeSpan(from, to, rule string) span {
	f, _ := parseClock(from)
	t, _ := parseClock(to)
	if t <= f {
		t += minutesPerDay
	}
	return span{from: f, to: t, rule: rule}
}

// weekdayOf turns an index of Weekdays (Monday first) into a time.Weekday.
func weekdayOf(i int) time.Weekday { return time.Weekday((i + 1) % 7) }

// civilDay numbers a calendar date: days since 1970-01-01.
func civilDay(y int, m time.Month, d int) int64 {
	return time.Date(y, m, d, 0, 0, 0, 0, time.UTC).Unix() / 86400
}

// Decide is the one evaluator of the contract. It is pure and allocates
// nothing. The first match wins, in this order:
//  1. a lockdown running at the instant: denied LOCKDOWN;
//  2. an active remote unlock covering the player, their server or the
//     universe: granted REMOTE_UNLOCK;
//  3. LOCKED: denied ACCESS_POINT_DISABLED;
//  4. an unexpired deny rule: denied BLOCKED;
//  5. a grant of the player running at the instant: granted GRANT,
//     whatever the schedule;
//  6. OPEN: granted OPEN;
//  7. outside the schedule: denied OUTSIDE_SCHEDULE;
//  8. an allow rule: granted ALLOWLIST (the lowest index that matches);
//  9. an empty allow list: granted SCHEDULE;
//  10. otherwise: denied NOT_ON_ALLOWLIST.
//
// A nil policy is decided as [DecideWithoutPolicy]([FailClosed], …).
func Decide(p *CompiledPolicy, r DecisionInput, at time.Time) Decision {
	if p == nil {
		return DecideWithoutPolicy(FailClosed, r, at)
	}
	if lockedDown(r, at) {
		return Decision{Denied, ReasonLockdown, RuleLockdown}
	}
	if unlocked(r, at) {
		return Decision{Granted, ReasonRemoteUnlock, RuleRemoteUnlock}
	}
	if p.mode == ModeLocked {
		return Decision{Denied, ReasonAccessPointDisabled, RuleMode}
	}
	if d, ok := p.deny[r.PlatformUserID]; ok && (d.forever || d.until.After(at)) {
		return Decision{Denied, ReasonBlocked, d.rule}
	}
	if granted(r, at) {
		return Decision{Granted, ReasonGrant, RuleGrant}
	}
	if p.mode == ModeOpen {
		return Decision{Granted, ReasonOpen, RuleMode}
	}
	window, in := p.inSchedule(at)
	if !in {
		return Decision{Denied, ReasonOutsideSchedule, window}
	}
	if !p.anyAllow {
		return Decision{Granted, ReasonSchedule, window}
	}
	if i := p.allowed(&r.Attributes, r.PlatformUserID); i >= 0 {
		return Decision{Granted, ReasonAllowlist, p.allowNames[i]}
	}
	return Decision{Denied, ReasonNotOnAllowlist, RuleAllow}
}

// DecideWithoutPolicy decides for an access point whose policy a caller
// cannot obtain (a game server that never reached Gatehouse, or a cache
// that lost it):
//   - a lockdown still denies (LOCKDOWN);
//   - an active remote unlock still lets the player through, and then
//     the player's grant (GRANT): both name this access point, so they
//     need no policy to be understood;
//   - otherwise failMode OPEN grants (reason OPEN), and CLOSED denies
//     (reason ACCESS_POINT_DISABLED), both naming the rule "failMode".
//
// The reasons are the contract's, so a log of such decisions needs no new
// reason.
func DecideWithoutPolicy(failMode FailMode, r DecisionInput, at time.Time) Decision {
	if lockedDown(r, at) {
		return Decision{Denied, ReasonLockdown, RuleLockdown}
	}
	if unlocked(r, at) {
		return Decision{Granted, ReasonRemoteUnlock, RuleRemoteUnlock}
	}
	if granted(r, at) {
		return Decision{Granted, ReasonGrant, RuleGrant}
	}
	if failMode == FailOpen {
		return Decision{Granted, ReasonOpen, RuleFailMode}
	}
	return Decision{Denied, ReasonAccessPointDisabled, RuleFailMode}
}

// unlocked reports whether a remote unlock covers r at the instant: one
// that runs then (from its issue to its end) and whose scope takes in r.
func unlocked(r DecisionInput, at time.Time) bool {
	for i := range r.Unlocks {
		u := &r.Unlocks[i]
		if !u.runs(at) {
			continue
		}
		switch u.Scope {
		case ScopeUniverse:
			return true
		case ScopeServer:
			if u.ServerJobID != "" && u.ServerJobID == r.ServerJobID {
				return true
			}
		case ScopePlayer:
			if u.PlatformUserID != "" && u.PlatformUserID == r.PlatformUserID {
				return true
			}
		}
	}
	return false
}

// lockedDown reports whether a lockdown runs at the instant.
func lockedDown(r DecisionInput, at time.Time) bool {
	for i := range r.Lockdowns {
		if r.Lockdowns[i].covers(at) {
			return true
		}
	}
	return false
}

// granted reports whether a grant of the player runs at the instant: from
// its start (inclusive) to its end (exclusive).
func granted(r DecisionInput, at time.Time) bool {
	for i := range r.Grants {
		g := &r.Grants[i]
		if g.PlatformUserID == r.PlatformUserID && !time.Time(g.From).After(at) && time.Time(g.Until).After(at) {
			return true
		}
	}
	return false
}

// inSchedule reports whether the instant falls in a window, and names the
// window, or, when outside, "schedule" or the exception of the local date.
// A window of the local date is preferred to one carried over from the
// day before.
//
// Times are wall-clock times of the zone:
//   - a window that starts at a time that a spring-forward day skips
//     covers only what remains of it;
//   - the hour a fall-back day repeats is inside a window both times.
func (p *CompiledPolicy) inSchedule(at time.Time) (string, bool) {
	if p.loc == nil {
		return RuleSchedule, true
	}
	local := at.In(p.loc)
	y, mo, d := local.Date()
	h, mi, _ := local.Clock()
	m := h*60 + mi
	day := civilDay(y, mo, d)
	wd := local.Weekday()
	today, ex, hasEx := p.spansOf(day, wd)
	for i := range today {
		if today[i].from <= m && m < today[i].to {
			return today[i].rule, true
		}
	}
	yesterday, _, _ := p.spansOf(day-1, (wd+6)%7)
	for i := range yesterday {
		if yesterday[i].to > minutesPerDay && m < yesterday[i].to-minutesPerDay {
			return yesterday[i].rule, true
		}
	}
	if hasEx {
		return ex, false
	}
	return RuleSchedule, false
}

// spansOf is the windows that start on a date: its exception's, or the
// weekday's.
func (p *CompiledPolicy) spansOf(day int64, wd time.Weekday) ([]span, string, bool) {
	if ex, ok := p.exceptions[day]; ok {
		return ex.spans, ex.rule, true
	}
	return p.week[wd], "", false
}

// allowed is the lowest index of an allow rule matching the player, or -1.
func (p *CompiledPolicy) allowed(a *PlayerAttributes, user string) int {
	best := -1
	take := func(i int) {
		if best < 0 || i < best {
			best = i
		}
	}
	if i, ok := p.users[user]; ok {
		take(i)
	}
	// Walk the shorter of the policy's group rules and the player's groups.
	if len(p.groups) <= len(a.Groups) {
		for _, g := range p.groups {
			if rank, ok := a.Groups[g.id]; ok && rank >= g.minRank {
				take(g.index)
			}
		}
	} else {
		for id, rank := range a.Groups {
			if g, ok := p.groupByID[id]; ok && rank >= g.minRank {
				take(g.index)
			}
		}
	}
	if len(p.gamepasses) > 0 {
		for _, id := range a.Gamepasses {
			if i, ok := p.gamepasses[id]; ok {
				take(i)
			}
		}
	}
	if len(p.badges) > 0 {
		for _, id := range a.Badges {
			if i, ok := p.badges[id]; ok {
				take(i)
			}
		}
	}
	if a.Premium && p.premium >= 0 {
		take(p.premium)
	}
	return best
}
