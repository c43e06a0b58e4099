package gatehouse

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"testing"
	"time"
)

// propertyZones include zones with half-hour offsets and a half-hour
// daylight-saving shift (Lord Howe), where minute arithmetic would show.
var propertyZones = []string{
	"Europe/Berlin", "Australia/Sydney", "America/New_York", "UTC", "Asia/Kolkata",
	"America/St_Johns", "Australia/Lord_Howe", "Pacific/Chatham", "Asia/Tokyo", "America/Santiago",
}

// TestDecideProperties: random valid policies, instants over years and
// inputs never panic, always give one of the contract's reasons, and agree
// with naiveDecide, a slow evaluator written another way.
func TestDecideProperties(t *testing.T) {
	seed := uint64(time.Now().UnixNano())
	rng := rand.New(rand.NewPCG(seed, 15))
	n := 20000
	if testing.Short() {
		n = 2000
	}
	for i := range n {
		p, at, in := randomCase(rng)
		checked, err := p.Check()
		if err != nil {
			t.Fatalf("seed %d case %d: random policy invalid: %v\n%+v", seed, i, err, p)
		}
		c, err := p.Compile()
		if err != nil {
			t.Fatalf("seed %d case %d: compile: %v", seed, i, err)
		}
		got := Decide(c, in, at)
		if !slices.Contains(DecisionReasons, got.Reason) {
			t.Fatalf("seed %d case %d: reason %q is not the contract's", seed, i, got.Reason)
		}
		if got.Allowed != Granted && got.Allowed != Denied {
			t.Fatalf("seed %d case %d: outcome %q", seed, i, got.Allowed)
		}
		if want := naiveDecide(checked, in, at); got != want {
			t.Fatalf("seed %d case %d at %s (%s): Decide %+v, naive %+v\npolicy %+v\nschedule %+v\ninput %+v",
				seed, i, at.Format(time.RFC3339), at.In(c.loc), got, want, checked, checked.Schedule, in)
		}
	}
}

func randomCase(rng *rand.Rand) (Policy, time.Time, DecisionInput) {
	// Instants from 2020 to 2036, to the second.
	start := time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC).Unix()
	at := time.Unix(start+rng.Int64N(16*365*86400), 0).UTC()
	if rng.IntN(4) == 0 {
		at = at.Add(time.Duration(rng.IntN(1000)) * time.Millisecond)
	}
	id := func() string { return strconv.Itoa(1 + rng.IntN(6)) }
	p := Policy{Mode: []PolicyMode{ModeRules, ModeRules, ModeRules, ModeOpen, ModeLocked}[rng.IntN(5)]}
	if rng.IntN(2) == 0 {
		p.FailMode = FailOpen
	}
	if rng.IntN(5) > 0 {
		zone := propertyZones[rng.IntN(len(propertyZones))]
		loc, _ := time.LoadLocation(zone)
		s := &Schedule{TimeZone: zone}
		for range rng.IntN(5) {
			w := Window{From: randomClock(rng, false), To: randomClock(rng, true)}
			for w.To == w.From || w.To == "24:00" && w.From == "00:00" && rng.IntN(2) == 0 {
				w.To = randomClock(rng, true)
			}
			for _, d := range Weekdays {
				if rng.IntN(3) == 0 {
					w.Days = append(w.Days, d)
				}
			}
			if len(w.Days) == 0 {
				w.Days = []string{Weekdays[rng.IntN(7)]}
			}
			s.Windows = append(s.Windows, w)
		}
		at = nearEdges(rng, at, loc, s.Windows)
		// Exceptions on the instant's local date or the day before, so they matter.
		local := at.In(loc)
		used := map[string]bool{}
		for range rng.IntN(3) {
			date := local.AddDate(0, 0, -rng.IntN(2)).Format(time.DateOnly)
			if used[date] {
				continue
			}
			used[date] = true
			e := Exception{Date: date}
			if rng.IntN(2) == 0 {
				e.Closed = true
			} else {
				for range 1 + rng.IntN(2) {
					r := TimeRange{From: randomClock(rng, false), To: randomClock(rng, true)}
					for r.To == r.From {
						r.To = randomClock(rng, true)
					}
					e.Windows = append(e.Windows, r)
				}
			}
			s.Exceptions = append(s.Exceptions, e)
		}
		p.Schedule = s
	}
	seen := map[string]bool{}
	for range rng.IntN(6) {
		var r AllowRule
		var key string
		switch rng.IntN(5) {
		case 0:
			r.PlatformUserID = id()
			key = "u" + r.PlatformUserID
		case 1:
			r.GroupID = id()
			if rng.IntN(4) > 0 {
				rank := []int{0, 1, 100, 200, 254, 255}[rng.IntN(6)]
				r.MinRank = &rank
			}
			key = "g" + r.GroupID
		case 2:
			r.GamepassID = id()
			key = "p" + r.GamepassID
		case 3:
			r.BadgeID = id()
			key = "b" + r.BadgeID
		default:
			r.Premium = true
			key = "premium"
		}
		if !seen[key] {
			seen[key] = true
			p.Allow = append(p.Allow, r)
		}
	}
	denied := map[string]bool{}
	for range rng.IntN(3) {
		r := DenyRule{PlatformUserID: id()}
		if denied[r.PlatformUserID] {
			continue
		}
		denied[r.PlatformUserID] = true
		if rng.IntN(2) == 0 {
			until := Time(at.Add(time.Duration(rng.IntN(5)-2) * time.Second))
			r.Until = &until
		}
		p.Deny = append(p.Deny, r)
	}
	in := DecisionInput{
		PlatformUserID: id(),
		ServerJobID:    "job-" + id(),
		Attributes:     PlayerAttributes{Premium: rng.IntN(2) == 0, Groups: map[string]int{}},
	}
	for range rng.IntN(4) {
		in.Attributes.Groups[id()] = []int{0, 1, 99, 100, 199, 200, 254, 255}[rng.IntN(8)]
	}
	for range rng.IntN(3) {
		in.Attributes.Gamepasses = append(in.Attributes.Gamepasses, id())
	}
	for range rng.IntN(3) {
		in.Attributes.Badges = append(in.Attributes.Badges, id())
	}
	if rng.IntN(4) == 0 {
		u := ActiveUnlock{Scope: CommandScopes[rng.IntN(3)], Until: Time(at.Add(time.Duration(rng.IntN(5)-2) * time.Second))}
		switch u.Scope {
		case ScopeServer:
			u.ServerJobID = "job-" + id()
		case ScopePlayer:
			u.PlatformUserID = id()
		}
		in.Unlocks = append(in.Unlocks, u)
	}
	return p, at, in
}

// nearEdges moves at, often, to where mistakes hide: a second around a
// window's bound on its local date or the next, or within hours of the
// zone's next daylight-saving change.
func nearEdges(rng *rand.Rand, at time.Time, loc *time.Location, windows []Window) time.Time {
	switch rng.IntN(4) {
	case 0:
		if _, end := at.In(loc).ZoneBounds(); !end.IsZero() {
			return end.Add(time.Duration(rng.IntN(6*3600)-3*3600) * time.Second)
		}
	case 1, 2:
		if len(windows) == 0 {
			return at
		}
		w := windows[rng.IntN(len(windows))]
		bound, _ := parseClock([]string{w.From, w.To}[rng.IntN(2)])
		l := at.In(loc)
		edge := time.Date(l.Year(), l.Month(), l.Day()+rng.IntN(2), 0, bound, 0, 0, loc)
		return edge.Add(time.Duration(rng.IntN(3)-1) * time.Second)
	}
	return at
}

// randomClock is a window bound, often on the hours that daylight saving
// moves (00:00 to 04:00), sometimes any minute.
func randomClock(rng *rand.Rand, to bool) string {
	var m int
	switch rng.IntN(3) {
	case 0:
		m = rng.IntN(5*60/30) * 30
	case 1:
		m = rng.IntN(24) * 60
	default:
		m = rng.IntN(minutesPerDay)
	}
	if to && rng.IntN(20) == 0 {
		m = minutesPerDay
	}
	return fmt.Sprintf("%02d:%02d", m/60, m%60)
}

// naiveDecide is the contract's evaluation written as plainly as possible,
// with none of Compile's maps: every rule is a loop, dates are strings,
// and a window is a span of wall-clock time checked with time.Time
// arithmetic on the zone's wall clock (a time.Time in UTC standing for the
// local calendar, so that daylight-saving gaps do not move a bound).
func naiveDecide(p Policy, r DecisionInput, at time.Time) Decision {
	for _, u := range r.Unlocks {
		active := time.Time(u.Until).After(at)
		covers := u.Scope == ScopeUniverse ||
			u.Scope == ScopeServer && u.ServerJobID == r.ServerJobID ||
			u.Scope == ScopePlayer && u.PlatformUserID == r.PlatformUserID
		if active && covers {
			return Decision{Granted, ReasonRemoteUnlock, "remoteUnlock"}
		}
	}
	if p.Mode == ModeLocked {
		return Decision{Denied, ReasonAccessPointDisabled, "mode"}
	}
	for i, d := range p.Deny {
		if d.PlatformUserID == r.PlatformUserID && (d.Until == nil || at.Before(time.Time(*d.Until))) {
			return Decision{Denied, ReasonBlocked, fmt.Sprintf("deny[%d]", i)}
		}
	}
	if p.Mode == ModeOpen {
		return Decision{Granted, ReasonOpen, "mode"}
	}
	window := "schedule"
	if p.Schedule != nil {
		var in bool
		window, in = naiveSchedule(*p.Schedule, at)
		if !in {
			return Decision{Denied, ReasonOutsideSchedule, window}
		}
	}
	if len(p.Allow) == 0 {
		return Decision{Granted, ReasonSchedule, window}
	}
	for i, a := range p.Allow {
		rank, member := r.Attributes.Groups[a.GroupID]
		if a.PlatformUserID != "" && a.PlatformUserID == r.PlatformUserID ||
			a.GroupID != "" && member && rank >= *a.MinRank ||
			a.GamepassID != "" && slices.Contains(r.Attributes.Gamepasses, a.GamepassID) ||
			a.BadgeID != "" && slices.Contains(r.Attributes.Badges, a.BadgeID) ||
			a.Premium && r.Attributes.Premium {
			return Decision{Granted, ReasonAllowlist, fmt.Sprintf("allow[%d]", i)}
		}
	}
	return Decision{Denied, ReasonNotOnAllowlist, "allow"}
}

func naiveSchedule(s Schedule, at time.Time) (string, bool) {
	loc, err := time.LoadLocation(s.TimeZone)
	if err != nil {
		panic(err)
	}
	l := at.In(loc)
	wall := time.Date(l.Year(), l.Month(), l.Day(), l.Hour(), l.Minute(), l.Second(), l.Nanosecond(), time.UTC)
	today := time.Date(l.Year(), l.Month(), l.Day(), 0, 0, 0, 0, time.UTC)
	// Windows that started today are looked at before those of yesterday.
	for _, day := range []time.Time{today, today.AddDate(0, 0, -1)} {
		date := day.Format(time.DateOnly)
		weekday := Weekdays[(int(day.Weekday())+6)%7]
		exception := -1
		for i, e := range s.Exceptions {
			if e.Date == date {
				exception = i
			}
		}
		if exception >= 0 {
			for j, w := range s.Exceptions[exception].Windows {
				if naiveIn(day, w.From, w.To, wall) {
					return fmt.Sprintf("schedule.exceptions[%d].windows[%d]", exception, j), true
				}
			}
			continue
		}
		for i, w := range s.Windows {
			if slices.Contains(w.Days, weekday) && naiveIn(day, w.From, w.To, wall) {
				return fmt.Sprintf("schedule.windows[%d]", i), true
			}
		}
	}
	for i, e := range s.Exceptions {
		if e.Date == today.Format(time.DateOnly) {
			return fmt.Sprintf("schedule.exceptions[%d]", i), false
		}
	}
	return "schedule", false
}

// naiveIn reports whether wall falls in the window from-to that starts on day.
func naiveIn(day time.Time, from, to string, wall time.Time) bool {
	f, _ := time.Parse("15:04", from)
	start := day.Add(time.Duration(f.Hour())*time.Hour + time.Duration(f.Minute())*time.Minute)
	var end time.Time
	if to == "24:00" {
		end = day.AddDate(0, 0, 1)
	} else {
		t, _ := time.Parse("15:04", to)
		end = day.Add(time.Duration(t.Hour())*time.Hour + time.Duration(t.Minute())*time.Minute)
	}
	if !end.After(start) {
		end = end.AddDate(0, 0, 1)
	}
	return !wall.Before(start) && wall.Before(end)
}
