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
	locs, ok := d.everyLocation(w, r) // an archived access point's page reads, its form is refused
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
	if !viewerOf(r).user.Can(gatehouse.PermManagePolicies) {
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
	case errors.As(err, new(*gatehouse.StateError)):
		d.fail(w, r, err) // archived: the page says to restore it first
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
