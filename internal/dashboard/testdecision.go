package dashboard

// The "test a decision" form of the Policy page (policy.go): a decision
// and its explanation for operators and admins, never recorded.

import (
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/gatehouse/gatehouse"
)

// testForm is the "test a decision" form as sent.
type testForm struct {
	PlatformUserID, ServerJobID, Groups, Gamepasses, Badges, At string
	Premium                                                     bool
}

// testAnswer is a test's decision, with what it means in words.
type testAnswer struct {
	gatehouse.DecisionResult
	Granted bool
	Words   string
	// RuleWords says which rule decided ("" when the rule is not an
	// entry of the policy).
	RuleWords string
}

// testFields are the test form's inputs.
var testFields = map[string]bool{"platformUserId": true, "serverJobId": true, "groups": true, "gamepasses": true, "badges": true, "at": true}

// testDecision answers the "test a decision" form: the decision the
// service makes for the player described, at the instant given (now when
// none), explained. Nothing is recorded: the request never asks to.
func (d *dashboard) testDecision(w http.ResponseWriter, r *http.Request) {
	if !viewerOf(r).user.Can(gatehouse.PermTestDecisions) {
		d.fail(w, r, gatehouse.ErrForbidden)
		return
	}
	p, ok := d.policyTarget(w, r)
	if !ok {
		return
	}
	q := r.URL.Query()
	p.Test = testForm{PlatformUserID: strings.TrimSpace(q.Get("platformUserId")), ServerJobID: strings.TrimSpace(q.Get("serverJobId")),
		Groups: strings.TrimSpace(q.Get("groups")), Gamepasses: strings.TrimSpace(q.Get("gamepasses")),
		Badges: strings.TrimSpace(q.Get("badges")), At: strings.TrimSpace(q.Get("at")), Premium: q.Get("premium") != ""}
	loc := zoneOf(r).Loc
	req, issues := p.Test.request(loc)
	// The form tests the policy the page shows, at whatever instant.
	req.AccessPointID, req.CurrentPolicy = p.AccessPoint.ID, req.At != nil
	var res gatehouse.DecisionResult
	var err error
	if issues.Err() != nil {
		// The inputs that read are checked too, so that every problem shows at once.
		var checked *gatehouse.ValidationError
		if errors.As(req.DecisionInput.Check(), &checked) {
			issues.Merge("", checked)
		}
		err = issues
	} else {
		res, err = d.Service.Decide(r.Context(), viewerOf(r).user.OrgID, req)
	}
	var ve *gatehouse.ValidationError
	switch {
	case errors.As(err, &ve):
		p.TestIssues = map[string][]fieldIssue{}
		for field, msgs := range ve.Issues {
			in, _ := strings.CutPrefix(field, "attributes.")
			in, _, _ = strings.Cut(in, "[")
			if name, _, ok := strings.Cut(in, "."); ok && name == "groups" {
				in = name
			}
			for _, m := range msgs {
				if testFields[in] {
					p.TestIssues[in] = append(p.TestIssues[in], fieldIssue{field, m})
				} else {
					p.TestOthers = append(p.TestOthers, fieldIssue{field, m})
				}
			}
		}
		d.renderPolicy(w, r, http.StatusBadRequest, p, "")
		return
	case errors.Is(err, gatehouse.ErrNotFound):
		d.errorPage(w, r, http.StatusNotFound, "There is no such access point.")
		return
	case err != nil:
		d.fail(w, r, err)
		return
	}
	p.Tested = explain(res, p.Current, loc)
	d.renderPolicy(w, r, http.StatusOK, p, "")
}

// request reads the test form into a decision request, with the problems
// of the inputs that do not even read; the request's own check finds the
// rest. Groups are "id:rank" pairs, gamepasses and badges ids, separated
// by commas or spaces.
func (f testForm) request(loc *time.Location) (gatehouse.DecisionRequest, *gatehouse.ValidationError) {
	var errs gatehouse.ValidationError
	req := gatehouse.DecisionRequest{DecisionInput: gatehouse.DecisionInput{PlatformUserID: f.PlatformUserID, ServerJobID: f.ServerJobID,
		Attributes: gatehouse.PlayerAttributes{Groups: map[string]int{}, Gamepasses: idList(f.Gamepasses), Badges: idList(f.Badges), Premium: f.Premium}}}
	for _, pair := range idList(f.Groups) {
		id, rank, ok := strings.Cut(pair, ":")
		n, err := strconv.Atoi(rank)
		if !ok || err != nil {
			errs.Add("groups", "must be group:rank pairs such as 123:5 (%q is not)", pair)
			continue
		}
		req.Attributes.Groups[id] = n
	}
	if f.At != "" {
		t, ok := readInstant(f.At, loc)
		if !ok {
			errs.Add("at", "must be a date and time, e.g. 2026-12-31T23:30")
		} else {
			at := gatehouse.Time(t)
			req.At = &at
		}
	}
	return req, &errs
}

// idList splits a list typed with commas or spaces.
func idList(s string) []string {
	out := []string{}
	for f := range strings.FieldsFuncSeq(s, func(r rune) bool { return r == ',' || r == ' ' || r == ';' }) {
		out = append(out, f)
	}
	return out
}

// explain says a decision in words: what decided and why, naming the
// rule as the policy the page shows has it.
func explain(res gatehouse.DecisionResult, p *gatehouse.Policy, loc *time.Location) *testAnswer {
	a := &testAnswer{DecisionResult: res, Granted: res.Allowed == gatehouse.Granted}
	if p != nil && (res.PolicyVersion == nil || *res.PolicyVersion != p.Version) {
		p = nil // the policy changed since: the rule is named by its path only
	}
	a.RuleWords = describeRule(res.Rule, p, loc)
	local := time.Time(res.At).In(loc).Format("Mon 2006-01-02 15:04 MST")
	if p != nil && p.Schedule != nil {
		if z, err := time.LoadLocation(p.Schedule.TimeZone); err == nil {
			local = time.Time(res.At).In(z).Format("Mon 2006-01-02 15:04") + " in " + p.Schedule.TimeZone
		}
	}
	switch res.Reason {
	case gatehouse.ReasonLockdown:
		a.Words = "A lockdown covers this access point at that time: nobody passes, whatever the policy, the rules or a remote unlock say, until it is released."
	case gatehouse.ReasonRemoteUnlock:
		a.Words = "A remote unlock active at that time covers this player (or their server, or the whole universe), so they pass whatever the policy says."
	case gatehouse.ReasonGrant:
		a.Words = "A grant of this player for this access point (or its location) runs at that time, so they pass whatever the schedule and allow rules say (see Grants)."
	case gatehouse.ReasonAccessPointDisabled:
		if res.Rule == gatehouse.RuleFailMode {
			a.Words = "This access point has no policy yet, so every decision for it denies (fails closed) until an admin sets one."
		} else {
			a.Words = "The policy's mode is LOCKED: nobody passes but through a remote unlock."
		}
	case gatehouse.ReasonBlocked:
		a.Words = "A deny rule keeps this player out; deny rules come before the mode, the schedule and the allow list."
	case gatehouse.ReasonOpen:
		a.Words = "The policy's mode is OPEN: everyone who is not denied passes, whatever the schedule."
	case gatehouse.ReasonOutsideSchedule:
		if strings.HasPrefix(res.Rule, "schedule.exceptions") {
			a.Words = "At " + local + " an exception of the schedule applies, and the time is not in its hours (or the day is closed)."
		} else {
			a.Words = "At " + local + " no weekly window of the schedule is open."
		}
	case gatehouse.ReasonSchedule:
		if res.Rule == gatehouse.RuleSchedule {
			a.Words = "The policy has no schedule and no allow rule: everyone who is not denied passes."
		} else {
			a.Words = "At " + local + " the schedule is open, and the policy has no allow rule: everyone in schedule passes."
		}
	case gatehouse.ReasonAllowlist:
		a.Words = "At " + local + " the schedule is open, and an allow rule matches this player."
	case gatehouse.ReasonNotOnAllowlist:
		a.Words = "At " + local + " the schedule is open, but no allow rule matches this player."
	default:
		a.Words = "The decision's reason is " + res.Reason + "."
	}
	return a
}

// describeRule names a decision's rule in words from the policy, when it
// is one of its entries.
func describeRule(rule string, p *gatehouse.Policy, loc *time.Location) string {
	var i, j int
	switch {
	case rule == gatehouse.RuleRemoteUnlock:
		return "an active remote unlock"
	case rule == gatehouse.RuleGrant:
		return "a running grant (timed pass) of the player"
	case rule == gatehouse.RuleMode && p != nil:
		return "the mode, " + string(p.Mode)
	case rule == gatehouse.RuleFailMode:
		return "the fail mode of an access point without a policy"
	case rule == gatehouse.RuleAllow:
		return "the allow list: no rule matched"
	case rule == gatehouse.RuleSchedule:
		return "the schedule as a whole"
	case p == nil:
		return ""
	case scan(rule, "allow[%d]", &i) && i < len(p.Allow):
		return fmt.Sprintf("allow rule %d: %s", i+1, p.Allow[i].Describe())
	case scan(rule, "deny[%d]", &i) && i < len(p.Deny):
		d := p.Deny[i]
		until := "for good"
		if d.Until != nil {
			until = "until " + time.Time(*d.Until).In(loc).Format("2006-01-02 15:04 MST")
		}
		return fmt.Sprintf("deny rule %d: player %s, %s", i+1, d.PlatformUserID, until)
	case p.Schedule == nil:
		return ""
	case scan(rule, "schedule.windows[%d]", &i) && i < len(p.Schedule.Windows):
		w := p.Schedule.Windows[i]
		return fmt.Sprintf("weekly window %d: %s %s–%s", i+1, strings.Join(w.Days, ", "), w.From, w.To)
	case scan(rule, "schedule.exceptions[%d].windows[%d]", &i, &j) && i < len(p.Schedule.Exceptions) && j < len(p.Schedule.Exceptions[i].Windows):
		e := p.Schedule.Exceptions[i]
		return fmt.Sprintf("the special hours %s–%s of %s", e.Windows[j].From, e.Windows[j].To, e.Date)
	case scan(rule, "schedule.exceptions[%d]", &i) && i < len(p.Schedule.Exceptions):
		e := p.Schedule.Exceptions[i]
		if e.Closed {
			return "the exception of " + e.Date + ": closed all day"
		}
		return "the exception of " + e.Date + ": special hours only"
	}
	return ""
}

// scan reads a rule name of the given form, wholly.
func scan(rule, format string, args ...any) bool {
	n, err := fmt.Sscanf(rule, format, args...)
	return err == nil && n == len(args) && fmt.Sprintf(format, intsOf(args)...) == rule
}

// intsOf is the values of pointers to ints.
func intsOf(args []any) []any {
	out := make([]any, len(args))
	for i, a := range args {
		out[i] = *a.(*int)
	}
	return out
}
