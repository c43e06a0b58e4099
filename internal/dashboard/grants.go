package dashboard

import (
	"errors"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/gatehouse/gatehouse"
	"github.com/google/uuid"
)

// The Grants page: timed passes listed per player, access point and
// activity; a form that grants one (admins, as the service decides:
// PermManageGrants); and Revoke, which asks first.

// grantsPage is the Grants page: its filters as sent, a page of grants,
// and the grant form with its problems.
type grantsPage struct {
	Form      url.Values
	Issues    map[string][]string
	Grants    []gatehouse.Grant
	Locations []gatehouse.Location
	Names     placeNames
	pager
	// New is the grant form as sent and NewIssues its problems, keyed by
	// the form's fields; Saved says what was just granted or revoked.
	New       grantForm
	NewIssues map[string][]string
	Saved     string
	MaxNote   int
}

// grantForm is the grant form as sent: every field a string, shown back
// as typed. Target is "ap:ID" or "loc:ID".
type grantForm struct {
	PlatformUserID, Target, For, Note string
}

// grantFieldLabels are the Grants filters as the form names them.
var grantFieldLabels = map[string]string{"platformUserId": "Player", "accessPointId": "Access point", "active": "Status",
	"cursor": "Page", "limit": "Per page"}

// grantsList serves the Grants page.
func (d *dashboard) grantsList(w http.ResponseWriter, r *http.Request) {
	d.renderGrants(w, r, http.StatusOK, grantsPage{New: grantForm{For: "24h"}, Saved: savedNotice(r)})
}

// renderGrants renders the page with p's form, reading the list and the
// locations.
func (d *dashboard) renderGrants(w http.ResponseWriter, r *http.Request, status int, p grantsPage) {
	orgID := viewerOf(r).user.OrgID
	form, prev := listForm(r)
	form.Del("saved")
	if r.Method == http.MethodPost {
		form, prev = url.Values{}, nil
	}
	p.Form, p.Cursor, p.MaxNote = form, form.Get("cursor"), gatehouse.MaxGrantNote
	every, ok := d.everyLocation(w, r)
	if !ok {
		return
	}
	p.Locations, p.Names = menuOf(every, "", form.Get("accessPointId")), placeNamesOf(every)
	f, err := d.Service.ReadGrantQuery(orgID, form)
	if err == nil {
		var page gatehouse.GrantPage
		if page, err = d.Service.ListGrants(r.Context(), orgID, f); err == nil {
			p.Grants = page.Grants
			p.pager = newPager(Prefix+"/grants", form, prev, page.Next, func(k gatehouse.GrantKey) string {
				return d.Service.GrantCursor(orgID, f, k)
			})
		}
	}
	var ve *gatehouse.ValidationError
	switch {
	case errors.As(err, &ve):
		p.Issues, status = labelled(ve.Issues, grantFieldLabels), http.StatusBadRequest
	case err != nil:
		d.fail(w, r, err)
		return
	}
	d.render(w, r, status, "grants", p)
}

// createGrant grants from the form: a player, an access point or a
// location, for a duration from now.
func (d *dashboard) createGrant(w http.ResponseWriter, r *http.Request) {
	f := grantForm{PlatformUserID: strings.TrimSpace(r.PostFormValue("platformUserId")), Target: r.PostFormValue("target"),
		For: strings.TrimSpace(r.PostFormValue("for")), Note: r.PostFormValue("note")}
	req, issues := f.request(d.Service.Now())
	var g gatehouse.Grant
	if len(issues) == 0 {
		var err error
		g, _, err = d.Service.CreateGrant(r.Context(), viewerOf(r).user.OrgID, req)
		var ve *gatehouse.ValidationError
		switch {
		case errors.As(err, &ve):
			issues = grantFormIssues(ve.Issues)
		case err != nil:
			d.fail(w, r, err)
			return
		}
	}
	if len(issues) > 0 {
		d.renderGrants(w, r, http.StatusBadRequest, grantsPage{New: f, NewIssues: issues})
		return
	}
	http.Redirect(w, r, Prefix+"/grants?saved=granted&platformUserId="+url.QueryEscape(g.PlatformUserID), http.StatusSeeOther)
}

// request reads the form into a grant request, or the problems of the
// fields the service does not check (the target's form, the duration).
func (f grantForm) request(now time.Time) (gatehouse.GrantRequest, map[string][]string) {
	issues := map[string][]string{}
	r := gatehouse.GrantRequest{PlatformUserID: f.PlatformUserID}
	if f.Note != "" {
		r.Note = &f.Note
	}
	kind, id, _ := strings.Cut(f.Target, ":")
	target, err := gatehouse.ParseUUID(id)
	switch {
	case err != nil:
		issues["target"] = append(issues["target"], "choose an access point or a location")
	case kind == "loc":
		r.LocationID = &target
	default:
		r.AccessPointIDs = []uuid.UUID{target}
	}
	d, err := gatehouse.ParseDuration(f.For)
	if err != nil || d <= 0 {
		issues["for"] = append(issues["for"], "must be a duration, e.g. 2h, 24h or 7d")
	} else {
		until := gatehouse.Time(gatehouse.Truncate(now).Add(d))
		r.Until = &until
	}
	return r, issues
}

// grantFormIssues keys the service's issues by the form's fields.
func grantFormIssues(in map[string][]string) map[string][]string {
	out := map[string][]string{}
	for field, msgs := range in {
		switch base, _, _ := strings.Cut(field, "["); base {
		case "accessPointIds", "locationId":
			field = "target"
		case "until", "from":
			field = "for"
		}
		out[field] = append(out[field], msgs...)
	}
	return out
}

// savedNotice is what the page says after a change it redirected from.
func savedNotice(r *http.Request) string {
	switch r.URL.Query().Get("saved") {
	case "granted":
		return "Granted."
	case "revoked":
		return "Revoked: the player's pass ended now."
	}
	return ""
}

// grantPage is the confirmation of a revocation.
type grantPage struct {
	Grant gatehouse.Grant
	Names placeNames
}

// confirmRevokeGrant asks before revoking; a revoked grant has nothing to
// revoke, so the list is shown instead.
func (d *dashboard) confirmRevokeGrant(w http.ResponseWriter, r *http.Request) {
	if !viewerOf(r).user.Can(gatehouse.PermManageGrants) {
		d.fail(w, r, gatehouse.ErrForbidden)
		return
	}
	g, err := d.Service.FindGrant(r.Context(), viewerOf(r).user.OrgID, pathID(r))
	switch {
	case errors.Is(err, gatehouse.ErrNotFound):
		d.errorPage(w, r, http.StatusNotFound, "There is no such grant.")
		return
	case err != nil:
		d.fail(w, r, err)
		return
	}
	if g.RevokedAt != nil {
		http.Redirect(w, r, Prefix+"/grants?platformUserId="+g.PlatformUserID, http.StatusSeeOther)
		return
	}
	every, ok := d.everyLocation(w, r)
	if !ok {
		return
	}
	d.render(w, r, http.StatusOK, "revoke-grant", grantPage{Grant: g, Names: placeNamesOf(every)})
}

// placeNames are the locations' and access points' names by id, an
// access point's followed by its location's.
type placeNames map[uuid.UUID]string

func placeNamesOf(locs []gatehouse.Location) placeNames {
	names := placeNames{}
	for _, l := range locs {
		names[l.ID] = l.Name
		for _, ap := range l.AccessPoints {
			names[ap.ID] = ap.Name + " · " + l.Name
		}
	}
	return names
}

// Where names where g lets its player through: every access point of its
// location, or its access points.
func (n placeNames) Where(g gatehouse.Grant) string {
	if g.LocationID != nil {
		return "every access point of " + n[*g.LocationID]
	}
	aps := make([]string, len(g.AccessPointIDs))
	for i, ap := range g.AccessPointIDs {
		aps[i] = n[ap]
	}
	return strings.Join(aps, ", ")
}

// revokeGrant revokes and goes back to the player's grants.
func (d *dashboard) revokeGrant(w http.ResponseWriter, r *http.Request) {
	g, err := d.Service.RevokeGrant(r.Context(), viewerOf(r).user.OrgID, pathID(r))
	switch {
	case errors.Is(err, gatehouse.ErrNotFound):
		d.errorPage(w, r, http.StatusNotFound, "There is no such grant.")
	case err != nil:
		d.fail(w, r, err)
	default:
		http.Redirect(w, r, Prefix+"/grants?saved=revoked&platformUserId="+url.QueryEscape(g.PlatformUserID), http.StatusSeeOther)
	}
}
