package dashboard

import (
	"errors"
	"net/http"

	"github.com/gatehouse/gatehouse"
)

// Archiving, restoring and deleting locations and access points from the
// Locations page (admins). Archive and delete ask first, on a page of
// their own with one big button (as a lockdown does), so that a tap on
// a phone never retires a door by mistake; restore, which only brings
// one back, is a button on the page.

// retirePage asks before an archive or a delete.
type retirePage struct {
	Title, Explain, Button string
	Action                 string // the form's POST path
	Danger                 bool   // a delete: the red button
	// Problem is why the service refused the delete, with the way out:
	// Instead, the archive of the same record.
	Problem, Instead string
}

// retireTarget is the location or access point of the path.
type retireTarget struct {
	kind, name, path string // "location" or "access point", its name, its dashboard path
	archived         bool   // archived already: a refused delete offers no archive
}

// locationTarget finds the path's location, archived or not; otherwise
// it writes the error page and reports false.
func (d *dashboard) locationTarget(w http.ResponseWriter, r *http.Request) (retireTarget, bool) {
	l, err := d.Service.FindLocation(r.Context(), viewerOf(r).user.OrgID, pathID(r))
	switch {
	case errors.Is(err, gatehouse.ErrNotFound):
		d.errorPage(w, r, http.StatusNotFound, "There is no such location.")
	case err != nil:
		d.fail(w, r, err)
	default:
		return retireTarget{"location", l.Name, Prefix + "/locations/" + l.ID.String(), l.ArchivedAt != nil}, true
	}
	return retireTarget{}, false
}

// accessPointTarget finds the path's access point, archived or not.
func (d *dashboard) accessPointTarget(w http.ResponseWriter, r *http.Request) (retireTarget, bool) {
	locs, ok := d.everyLocation(w, r)
	if !ok {
		return retireTarget{}, false
	}
	ap, _, found := findAccessPoint(locs, pathID(r).String())
	if !found {
		d.errorPage(w, r, http.StatusNotFound, "There is no such access point.")
		return retireTarget{}, false
	}
	return retireTarget{"access point", ap.Name, Prefix + "/access-points/" + ap.ID.String(), ap.ArchivedAt != nil}, true
}

// confirmArchive asks before archiving the path's location (or access
// point, target says which).
func (d *dashboard) confirmArchive(target func(http.ResponseWriter, *http.Request) (retireTarget, bool)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if !d.canManageLocations(w, r) {
			return
		}
		t, ok := target(w, r)
		if !ok {
			return
		}
		explain := "It leaves the lists and menus (Show archived on Locations lists it, with Restore). Its events stay and are still found; the game goes on as before: its events are still accepted and its policy still decides. To stop a door, set its policy to LOCKED instead. Until it is restored, nothing new can name it: no policy change, unlock, grant or lockdown."
		if t.kind == "location" {
			explain = "It and its access points leave the lists and menus (Show archived on Locations lists them, with Restore). Their events stay and are still found; the game goes on as before: their events are still accepted and their policies still decide. Until it is restored, nothing new can name them: no change, unlock, grant or lockdown."
		}
		d.render(w, r, http.StatusOK, "retire", retirePage{Title: "Archive the " + t.kind + " " + t.name, Explain: explain,
			Button: "Archive " + t.name, Action: t.path + "/archive"})
	}
}

// confirmDelete asks before deleting the path's location or access point.
func (d *dashboard) confirmDelete(target func(http.ResponseWriter, *http.Request) (retireTarget, bool)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if !d.canManageLocations(w, r) {
			return
		}
		t, ok := target(w, r)
		if !ok {
			return
		}
		d.render(w, r, http.StatusOK, "retire", deletePage(t))
	}
}

// canManageLocations refuses a confirmation page to a role that may not
// do what it confirms, as the service would refuse the form.
func (d *dashboard) canManageLocations(w http.ResponseWriter, r *http.Request) bool {
	if !viewerOf(r).user.Can(gatehouse.PermManageLocations) {
		d.fail(w, r, gatehouse.ErrForbidden)
		return false
	}
	return true
}

func deletePage(t retireTarget) retirePage {
	explain := "Only an access point made by mistake can be deleted: one that no event names, a remote unlock's included. Its policy goes with it, and it is taken off its grants. This cannot be undone."
	if t.kind == "location" {
		explain = "Only a location made by mistake can be deleted: one with no access points left that no event, remote unlock or lockdown names. Its grants go with it. This cannot be undone."
	}
	return retirePage{Title: "Delete the " + t.kind + " " + t.name, Explain: explain, Button: "Delete " + t.name,
		Action: t.path + "/delete", Danger: true}
}

// archiveLocation, restoreLocation, archiveAccessPoint and
// restoreAccessPoint change the path's record and go back to Locations.
func (d *dashboard) archiveLocation(w http.ResponseWriter, r *http.Request) {
	_, err := d.Service.ArchiveLocation(r.Context(), viewerOf(r).user.OrgID, pathID(r))
	d.retired(w, r, err, "archived")
}

func (d *dashboard) restoreLocation(w http.ResponseWriter, r *http.Request) {
	_, err := d.Service.RestoreLocation(r.Context(), viewerOf(r).user.OrgID, pathID(r))
	d.retired(w, r, err, "restored")
}

func (d *dashboard) archiveAccessPoint(w http.ResponseWriter, r *http.Request) {
	_, err := d.Service.ArchiveAccessPoint(r.Context(), viewerOf(r).user.OrgID, pathID(r))
	d.retired(w, r, err, "archived")
}

func (d *dashboard) restoreAccessPoint(w http.ResponseWriter, r *http.Request) {
	_, err := d.Service.RestoreAccessPoint(r.Context(), viewerOf(r).user.OrgID, pathID(r))
	d.retired(w, r, err, "restored")
}

// deleteLocation and deleteAccessPoint delete the path's record; one that
// history names is refused on the confirmation page again, with why and
// a way to archive it instead.
func (d *dashboard) deleteLocation(w http.ResponseWriter, r *http.Request) {
	d.deleted(w, r, d.Service.DeleteLocation(r.Context(), viewerOf(r).user.OrgID, pathID(r)), d.locationTarget)
}

func (d *dashboard) deleteAccessPoint(w http.ResponseWriter, r *http.Request) {
	d.deleted(w, r, d.Service.DeleteAccessPoint(r.Context(), viewerOf(r).user.OrgID, pathID(r)), d.accessPointTarget)
}

func (d *dashboard) deleted(w http.ResponseWriter, r *http.Request, err error, target func(http.ResponseWriter, *http.Request) (retireTarget, bool)) {
	var se *gatehouse.StateError
	if !errors.As(err, &se) {
		d.retired(w, r, err, "deleted")
		return
	}
	t, ok := target(w, r)
	if !ok {
		return
	}
	p := deletePage(t)
	p.Problem = se.Message
	if !t.archived {
		p.Instead = t.path + "/archive"
	}
	d.render(w, r, http.StatusConflict, "retire", p)
}

// retired answers an archive, restore or delete: back to Locations with
// what was done, or the error page (an unknown record, a role that may
// not, a state that refuses it).
func (d *dashboard) retired(w http.ResponseWriter, r *http.Request, err error, done string) {
	switch {
	case errors.Is(err, gatehouse.ErrNotFound):
		d.errorPage(w, r, http.StatusNotFound, "There is no such location or access point.")
	case err != nil:
		d.fail(w, r, err)
	default:
		http.Redirect(w, r, Prefix+"/locations?done="+done, http.StatusSeeOther)
	}
}
