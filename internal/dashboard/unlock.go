package dashboard

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/gatehouse/gatehouse"
	"github.com/google/uuid"
)

// The Unlock form: filled in from an access point's link, checked by the
// service's own rules, and issued only after a confirmation that says what
// will happen.

// unlockForm is the Unlock form as sent: every field a string, so that a
// wrong value is shown back as typed.
type unlockForm struct {
	AccessPointID, Scope, ServerJobID, PlatformUserID, Duration, Note string
}

// unlockPage is the Unlock form, or (Question set) its confirmation.
type unlockPage struct {
	Form      unlockForm
	Locations []gatehouse.Location
	Scopes    []gatehouse.CommandScope
	// Issues are keyed by the form's field names (the API's); Others are
	// the problems of no field of the form.
	Issues    map[string][]string
	Others    []string
	MaxNote   int
	MaxSecs   int
	Question  string // the confirmation: what will happen
	Idem      string // the confirmation's Idempotency-Key: a second click issues nothing more
	Change    string // the form again, filled in, from the confirmation
	HasTarget bool   // the chosen access point's location names a universe (otherwise the form says so before it is sent)
}

// unlockFields are the fields the Unlock form shows its issues next to.
var unlockFields = []string{"accessPointId", "scope", "serverJobId", "platformUserId", "durationSeconds", "note"}

// canIssue answers 403 and reports false unless the viewer's role may
// issue commands: the service would refuse the command anyway, but the
// form and its confirmation must not be shown to someone who cannot use
// them.
func (d *dashboard) canIssue(w http.ResponseWriter, r *http.Request) bool {
	if !viewerOf(r).user.Can(gatehouse.PermIssueCommands) {
		d.fail(w, r, gatehouse.ErrForbidden)
		return false
	}
	return true
}

// unlockFormPage shows the Unlock form, filled in from the query (the
// access point's Unlock link, or the confirmation's Change).
func (d *dashboard) unlockFormPage(w http.ResponseWriter, r *http.Request) {
	if !d.canIssue(w, r) {
		return
	}
	q := r.URL.Query()
	f := readUnlockForm(q)
	if f.Scope == "" {
		f.Scope = string(gatehouse.ScopeUniverse)
	}
	if f.Duration == "" {
		f.Duration = strconv.Itoa(gatehouse.DefaultUnlockSeconds)
	}
	d.renderUnlock(w, r, http.StatusOK, unlockPage{Form: f})
}

func readUnlockForm(v url.Values) unlockForm {
	return unlockForm{AccessPointID: v.Get("accessPointId"), Scope: v.Get("scope"), ServerJobID: strings.TrimSpace(v.Get("serverJobId")),
		PlatformUserID: strings.TrimSpace(v.Get("platformUserId")), Duration: strings.TrimSpace(v.Get("durationSeconds")), Note: v.Get("note")}
}

// renderUnlock renders the form, or its confirmation when p.Question is
// set, with the organization's access points to choose from.
func (d *dashboard) renderUnlock(w http.ResponseWriter, r *http.Request, status int, p unlockPage) {
	locs, ok := d.allLocations(w, r)
	if !ok {
		return
	}
	p.Locations, p.Scopes = locs, gatehouse.CommandScopes
	p.MaxNote, p.MaxSecs = gatehouse.MaxCommandNote, gatehouse.MaxUnlockSeconds
	if _, loc, ok := findAccessPoint(locs, p.Form.AccessPointID); ok {
		p.HasTarget = loc.UniverseID != nil
	}
	name := "unlock"
	if p.Question != "" {
		name = "unlock-confirm"
	}
	d.render(w, r, status, name, p)
}

// findAccessPoint finds the access point of id among locs, with its
// location.
func findAccessPoint(locs []gatehouse.Location, id string) (gatehouse.AccessPoint, gatehouse.Location, bool) {
	for _, l := range locs {
		for _, ap := range l.AccessPoints {
			if ap.ID.String() == id {
				return ap, l, true
			}
		}
	}
	return gatehouse.AccessPoint{}, gatehouse.Location{}, false
}

// unlock answers the Unlock form. Without confirm it checks the request
// and shows the confirmation, which says what will happen; with confirm
// (the confirmation's button) it issues the command and goes to its page.
// Either way a request the service refuses comes back as the form with
// each problem next to its field.
func (d *dashboard) unlock(w http.ResponseWriter, r *http.Request) {
	if !d.canIssue(w, r) {
		return
	}
	orgID := viewerOf(r).user.OrgID
	f := readUnlockForm(r.PostForm)
	req, issues := unlockRequest(f)
	req, err := req.Check()
	var ve *gatehouse.ValidationError
	if errors.As(err, &ve) || issues.Issues != nil {
		issues.Merge("", ve)
		d.unlockRefused(w, r, f, issues)
		return
	}
	if r.PostFormValue("confirm") == "" {
		d.confirmUnlock(w, r, f, req)
		return
	}
	c, _, err := d.Service.IssueCommand(r.Context(), orgID, req, r.PostFormValue("idem"))
	if err != nil {
		d.unlockFailed(w, r, f, err)
		return
	}
	http.Redirect(w, r, Prefix+"/commands/"+c.ID.String(), http.StatusSeeOther)
}

// unlockRequest reads the form into a command request, with the problems
// of the fields that do not even read (a duration that is not a number);
// the request's own check finds the rest. Only the target field of the
// chosen scope is kept: without script the form shows both, and a value
// left in the other is not an error.
func unlockRequest(f unlockForm) (gatehouse.CommandRequest, *gatehouse.ValidationError) {
	var errs gatehouse.ValidationError
	req := gatehouse.CommandRequest{Type: gatehouse.CommandUnlock, Scope: gatehouse.CommandScope(f.Scope)}
	req.AccessPointID, _ = uuid.Parse(f.AccessPointID) // none, or not an id: Check says it is required
	switch req.Scope {
	case gatehouse.ScopeServer:
		req.ServerJobID = &f.ServerJobID
	case gatehouse.ScopePlayer:
		req.PlatformUserID = &f.PlatformUserID
	}
	if f.Duration != "" {
		n, err := strconv.Atoi(f.Duration)
		if err != nil {
			errs.Add("durationSeconds", "must be a whole number of seconds")
		}
		req.DurationSeconds = n
	}
	if f.Note != "" {
		req.Note = &f.Note
	}
	return req, &errs
}

// confirmUnlock shows what the request will do, in words, with the button
// that issues it. A location without a universe is refused here already,
// as the service would refuse it.
func (d *dashboard) confirmUnlock(w http.ResponseWriter, r *http.Request, f unlockForm, req gatehouse.CommandRequest) {
	locs, ok := d.everyLocation(w, r)
	if !ok {
		return
	}
	ap, loc, ok := findAccessPoint(locs, req.AccessPointID.String())
	ap.LocationArchived = loc.ArchivedAt != nil
	switch {
	case !ok:
		d.unlockRefused(w, r, f, issue("accessPointId", "is not an access point of your organization"))
		return
	case ap.Writable() != nil:
		d.unlockRefused(w, r, f, issue("accessPointId", "is archived, or its location is: an admin restores it on the Locations page"))
		return
	case loc.UniverseID == nil:
		d.unlockRefused(w, r, f, issue("accessPointId", fmt.Sprintf("is in %s, which names no universe: an admin sets it on the Locations page", loc.Name)))
		return
	}
	change := url.Values{"accessPointId": {f.AccessPointID}, "scope": {f.Scope}, "serverJobId": {f.ServerJobID},
		"platformUserId": {f.PlatformUserID}, "durationSeconds": {strconv.Itoa(req.DurationSeconds)}, "note": {f.Note}}
	f.Duration = strconv.Itoa(req.DurationSeconds)
	d.renderUnlock(w, r, http.StatusOK, unlockPage{Form: f, Question: unlockQuestion(ap.Name+" at "+loc.Name, *loc.UniverseID, req),
		Idem: "dashboard-" + gatehouse.NewToken(), Change: Prefix + "/commands/unlock?" + change.Encode()})
}

// unlockQuestion says what a request will do: "Unlock Front door at
// Nightclub for every server of universe 123 for 30 s?" (two locations
// may each have a Front door).
func unlockQuestion(door, universe string, req gatehouse.CommandRequest) string {
	var whom string
	switch req.Scope {
	case gatehouse.ScopeServer:
		whom = fmt.Sprintf("on the server %s of universe %s", *req.ServerJobID, universe)
	case gatehouse.ScopePlayer:
		whom = fmt.Sprintf("for player %s, on the server of universe %s that hosts them,", *req.PlatformUserID, universe)
	default:
		whom = "for every server of universe " + universe
	}
	return fmt.Sprintf("Unlock %s %s for %s?", door, whom, seconds(req.DurationSeconds))
}

// seconds writes a duration of n seconds as the form asked for it, with
// minutes beside it when that reads better.
func seconds(n int) string {
	if n < 120 || n%60 != 0 {
		return strconv.Itoa(n) + " s"
	}
	return fmt.Sprintf("%d s (%d min)", n, n/60)
}

func issue(field, message string) *gatehouse.ValidationError {
	var e gatehouse.ValidationError
	e.Add(field, "%s", message)
	return &e
}

// unlockFailed answers an error of the Unlock form: the form with the
// problems when the service refused the input, the error page otherwise.
func (d *dashboard) unlockFailed(w http.ResponseWriter, r *http.Request, f unlockForm, err error) {
	var ve *gatehouse.ValidationError
	var ce *gatehouse.ConflictError
	switch {
	case errors.As(err, &ve):
		d.unlockRefused(w, r, f, ve)
	case errors.As(err, &ce):
		d.unlockRefused(w, r, f, issue(ce.Field, ce.Message))
	default:
		d.fail(w, r, err)
	}
}

// unlockRefused shows the form again, as sent, with each problem next to
// its field and any other above the form.
func (d *dashboard) unlockRefused(w http.ResponseWriter, r *http.Request, f unlockForm, ve *gatehouse.ValidationError) {
	p := unlockPage{Form: f, Issues: map[string][]string{}}
	for field, msgs := range ve.Issues {
		if slices.Contains(unlockFields, field) {
			p.Issues[field] = msgs
			continue
		}
		for _, m := range msgs {
			p.Others = append(p.Others, field+" "+m)
		}
	}
	slices.Sort(p.Others)
	d.renderUnlock(w, r, http.StatusBadRequest, p)
}
