package dashboard

// Lockdowns: the operator's one action in an incident. The Lockdown page
// lists what runs and offers one button per location, per universe and
// for the whole organization; each asks for a reason on a second page
// before anything happens, and a running lockdown shows as a banner on
// every page, with its Release.

import (
	"errors"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/gatehouse/gatehouse"
	"github.com/google/uuid"
)

// lockdownsPage is the Lockdown page: the lockdowns running, the recent
// ones, and what may be locked down.
type lockdownsPage struct {
	Active, Recent []gatehouse.Lockdown
	Locations      []gatehouse.Location
	Universes      []string
}

// lockdownStart is the confirmation of a lockdown: its target, in words,
// and the reason and end chosen (with their problems).
type lockdownStart struct {
	Scope      gatehouse.LockdownScope
	UniverseID string
	LocationID string
	Target     string
	Reason     string
	For        string
	Issues     map[string][]string
}

// lockdownEnds are the ends a lockdown may be given on the dashboard.
var lockdownEnds = []struct{ Value, Label string }{
	{"", "until released"}, {"15m", "15 minutes"}, {"1h", "1 hour"}, {"4h", "4 hours"}, {"24h", "24 hours"},
}

// lockdowns shows the Lockdown page.
func (d *dashboard) lockdowns(w http.ResponseWriter, r *http.Request) {
	orgID := viewerOf(r).user.OrgID
	active, err := d.Service.ListLockdowns(r.Context(), orgID, gatehouse.LockdownFilter{Active: true, Limit: gatehouse.MaxLimit})
	if err != nil {
		d.fail(w, r, err)
		return
	}
	recent, err := d.Service.ListLockdowns(r.Context(), orgID, gatehouse.LockdownFilter{Limit: 20})
	if err != nil {
		d.fail(w, r, err)
		return
	}
	locs, ok := d.allLocations(w, r)
	if !ok {
		return
	}
	p := lockdownsPage{Active: active.Lockdowns, Locations: locs}
	for _, l := range recent.Lockdowns {
		if !l.Active {
			p.Recent = append(p.Recent, l)
		}
	}
	for _, l := range locs {
		if l.UniverseID != nil && !slices.Contains(p.Universes, *l.UniverseID) {
			p.Universes = append(p.Universes, *l.UniverseID)
		}
	}
	slices.Sort(p.Universes)
	d.render(w, r, http.StatusOK, "lockdowns", p)
}

// confirmLockdown asks for the reason (and an end) of the lockdown the
// button named, before anything is locked down.
func (d *dashboard) confirmLockdown(w http.ResponseWriter, r *http.Request) {
	if !d.canIssue(w, r) {
		return
	}
	q := r.URL.Query()
	s := lockdownStart{Scope: gatehouse.LockdownScope(q.Get("scope")), UniverseID: q.Get("universeId"), LocationID: q.Get("locationId")}
	if !d.describeLockdown(w, r, &s) {
		return
	}
	d.render(w, r, http.StatusOK, "lockdown-start", s)
}

// describeLockdown says in words what s covers; an unknown target is the
// error page.
func (d *dashboard) describeLockdown(w http.ResponseWriter, r *http.Request, s *lockdownStart) bool {
	switch s.Scope {
	case gatehouse.LockdownOrganization:
		s.Target = "every access point of your organization"
		return true
	case gatehouse.LockdownUniverse:
		s.Target = "every access point of the locations in universe " + s.UniverseID
		return true
	case gatehouse.LockdownLocation:
		id, err := uuid.Parse(s.LocationID)
		if err == nil {
			var loc gatehouse.Location
			if loc, err = d.Service.FindLocation(r.Context(), viewerOf(r).user.OrgID, id); err == nil {
				s.Target = "every access point of " + loc.Name
				return true
			}
		}
		if err != nil && !errors.Is(err, gatehouse.ErrNotFound) && !errors.Is(err, gatehouse.ErrInvalid) {
			d.fail(w, r, err)
			return false
		}
	}
	d.errorPage(w, r, http.StatusNotFound, "There is no such location to lock down.")
	return false
}

// startLockdown starts the lockdown confirmed; a problem (no reason)
// shows the confirmation again, next to its field.
func (d *dashboard) startLockdown(w http.ResponseWriter, r *http.Request) {
	s := lockdownStart{Scope: gatehouse.LockdownScope(r.PostFormValue("scope")), UniverseID: r.PostFormValue("universeId"),
		LocationID: r.PostFormValue("locationId"), Reason: strings.TrimSpace(r.PostFormValue("reason")), For: r.PostFormValue("for")}
	req := gatehouse.LockdownRequest{Scope: s.Scope, Reason: s.Reason}
	switch s.Scope {
	case gatehouse.LockdownUniverse:
		req.UniverseID = &s.UniverseID
	case gatehouse.LockdownLocation:
		id, _ := uuid.Parse(s.LocationID)
		req.LocationID = &id
	}
	if s.For != "" {
		dur, err := time.ParseDuration(s.For)
		if err != nil || !slices.ContainsFunc(lockdownEnds, func(e struct{ Value, Label string }) bool { return e.Value == s.For }) {
			d.errorPage(w, r, http.StatusBadRequest, "Choose how long the lockdown lasts from the list.")
			return
		}
		u := gatehouse.Time(d.Now().Add(dur))
		req.Until = &u
	}
	_, err := d.Service.StartLockdown(r.Context(), viewerOf(r).user.OrgID, req)
	var ve *gatehouse.ValidationError
	switch {
	case errors.As(err, &ve):
		if !d.describeLockdown(w, r, &s) {
			return
		}
		s.Issues = ve.Issues
		d.render(w, r, http.StatusBadRequest, "lockdown-start", s)
	case err != nil:
		d.fail(w, r, err)
	default:
		http.Redirect(w, r, Prefix+"/lockdowns", http.StatusSeeOther)
	}
}

// confirmRelease asks before releasing a lockdown; one that ended is
// its page's business: back to the list.
func (d *dashboard) confirmRelease(w http.ResponseWriter, r *http.Request) {
	if !d.canIssue(w, r) {
		return
	}
	l, err := d.Service.FindLockdown(r.Context(), viewerOf(r).user.OrgID, pathID(r))
	switch {
	case errors.Is(err, gatehouse.ErrNotFound):
		d.errorPage(w, r, http.StatusNotFound, "There is no such lockdown.")
	case err != nil:
		d.fail(w, r, err)
	case !l.Active:
		http.Redirect(w, r, Prefix+"/lockdowns", http.StatusSeeOther)
	default:
		d.render(w, r, http.StatusOK, "lockdown-release", l)
	}
}

// releaseLockdown releases a lockdown (one released already stays as it
// is) and goes back to the list.
func (d *dashboard) releaseLockdown(w http.ResponseWriter, r *http.Request) {
	_, err := d.Service.ReleaseLockdown(r.Context(), viewerOf(r).user.OrgID, pathID(r))
	switch {
	case errors.Is(err, gatehouse.ErrNotFound):
		d.errorPage(w, r, http.StatusNotFound, "There is no such lockdown.")
	case err != nil:
		d.fail(w, r, err)
	default:
		http.Redirect(w, r, Prefix+"/lockdowns", http.StatusSeeOther)
	}
}

// lockdownTarget says what a lockdown covers, in words.
func lockdownTarget(l gatehouse.Lockdown) string {
	switch {
	case l.Location != nil:
		return l.Location.Name
	case l.UniverseID != nil:
		return "universe " + *l.UniverseID
	}
	return "the whole organization"
}

// activeLockdowns are the lockdowns running in the viewer's organization,
// for the banner of every page; none when they cannot be read (the page
// itself says what fails).
func (d *dashboard) activeLockdowns(r *http.Request) []gatehouse.Lockdown {
	v := viewerOf(r)
	if v.user.OrgID == uuid.Nil {
		return nil
	}
	page, err := d.Service.ListLockdowns(r.Context(), v.user.OrgID, gatehouse.LockdownFilter{Active: true, Limit: 10})
	if err != nil {
		return nil
	}
	return page.Lockdowns
}
