package dashboard

import (
	"fmt"
	"maps"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/gatehouse/gatehouse"
)

// The policy editor's form. Its inputs are named by the policy's own
// field paths (schedule.windows[1].to, allow[0].minRank), so that a
// problem the service reports by path lands next to the input it names.
// Every value is kept as a string, so that a wrong one is shown back as
// typed. Without script the form cannot grow rows, so it always shows a
// few blank ones, an Add button re-renders it with more (saving nothing),
// and a row left blank, or marked Remove, is dropped.

// policyForm is the editor as sent, blank and removed rows dropped.
type policyForm struct {
	IfVersion  string // the version edited, 0 for none yet
	Mode       string
	FailMode   string
	TimeZone   string // "" with no windows nor exceptions: no schedule
	Windows    []windowRow
	Exceptions []exceptionRow
	Allow      []allowRow
	Deny       []denyRow
}

type windowRow struct {
	Days     []string
	From, To string
}

type exceptionRow struct {
	Date  string
	Kind  string // "closed" or "hours"
	Hours string // the special hours: "10:00-14:00, 18:00-22:00"
}

type allowRow struct {
	Type    string // platformUserId, groupId, gamepassId, badgeId or premium
	ID      string
	MinRank string // groupId only
}

type denyRow struct {
	PlatformUserID string
	Until          string // in the viewer's zone, as a datetime-local input writes it
}

// allowTypes are the kinds of allow rule, as the select offers them.
var allowTypes = []struct{ Value, Label string }{
	{"platformUserId", "Player (user id)"},
	{"groupId", "Group (id, minimum rank)"},
	{"gamepassId", "Gamepass owner"},
	{"badgeId", "Badge owner"},
	{"premium", "Premium member"},
}

// blankRows is how many empty rows each list shows to fill in; Add gives
// addRows more.
const (
	blankRows = 2
	addRows   = 3
)

// untilLayout is how a datetime-local input writes an instant.
const untilLayout = "2006-01-02T15:04"

// formOfPolicy fills the editor from a stored policy (nil: none yet),
// writing instants in loc.
func formOfPolicy(p *gatehouse.Policy, loc *time.Location) policyForm {
	if p == nil {
		return policyForm{IfVersion: "0", Mode: string(gatehouse.ModeRules), FailMode: string(gatehouse.FailClosed)}
	}
	f := policyForm{IfVersion: strconv.FormatInt(p.Version, 10), Mode: string(p.Mode), FailMode: string(p.FailMode)}
	if s := p.Schedule; s != nil {
		f.TimeZone = s.TimeZone
		for _, w := range s.Windows {
			f.Windows = append(f.Windows, windowRow{Days: w.Days, From: w.From, To: w.To})
		}
		for _, e := range s.Exceptions {
			row := exceptionRow{Date: e.Date, Kind: "closed"}
			if !e.Closed {
				row.Kind = "hours"
				var hours []string
				for _, r := range e.Windows {
					hours = append(hours, r.From+"-"+r.To)
				}
				row.Hours = strings.Join(hours, ", ")
			}
			f.Exceptions = append(f.Exceptions, row)
		}
	}
	for _, a := range p.Allow {
		row := allowRow{}
		switch {
		case a.PlatformUserID != "":
			row.Type, row.ID = "platformUserId", a.PlatformUserID
		case a.GroupID != "":
			row.Type, row.ID = "groupId", a.GroupID
			if a.MinRank != nil {
				row.MinRank = strconv.Itoa(*a.MinRank)
			}
		case a.GamepassID != "":
			row.Type, row.ID = "gamepassId", a.GamepassID
		case a.BadgeID != "":
			row.Type, row.ID = "badgeId", a.BadgeID
		case a.Premium:
			row.Type = "premium"
		}
		f.Allow = append(f.Allow, row)
	}
	for _, d := range p.Deny {
		row := denyRow{PlatformUserID: d.PlatformUserID}
		if d.Until != nil {
			row.Until = localInstant(time.Time(*d.Until), loc)
		}
		f.Deny = append(f.Deny, row)
	}
	return f
}

// readPolicyForm reads the posted editor, dropping blank and removed
// rows; the rows kept are numbered afresh, as the policy built from them
// is, so that a problem's path names the row shown.
func readPolicyForm(v url.Values) policyForm {
	f := policyForm{IfVersion: strings.TrimSpace(v.Get("ifVersion")), Mode: v.Get("mode"), FailMode: v.Get("failMode"),
		TimeZone: strings.TrimSpace(v.Get("schedule.timeZone"))}
	rows := func(prefix, probe string, read func(p string)) {
		for _, i := range rowIndexes(v, prefix, probe) {
			p := fmt.Sprintf("%s[%d].", prefix, i)
			if v.Get(p+"remove") == "" {
				read(p)
			}
		}
	}
	rows("schedule.windows", "from", func(p string) {
		w := windowRow{Days: v[p+"days"], From: strings.TrimSpace(v.Get(p + "from")), To: strings.TrimSpace(v.Get(p + "to"))}
		if len(w.Days) > 0 || w.From != "" || w.To != "" {
			f.Windows = append(f.Windows, w)
		}
	})
	rows("schedule.exceptions", "date", func(p string) {
		e := exceptionRow{Date: strings.TrimSpace(v.Get(p + "date")), Kind: v.Get(p + "kind"), Hours: strings.TrimSpace(v.Get(p + "hours"))}
		if e.Date != "" || e.Hours != "" {
			f.Exceptions = append(f.Exceptions, e)
		}
	})
	rows("allow", "type", func(p string) {
		a := allowRow{Type: v.Get(p + "type"), ID: strings.TrimSpace(v.Get(p + "id")), MinRank: strings.TrimSpace(v.Get(p + "minRank"))}
		if a.ID != "" || a.Type == "premium" {
			f.Allow = append(f.Allow, a)
		}
	})
	rows("deny", "platformUserId", func(p string) {
		d := denyRow{PlatformUserID: strings.TrimSpace(v.Get(p + "platformUserId")), Until: strings.TrimSpace(v.Get(p + "until"))}
		if d.PlatformUserID != "" || d.Until != "" {
			f.Deny = append(f.Deny, d)
		}
	})
	return f
}

// rowIndexes are the indexes of the rows of a list the form sent (those
// with an input prefix[i].probe), in order.
func rowIndexes(v url.Values, prefix, probe string) []int {
	var out []int
	for k := range v {
		rest, ok := strings.CutPrefix(k, prefix+"[")
		if !ok {
			continue
		}
		n, tail, ok := strings.Cut(rest, "]")
		i, err := strconv.Atoi(n)
		if ok && err == nil && i >= 0 && tail == "."+probe {
			out = append(out, i)
		}
	}
	slices.Sort(out)
	return out
}

// policy builds the policy the form says, with the problems of the
// fields that do not even read (a rank that is not a number, hours that
// are not ranges, an instant that is no date); Check finds the rest. The
// schedule is absent only when the form names no zone, window nor
// exception.
func (f policyForm) policy(loc *time.Location) (gatehouse.Policy, *int64, *gatehouse.ValidationError) {
	var errs gatehouse.ValidationError
	p := gatehouse.Policy{Mode: gatehouse.PolicyMode(f.Mode), FailMode: gatehouse.FailMode(f.FailMode),
		Allow: []gatehouse.AllowRule{}, Deny: []gatehouse.DenyRule{}}
	var ifVersion *int64
	if n, err := strconv.ParseInt(f.IfVersion, 10, 64); err == nil {
		ifVersion = &n
	} else {
		errs.Add("ifVersion", "must be the version edited; reload the page")
	}
	if f.TimeZone != "" || len(f.Windows) > 0 || len(f.Exceptions) > 0 {
		s := &gatehouse.Schedule{TimeZone: f.TimeZone, Windows: []gatehouse.Window{}, Exceptions: []gatehouse.Exception{}}
		for _, w := range f.Windows {
			s.Windows = append(s.Windows, gatehouse.Window{Days: append([]string{}, w.Days...), From: w.From, To: w.To})
		}
		for i, e := range f.Exceptions {
			ex := gatehouse.Exception{Date: e.Date, Closed: e.Kind != "hours"}
			if !ex.Closed {
				ranges, ok := parseHours(e.Hours)
				if !ok {
					errs.Add(fmt.Sprintf("schedule.exceptions[%d].hours", i), "must be ranges HH:MM-HH:MM separated by commas, e.g. 10:00-14:00, 18:00-22:00")
				}
				ex.Windows = ranges
			}
			s.Exceptions = append(s.Exceptions, ex)
		}
		p.Schedule = s
	}
	for i, a := range f.Allow {
		var rule gatehouse.AllowRule
		switch a.Type {
		case "platformUserId":
			rule.PlatformUserID = a.ID
		case "groupId":
			rule.GroupID = a.ID
			if a.MinRank != "" {
				n, err := strconv.Atoi(a.MinRank)
				if err != nil {
					errs.Add(fmt.Sprintf("allow[%d].minRank", i), "must be a whole number from 0 to %d", gatehouse.MaxGroupRank)
				}
				rule.MinRank = &n
			}
		case "gamepassId":
			rule.GamepassID = a.ID
		case "badgeId":
			rule.BadgeID = a.ID
		case "premium":
			rule.Premium = true
		default:
			errs.Add(fmt.Sprintf("allow[%d].type", i), "must be one of the kinds offered")
		}
		p.Allow = append(p.Allow, rule)
	}
	for i, d := range f.Deny {
		rule := gatehouse.DenyRule{PlatformUserID: d.PlatformUserID}
		if d.Until != "" {
			t, ok := readInstant(d.Until, loc)
			if !ok {
				errs.Add(fmt.Sprintf("deny[%d].until", i), "must be a date and time, e.g. 2026-12-31T18:00")
			} else {
				gt := gatehouse.Time(t)
				rule.Until = &gt
			}
		}
		p.Deny = append(p.Deny, rule)
	}
	return p, ifVersion, &errs
}

// parseHours reads "10:00-14:00, 18:00-22:00" (an en dash too) as
// ranges; the times themselves are Check's to judge.
func parseHours(s string) ([]gatehouse.TimeRange, bool) {
	var out []gatehouse.TimeRange
	if strings.TrimSpace(s) == "" {
		return nil, true
	}
	for part := range strings.SplitSeq(s, ",") {
		from, to, ok := strings.Cut(strings.ReplaceAll(part, "–", "-"), "-")
		if !ok {
			return out, false
		}
		out = append(out, gatehouse.TimeRange{From: strings.TrimSpace(from), To: strings.TrimSpace(to)})
	}
	return out, true
}

// localInstant writes t in loc as a datetime-local input shows it: to
// the minute, or to the second or millisecond when t has them, so that
// saving the form unchanged keeps the instant.
func localInstant(t time.Time, loc *time.Location) string {
	t = t.In(loc)
	switch {
	case t.Nanosecond() != 0:
		return t.Format("2006-01-02T15:04:05.000")
	case t.Second() != 0:
		return t.Format("2006-01-02T15:04:05")
	}
	return t.Format(untilLayout)
}

// readInstant reads an instant as a datetime-local input writes it (to
// the minute or the second), in loc, or as RFC 3339.
func readInstant(s string, loc *time.Location) (time.Time, bool) {
	for _, layout := range []string{untilLayout, "2006-01-02T15:04:05"} {
		if t, err := time.ParseInLocation(layout, s, loc); err == nil {
			return t, true
		}
	}
	t, err := gatehouse.ParseTime(s)
	return t, err == nil
}

// withBlanks returns f with n blank rows after each list's rows (more
// where add names the list), for the editor to show.
func (f policyForm) withBlanks(add string) policyForm {
	n := func(list string) int {
		if add == list {
			return blankRows + addRows
		}
		return blankRows
	}
	f.Windows = append(slices.Clip(f.Windows), make([]windowRow, n("windows"))...)
	f.Exceptions = append(slices.Clip(f.Exceptions), make([]exceptionRow, n("exceptions"))...)
	f.Allow = append(slices.Clip(f.Allow), make([]allowRow, n("allow"))...)
	f.Deny = append(slices.Clip(f.Deny), make([]denyRow, n("deny"))...)
	return f
}

// fieldIssue is one problem, with the path the service named it by.
type fieldIssue struct{ Path, Message string }

// The paths of problems that the editor shows next to an input other
// than the one of the same name: a window's days, an exception's special
// hours, an allow rule's id (one input for every kind).
var (
	dayPath   = regexp.MustCompile(`^(schedule\.windows\[\d+\]\.days)\[\d+\]$`)
	hoursPath = regexp.MustCompile(`^(schedule\.exceptions\[\d+\])\.windows(\[\d+\].*)?$`)
	idPath    = regexp.MustCompile(`^(allow\[\d+\])\.(platformUserId|groupId|gamepassId|badgeId)$`)
)

// inputOf is the editor's input a problem's path belongs to.
func inputOf(path string) string {
	if m := dayPath.FindStringSubmatch(path); m != nil {
		return m[1]
	}
	if m := hoursPath.FindStringSubmatch(path); m != nil {
		return m[1] + ".hours"
	}
	if m := idPath.FindStringSubmatch(path); m != nil {
		return m[1] + ".id"
	}
	return path
}

// inputs are the names of the editor's inputs and rows that show their
// problems: every other problem is listed above the form.
func (f policyForm) inputs() map[string]bool {
	in := map[string]bool{"mode": true, "failMode": true, "schedule.timeZone": true, "schedule.windows": true,
		"schedule.exceptions": true, "allow": true, "deny": true}
	for i := range f.Windows {
		for _, k := range []string{"", ".days", ".from", ".to"} {
			in[fmt.Sprintf("schedule.windows[%d]%s", i, k)] = true
		}
	}
	for i := range f.Exceptions {
		for _, k := range []string{"", ".date", ".hours"} {
			in[fmt.Sprintf("schedule.exceptions[%d]%s", i, k)] = true
		}
	}
	for i := range f.Allow {
		for _, k := range []string{"", ".type", ".id", ".minRank"} {
			in[fmt.Sprintf("allow[%d]%s", i, k)] = true
		}
	}
	for i := range f.Deny {
		for _, k := range []string{".platformUserId", ".until"} {
			in[fmt.Sprintf("deny[%d]%s", i, k)] = true
		}
	}
	return in
}

// placeIssues sorts the service's problems: by the input they belong to,
// and, for those of no input, in a list for the top of the form.
func placeIssues(ve *gatehouse.ValidationError, inputs map[string]bool) (map[string][]fieldIssue, []fieldIssue) {
	byInput := map[string][]fieldIssue{}
	var others []fieldIssue
	for _, path := range slices.Sorted(maps.Keys(ve.Issues)) {
		for _, m := range ve.Issues[path] {
			in := inputOf(path)
			if inputs[in] {
				byInput[in] = append(byInput[in], fieldIssue{path, m})
			} else {
				others = append(others, fieldIssue{path, m})
			}
		}
	}
	return byInput, others
}
