package dashboard

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/gatehouse/gatehouse"
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
	every, ok := d.everyLocation(w, r)
	if !ok {
		return
	}
	p.Locations = menuOf(every, form.Get("locationId"), form.Get("accessPointId"))
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
	d.saved(w, r, err, "", "universe")
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
