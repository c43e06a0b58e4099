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

// The remote commands in the dashboard: the Unlock form, which asks for
// a confirmation that says what will happen before it issues anything;
// the Commands list; a command's page with its deliveries; and Cancel.
// Issuing and cancelling are the service's (PermIssueCommands); the pages
// only offer them to the roles it allows.

// refreshSeconds is how often a page showing an unsettled command reloads
// itself: a command settles within seconds, and the operator who issued
// it is watching.
const refreshSeconds = 3

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
	if !viewerOf(r).user.Role.Can(gatehouse.PermIssueCommands) {
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
	locs, ok := d.allLocations(w, r)
	if !ok {
		return
	}
	ap, loc, ok := findAccessPoint(locs, req.AccessPointID.String())
	switch {
	case !ok:
		d.unlockRefused(w, r, f, issue("accessPointId", "is not an access point of your organization"))
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

// commandsPage is the Commands list: its filters as sent, their problems
// and a page of commands.
type commandsPage struct {
	Form      url.Values
	Issues    map[string][]string
	Commands  []gatehouse.Command
	Locations []gatehouse.Location
	Statuses  []gatehouse.CommandStatus
	Scopes    []gatehouse.CommandScope
	Older     string
	Newer     string
	Newest    string
	Cursor    string
	Refresh   int // seconds until the page reloads; 0: it does not (every command shown is settled)
}

// commandsList serves the Commands list: newest first, filtered by
// status, location, access point and scope (the API's query, read by the
// same code), in pages like the Event Log's, with the API's signed
// cursors. While a command on it is unsettled, the page reloads itself.
func (d *dashboard) commandsList(w http.ResponseWriter, r *http.Request) {
	orgID := viewerOf(r).user.OrgID
	form, prev := listForm(r)
	p := commandsPage{Form: form, Statuses: gatehouse.CommandStatuses, Scopes: gatehouse.CommandScopes, Cursor: form.Get("cursor")}
	locs, ok := d.allLocations(w, r)
	if !ok {
		return
	}
	p.Locations = locs
	status := http.StatusOK
	f, err := d.Service.ReadCommandQuery(orgID, form)
	var ve *gatehouse.ValidationError
	if err == nil {
		var page gatehouse.CommandPage
		page, err = d.Service.ListCommands(r.Context(), orgID, f)
		if err == nil {
			p.Commands = page.Commands
			next := ""
			if page.Next != nil {
				next = d.Service.CommandCursor(orgID, f, *page.Next)
			}
			p.Older, p.Newer = pageLinks(Prefix+"/commands", form, p.Cursor, prev, next)
			p.Newest = Prefix + "/commands?" + withoutCursor(form).Encode()
		}
	}
	switch {
	case errors.As(err, &ve):
		p.Issues, status = labelled(ve.Issues, commandFieldLabels), http.StatusBadRequest
	case err != nil:
		d.fail(w, r, err)
		return
	}
	if slices.ContainsFunc(p.Commands, func(c gatehouse.Command) bool { return !c.Status.Settled() }) {
		p.Refresh = refreshSeconds
	}
	d.render(w, r, status, "commands", p)
}

// commandFieldLabels are the Commands filters as the form names them.
var commandFieldLabels = map[string]string{"status": "Status", "scope": "Scope", "accessPointId": "Access point",
	"locationId": "Location", "cursor": "Page", "limit": "Per page"}

// labelled renames issues' fields by labels, and says what to do with a
// cursor that does not open in words for a page rather than a program.
func labelled(issues map[string][]string, labels map[string]string) map[string][]string {
	out := map[string][]string{}
	for field, msgs := range issues {
		if field == "cursor" {
			msgs = []string{"does not belong to these filters; go back to the first page"}
		}
		if l := labels[field]; l != "" {
			field = l
		}
		out[field] = append(out[field], msgs...)
	}
	return out
}

// commandPage is one command, whole, with its deliveries.
type commandPage struct {
	Command gatehouse.Command
	Notice  string
	Refresh int
}

// commandDetail shows one command of the viewer's organization.
func (d *dashboard) commandDetail(w http.ResponseWriter, r *http.Request) {
	c, ok := d.findCommand(w, r)
	if !ok {
		return
	}
	d.renderCommand(w, r, http.StatusOK, c, "")
}

func (d *dashboard) renderCommand(w http.ResponseWriter, r *http.Request, status int, c gatehouse.Command, notice string) {
	p := commandPage{Command: c, Notice: notice}
	if !c.Status.Settled() {
		p.Refresh = refreshSeconds
	}
	d.render(w, r, status, "command", p)
}

// findCommand reads the path's command; another organization's id reads
// as an unknown one. It answers the error itself and then reports false.
func (d *dashboard) findCommand(w http.ResponseWriter, r *http.Request) (gatehouse.Command, bool) {
	c, err := d.Service.FindCommand(r.Context(), viewerOf(r).user.OrgID, pathID(r))
	switch {
	case errors.Is(err, gatehouse.ErrNotFound):
		d.errorPage(w, r, http.StatusNotFound, "There is no such command.")
		return c, false
	case err != nil:
		d.fail(w, r, err)
		return c, false
	}
	return c, true
}

// confirmCancel asks before cancelling a command; a settled one has
// nothing to cancel, so its page is shown instead.
func (d *dashboard) confirmCancel(w http.ResponseWriter, r *http.Request) {
	if !d.canIssue(w, r) {
		return
	}
	c, ok := d.findCommand(w, r)
	if !ok {
		return
	}
	if c.Status.Settled() {
		http.Redirect(w, r, Prefix+"/commands/"+c.ID.String(), http.StatusSeeOther)
		return
	}
	d.render(w, r, http.StatusOK, "cancel-command", commandPage{Command: c})
}

// cancelCommand cancels a command and goes back to its page; one that
// settled meanwhile is shown as it is, with why nothing was cancelled.
func (d *dashboard) cancelCommand(w http.ResponseWriter, r *http.Request) {
	c, err := d.Service.CancelCommand(r.Context(), viewerOf(r).user.OrgID, pathID(r))
	switch {
	case errors.Is(err, gatehouse.ErrConflict):
		if c, err = d.Service.FindCommand(r.Context(), viewerOf(r).user.OrgID, pathID(r)); err != nil {
			d.fail(w, r, err)
			return
		}
		d.renderCommand(w, r, http.StatusConflict, c, "Nothing was cancelled: the command is "+string(c.Status)+" already.")
	case errors.Is(err, gatehouse.ErrNotFound):
		d.errorPage(w, r, http.StatusNotFound, "There is no such command.")
	case err != nil:
		d.fail(w, r, err)
	default:
		http.Redirect(w, r, Prefix+"/commands/"+c.ID.String(), http.StatusSeeOther)
	}
}

// setLocationUniverse sets or clears (an empty field) the universe of a
// location: admins only, as the service decides.
func (d *dashboard) setLocationUniverse(w http.ResponseWriter, r *http.Request) {
	_, err := d.Service.SetLocationUniverse(r.Context(), viewerOf(r).user.OrgID, pathID(r), strings.TrimSpace(r.PostFormValue("universeId")))
	d.saved(w, r, err, "")
}

// commandTarget says whom a command is for, in words.
func commandTarget(c gatehouse.Command) string {
	switch c.Scope {
	case gatehouse.ScopeServer:
		return "server " + deref(c.ServerJobID)
	case gatehouse.ScopePlayer:
		return "player " + deref(c.PlatformUserID)
	}
	return "every server of universe " + c.UniverseID
}

// commandProgress is the k-of-N count of a command: "2 of 3 servers
// executed", with the failures and the servers that have not received it
// yet, and the servers that joined the unlock while it ran.
func commandProgress(c gatehouse.Command) string {
	t := c.Targets
	var parts []string
	if t.Live == 0 {
		parts = append(parts, "no server was live at issue")
	} else {
		noun := "servers"
		if t.Live == 1 {
			noun = "server"
		}
		parts = append(parts, fmt.Sprintf("%d of %d %s executed", t.Executed, t.Live, noun))
		if t.Failed > 0 {
			parts = append(parts, fmt.Sprintf("%d failed", t.Failed))
		}
		if t.Delivered < t.Live {
			parts = append(parts, fmt.Sprintf("%d received", t.Delivered))
		}
	}
	if t.Joined > 0 {
		parts = append(parts, fmt.Sprintf("%d joined", t.Joined))
	}
	return strings.Join(parts, ", ")
}

// commandRequester names who issued a command: a dashboard user or an
// API key.
func commandRequester(c gatehouse.Command) string {
	switch {
	case c.RequestedBy != nil:
		return c.RequestedBy.Name + " <" + c.RequestedBy.Email + ">"
	case c.IssuedByKey != nil:
		return "API key " + c.IssuedByKey.Name + " (" + c.IssuedByKey.Prefix + "…)"
	}
	return "—"
}
