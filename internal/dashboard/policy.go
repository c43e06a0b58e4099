package dashboard

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/gatehouse/gatehouse"
)

// The Policy page of an access point: its current policy for everyone,
// the editor for admins (policies:manage), and the "test a decision"
// form for operators and admins (decisions:test), which asks the service
// for a decision and its explanation and records nothing.

// policyPage is the Policy page, in every state: as loaded, after a
// save the service refused (the form as typed, each problem next to its
// input), after a concurrent change, and with a test's answer.
type policyPage struct {
	AccessPoint gatehouse.AccessPoint
	Location    gatehouse.Location
	Current     *gatehouse.Policy
	// Form is the editor's content; Edited says it is what was sent,
	// not the current policy, and Week draws its windows then.
	Form   policyForm
	Edited bool
	Week   week
	// CurrentWeek draws the current policy's windows.
	CurrentWeek week
	Weekdays    []string
	AllowTypes  []struct{ Value, Label string }
	TimeZones   []string
	Issues      map[string][]fieldIssue
	Others      []fieldIssue
	// Conflict says that another change was saved while this form was
	// edited; the form then edits that version, so saving again replaces
	// it knowingly.
	Conflict string
	Saved    string // the outcome of the save just made
	// JSON is the advanced editor's text: the policy as the API takes it;
	// JSONOpen unfolds it (it was sent), with JSONIssues its problems.
	JSON       string
	JSONOpen   bool
	JSONIssues []fieldIssue
	Test       testForm
	Tested     *testAnswer
	// TestIssues are keyed by the test form's inputs; TestOthers by no
	// input.
	TestIssues map[string][]fieldIssue
	TestOthers []fieldIssue
}

// Err is the problems shown next to the editor's input name.
func (p policyPage) Err(name string) []fieldIssue { return p.Issues[name] }

// TestErr is the problems shown next to the test form's input name.
func (p policyPage) TestErr(name string) []fieldIssue { return p.TestIssues[name] }

// policyZones are the zones the schedule's zone input suggests; any IANA
// name may be typed.
var policyZones = append([]string{"UTC"}, zoneChoices...)

// policyTarget finds the access point of the path among the viewer's
// organization's, with its location; otherwise it writes the error page
// and reports false.
func (d *dashboard) policyTarget(w http.ResponseWriter, r *http.Request) (policyPage, bool) {
	locs, ok := d.allLocations(w, r)
	if !ok {
		return policyPage{}, false
	}
	ap, loc, found := findAccessPoint(locs, pathID(r).String())
	if !found {
		d.errorPage(w, r, http.StatusNotFound, "There is no such access point.")
		return policyPage{}, false
	}
	current, err := d.Service.Policy(r.Context(), viewerOf(r).user.OrgID, ap.ID)
	if errors.Is(err, gatehouse.ErrNotFound) {
		d.errorPage(w, r, http.StatusNotFound, "There is no such access point.")
		return policyPage{}, false
	} else if err != nil {
		d.fail(w, r, err)
		return policyPage{}, false
	}
	return policyPage{AccessPoint: ap, Location: loc, Current: current, Form: formOfPolicy(current, zoneOf(r).Loc)}, true
}

// renderPolicy shows the page, the editor with blank rows to fill in
// (more in the list add names).
func (d *dashboard) renderPolicy(w http.ResponseWriter, r *http.Request, status int, p policyPage, add string) {
	if !p.JSONOpen {
		p.JSON = policyJSON(p.Current)
	}
	p.Week = weekOf(p.Form.Windows)
	p.CurrentWeek = weekOf(formOfPolicy(p.Current, time.UTC).Windows)
	p.Form = p.Form.withBlanks(add)
	p.Weekdays, p.AllowTypes, p.TimeZones = gatehouse.Weekdays, allowTypes, policyZones
	d.render(w, r, status, "policy", p)
}

func (d *dashboard) policyPage(w http.ResponseWriter, r *http.Request) {
	p, ok := d.policyTarget(w, r)
	if !ok {
		return
	}
	// The outcome of the save that redirected here; only a version number
	// is shown, so that a crafted link cannot put words on the page.
	q := r.URL.Query()
	if v, err := strconv.ParseInt(q.Get("unchanged"), 10, 64); err == nil {
		p.Saved = fmt.Sprintf("Nothing changed: the policy is still version %d.", v)
	} else if v, err := strconv.ParseInt(q.Get("saved"), 10, 64); err == nil {
		p.Saved = fmt.Sprintf("Saved as version %d.", v)
	}
	d.renderPolicy(w, r, http.StatusOK, p, "")
}

// savePolicy answers the editor: with add, the form again with more
// blank rows in that list, nothing saved; otherwise the policy is saved
// as the next version of the one edited (ifVersion), and a refusal shows
// the form as typed with each problem next to its input.
func (d *dashboard) savePolicy(w http.ResponseWriter, r *http.Request) {
	if !viewerOf(r).user.Role.Can(gatehouse.PermManagePolicies) {
		d.fail(w, r, gatehouse.ErrForbidden)
		return
	}
	p, ok := d.policyTarget(w, r)
	if !ok {
		return
	}
	loc := zoneOf(r).Loc
	var (
		policy    gatehouse.Policy
		ifVersion *int64
		issues    *gatehouse.ValidationError
	)
	if _, advanced := r.PostForm["policyJSON"]; advanced {
		p.JSON, p.JSONOpen = r.PostFormValue("policyJSON"), true
		p.Form.IfVersion = strings.TrimSpace(r.PostFormValue("ifVersion"))
		policy, ifVersion, issues = readPolicyJSON(p.JSON, p.Form.IfVersion)
	} else {
		p.Form, p.Edited = readPolicyForm(r.PostForm), true
		if add := r.PostFormValue("add"); add != "" {
			d.renderPolicy(w, r, http.StatusOK, p, add)
			return
		}
		policy, ifVersion, issues = p.Form.policy(loc)
	}
	if issues.Err() != nil {
		var checked *gatehouse.ValidationError
		if _, unread := issues.Issues["policy"]; unread {
			// JSON that did not read: no policy to check.
		} else if _, err := policy.Check(); errors.As(err, &checked) {
			issues.Merge("", checked)
		}
		d.policyRefused(w, r, p, issues)
		return
	}
	saved, err := d.Service.SetPolicy(r.Context(), viewerOf(r).user.OrgID, p.AccessPoint.ID, policy, ifVersion)
	var ve *gatehouse.ValidationError
	switch {
	case errors.As(err, &ve):
		d.policyRefused(w, r, p, ve)
	case errors.Is(err, gatehouse.ErrConflict):
		d.policyConflict(w, r, p, *ifVersion)
	case errors.Is(err, gatehouse.ErrNotFound):
		d.errorPage(w, r, http.StatusNotFound, "There is no such access point.")
	case err != nil:
		d.fail(w, r, err)
	default:
		outcome := "saved"
		if saved.Version == *ifVersion {
			outcome = "unchanged"
		}
		http.Redirect(w, r, fmt.Sprintf("%s/access-points/%s/policy?%s=%d", Prefix, p.AccessPoint.ID, outcome, saved.Version), http.StatusSeeOther)
	}
}

// policyRefused shows the editor as sent with the service's problems.
func (d *dashboard) policyRefused(w http.ResponseWriter, r *http.Request, p policyPage, ve *gatehouse.ValidationError) {
	if p.JSONOpen {
		_, p.JSONIssues = placeIssues(ve, nil)
		d.renderPolicy(w, r, http.StatusBadRequest, p, "")
		return
	}
	p.Issues, p.Others = placeIssues(ve, p.Form.inputs())
	d.renderPolicy(w, r, http.StatusBadRequest, p, "")
}

// policyConflict answers a save of a version that is no longer the
// current one: nothing was saved. The form keeps what was typed and now
// edits the current version, so that saving again replaces it, as the
// message says; the current policy is shown above it.
func (d *dashboard) policyConflict(w http.ResponseWriter, r *http.Request, p policyPage, edited int64) {
	now := "it has no policy any more"
	p.Form.IfVersion = "0"
	if p.Current != nil {
		now = fmt.Sprintf("it is now version %d, shown above", p.Current.Version)
		p.Form.IfVersion = strconv.FormatInt(p.Current.Version, 10)
	}
	what := fmt.Sprintf("version %d", edited)
	if edited == 0 {
		what = "no policy"
	}
	p.Conflict = fmt.Sprintf("Not saved: someone else changed this policy while you edited %s; %s. "+
		"Your changes are kept below: compare them with the current policy, then save again to replace it, or reload the page to drop them.", what, now)
	d.renderPolicy(w, r, http.StatusConflict, p, "")
}

// policyJSON is the advanced editor's text for a policy (nil: a policy
// that denies everyone, to start from): its rules as the API takes them,
// without the version and time the store sets.
func policyJSON(p *gatehouse.Policy) string {
	start := gatehouse.Policy{Mode: gatehouse.ModeRules, Allow: []gatehouse.AllowRule{}, Deny: []gatehouse.DenyRule{}, FailMode: gatehouse.FailClosed}
	if p != nil {
		start = *p
		start.Version, start.UpdatedAt = 0, nil
	}
	b, err := json.MarshalIndent(start, "", "  ")
	if err != nil {
		panic(err) // policies are plain data: this cannot fail
	}
	return string(b)
}

// readPolicyJSON reads the advanced editor: one JSON object with the
// policy's fields only (version and updatedAt are the store's, and
// ignored), and the version edited.
func readPolicyJSON(text, version string) (gatehouse.Policy, *int64, *gatehouse.ValidationError) {
	var errs gatehouse.ValidationError
	var ifVersion *int64
	if n, err := strconv.ParseInt(version, 10, 64); err == nil {
		ifVersion = &n
	} else {
		errs.Add("ifVersion", "must be the version edited; reload the page")
	}
	var p gatehouse.Policy
	dec := json.NewDecoder(strings.NewReader(text))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&p); err != nil {
		errs.Add("policy", "is not a policy as the API takes it: %v", err)
		return gatehouse.Policy{}, ifVersion, &errs
	}
	if dec.More() {
		errs.Add("policy", "must be one JSON object, with nothing after it")
	}
	return p, ifVersion, &errs
}

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
	if !viewerOf(r).user.Role.Can(gatehouse.PermTestDecisions) {
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
	req.AccessPointID = p.AccessPoint.ID
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
	case gatehouse.ReasonRemoteUnlock:
		a.Words = "A remote unlock active at that time covers this player (or their server, or the whole universe), so they pass whatever the policy says."
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
