package cli

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/gatehouse/gatehouse"
)

// How policy show and decide print policies and rules for people; --json
// prints the API's Policy and DecisionResult instead. Every entry is
// labelled with the rule name a decision gives (allow[1],
// schedule.windows[0]), so that what decide names can be found in what
// policy show prints.

// printPolicy writes policy show's human form.
func printPolicy(w io.Writer, apID string, p gatehouse.Policy) {
	updated := ""
	if p.UpdatedAt != nil {
		updated = ", set " + gatehouse.FormatTime(time.Time(*p.UpdatedAt))
	}
	fmt.Fprintf(w, "policy version %d of access point %s%s\n", p.Version, apID, updated)
	fmt.Fprintf(w, "mode       %s%s\n", p.Mode, map[gatehouse.PolicyMode]string{
		gatehouse.ModeOpen:   " (everyone not denied passes, whatever the schedule and the allow list)",
		gatehouse.ModeLocked: " (nobody passes but a remote unlock)",
	}[p.Mode])
	fmt.Fprintf(w, "fail mode  %s (what a game server does while it cannot obtain the policy)\n", p.FailMode)
	const entry = "  %-24s %s\n"
	if s := p.Schedule; s == nil {
		fmt.Fprintln(w, "schedule   none: always in schedule")
	} else {
		fmt.Fprintf(w, "schedule   %s\n", s.TimeZone)
		if len(s.Windows) == 0 {
			fmt.Fprintln(w, "  no weekly window: shut but on the special hours of its exceptions")
		}
		for i, win := range s.Windows {
			fmt.Fprintf(w, entry, fmt.Sprintf("schedule.windows[%d]", i), windowText(win))
		}
		for i, e := range s.Exceptions {
			fmt.Fprintf(w, entry, fmt.Sprintf("schedule.exceptions[%d]", i), exceptionText(e))
		}
	}
	if len(p.Allow) == 0 {
		fmt.Fprintln(w, "allow      none: everyone in schedule passes")
	} else {
		fmt.Fprintln(w, "allow")
	}
	for i, r := range p.Allow {
		fmt.Fprintf(w, entry, fmt.Sprintf("allow[%d]", i), r.Describe())
	}
	if len(p.Deny) == 0 {
		fmt.Fprintln(w, "deny       none")
	} else {
		fmt.Fprintln(w, "deny")
	}
	for i, r := range p.Deny {
		fmt.Fprintf(w, entry, fmt.Sprintf("deny[%d]", i), denyText(r))
	}
}

// dayList names a window's days, Monday first, a run of three or more as
// a range: MON–FRI, SAT, SUN, every day.
func dayList(days []string) string {
	var idx []int
	for _, d := range days {
		if i := slices.Index(gatehouse.Weekdays, d); i >= 0 && !slices.Contains(idx, i) {
			idx = append(idx, i)
		}
	}
	slices.Sort(idx)
	if len(idx) == len(gatehouse.Weekdays) {
		return "every day"
	}
	var parts []string
	for i := 0; i < len(idx); {
		j := i
		for j+1 < len(idx) && idx[j+1] == idx[j]+1 {
			j++
		}
		switch {
		case j-i >= 2:
			parts = append(parts, gatehouse.Weekdays[idx[i]]+"–"+gatehouse.Weekdays[idx[j]])
		default:
			for k := i; k <= j; k++ {
				parts = append(parts, gatehouse.Weekdays[idx[k]])
			}
		}
		i = j + 1
	}
	return strings.Join(parts, ", ")
}

// rangeText is from–to, saying when it ends the next day.
func rangeText(from, to string) string {
	if to != "24:00" && to <= from { // HH:MM compare as text
		return from + "–" + to + " (next day)"
	}
	return from + "–" + to
}

func windowText(w gatehouse.Window) string {
	return dayList(w.Days) + " " + rangeText(w.From, w.To)
}

func exceptionText(e gatehouse.Exception) string {
	if e.Closed {
		return e.Date + " closed"
	}
	var ranges []string
	for _, r := range e.Windows {
		ranges = append(ranges, rangeText(r.From, r.To))
	}
	return e.Date + " only " + strings.Join(ranges, ", ")
}

func denyText(r gatehouse.DenyRule) string {
	if r.Until == nil {
		return "platform user " + r.PlatformUserID + ", for good"
	}
	return "platform user " + r.PlatformUserID + " until " + gatehouse.FormatTime(time.Time(*r.Until))
}

// ruleText explains the rule a decision names, from the policy that
// decided (nil when the access point has none).
func ruleText(p *gatehouse.Policy, rule string) string {
	switch rule {
	case gatehouse.RuleRemoteUnlock:
		return "an active remote unlock covers the player, their server or the universe"
	case gatehouse.RuleGrant:
		return "a running grant of the player covers the access point (gatehouse grant list)"
	case gatehouse.RuleFailMode:
		return "the access point has no policy, and fails closed until one is set (gatehouse policy set)"
	}
	if p == nil {
		return ""
	}
	zone := ""
	if p.Schedule != nil {
		zone = " " + p.Schedule.TimeZone
	}
	var i, j int
	switch {
	case rule == gatehouse.RuleMode && p.Mode == gatehouse.ModeLocked:
		return "the policy is LOCKED: nobody passes but a remote unlock"
	case rule == gatehouse.RuleMode:
		return "the policy is " + string(p.Mode) + ": everyone not denied passes"
	case rule == gatehouse.RuleSchedule && p.Schedule == nil:
		return "no schedule: always in schedule"
	case rule == gatehouse.RuleSchedule:
		return "outside every window of the schedule (" + p.Schedule.TimeZone + ")"
	case rule == gatehouse.RuleAllow:
		return fmt.Sprintf("no allow rule matches the player (of %d)", len(p.Allow))
	case scan(rule, "allow[%d]", &i) && i < len(p.Allow):
		return p.Allow[i].Describe()
	case scan(rule, "deny[%d]", &i) && i < len(p.Deny):
		return denyText(p.Deny[i])
	case p.Schedule == nil:
		return ""
	case scan(rule, "schedule.windows[%d]", &i) && i < len(p.Schedule.Windows):
		return windowText(p.Schedule.Windows[i]) + zone
	case scan(rule, "schedule.exceptions[%d].windows[%d]", &i, &j) && i < len(p.Schedule.Exceptions) && j < len(p.Schedule.Exceptions[i].Windows):
		e := p.Schedule.Exceptions[i]
		return e.Date + " " + rangeText(e.Windows[j].From, e.Windows[j].To) + zone + " (special hours)"
	case scan(rule, "schedule.exceptions[%d]", &i) && i < len(p.Schedule.Exceptions):
		return exceptionText(p.Schedule.Exceptions[i]) + zone
	}
	return ""
}

// scan reads a rule name of the given form, exactly.
func scan(rule, format string, args ...*int) bool {
	ptrs := make([]any, len(args))
	for k, a := range args {
		ptrs[k] = a
	}
	n, err := fmt.Sscanf(rule, format, ptrs...)
	return err == nil && n == len(args) && fmt.Sprintf(format, deref(args)...) == rule
}

func deref(args []*int) []any {
	out := make([]any, len(args))
	for k, a := range args {
		out[k] = *a
	}
	return out
}

// localText is the instant as the schedule's zone reads it, e.g.
// "Mon 2026-03-02 19:00 Europe/Berlin"; "" when the policy has no
// schedule.
func localText(p *gatehouse.Policy, at time.Time) string {
	if p == nil || p.Schedule == nil {
		return ""
	}
	loc, err := time.LoadLocation(p.Schedule.TimeZone)
	if err != nil {
		return ""
	}
	return at.In(loc).Format("Mon 2006-01-02 15:04 ") + p.Schedule.TimeZone
}
