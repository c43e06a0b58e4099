package dashboard

import (
	"errors"
	"net/http"

	"github.com/gatehouse/gatehouse"
	"github.com/google/uuid"
)

// locationsPage lists the organization's locations with their access
// points, with forms to add and rename them and to move access points.
type locationsPage struct {
	Locations []gatehouse.Location
	Issues    map[string][]string
	Name      string // the create form's value, after an error
	// Archived: the page lists archived locations and access points too
	// (?archived=1, "Show archived"), each marked, with Restore.
	Archived bool
	// Done says what the form just did (?done=): an add, a rename, a
	// move, an archive, a restore or a delete.
	Done string
}

// doneText are the ?done= values of the Locations page, in words.
var doneText = map[string]string{
	"location": "Location added: add its access points below it, and set its universe for remote unlocks.",
	"door":     "Access point added: its id, for the SDK, is beside its name.",
	"renamed":  "Renamed: its events keep the name they were recorded with.",
	"moved":    "Moved: its new events name its new location.",
	"universe": "Universe saved: remote unlocks and policies of its access points go to that universe's game servers.",
	"archived": "Archived: it is hidden from the lists, and its events stay. Show archived to see or restore it.",
	"restored": "Restored: it is in use again.",
	"deleted":  "Deleted.",
}

func (d *dashboard) locationsPage(w http.ResponseWriter, r *http.Request) {
	d.renderLocations(w, r, http.StatusOK, locationsPage{Archived: r.URL.Query().Get("archived") == "1",
		Done: doneText[r.URL.Query().Get("done")]})
}

func (d *dashboard) renderLocations(w http.ResponseWriter, r *http.Request, status int, p locationsPage) {
	locs, err := d.Service.AllLocations(r.Context(), viewerOf(r).user.OrgID, p.Archived)
	if err != nil {
		d.fail(w, r, err)
		return
	}
	p.Locations = locs
	d.render(w, r, status, "locations", p)
}

// saved answers a location form: back to the list, saying what was done
// (done, a key of doneText), or the list with the problems when the store
// refused the input.
func (d *dashboard) saved(w http.ResponseWriter, r *http.Request, err error, name, done string) {
	var ve *gatehouse.ValidationError
	switch {
	case errors.As(err, &ve):
		d.renderLocations(w, r, http.StatusBadRequest, locationsPage{Issues: ve.Issues, Name: name})
	case errors.Is(err, gatehouse.ErrNotFound):
		d.errorPage(w, r, http.StatusNotFound, "There is no such location or access point.")
	case err != nil:
		d.fail(w, r, err)
	default:
		http.Redirect(w, r, Prefix+"/locations?done="+done, http.StatusSeeOther)
	}
}

func (d *dashboard) createLocation(w http.ResponseWriter, r *http.Request) {
	name := r.PostFormValue("name")
	_, err := d.Service.CreateLocation(r.Context(), viewerOf(r).user.OrgID, name)
	d.saved(w, r, err, name, "location")
}

// renameLocation renames a location of the viewer's organization; the
// store matches the id within the organization, so another's is unknown.
func (d *dashboard) renameLocation(w http.ResponseWriter, r *http.Request) {
	_, err := d.Service.RenameLocation(r.Context(), viewerOf(r).user.OrgID, pathID(r), r.PostFormValue("name"))
	d.saved(w, r, err, "", "renamed")
}

func (d *dashboard) createAccessPoint(w http.ResponseWriter, r *http.Request) {
	_, err := d.Service.CreateAccessPoint(r.Context(), viewerOf(r).user.OrgID, pathID(r), r.PostFormValue("name"))
	d.saved(w, r, err, "", "door")
}

// renameAccessPoint renames an access point of the viewer's organization.
func (d *dashboard) renameAccessPoint(w http.ResponseWriter, r *http.Request) {
	_, err := d.Service.RenameAccessPoint(r.Context(), viewerOf(r).user.OrgID, pathID(r), r.PostFormValue("name"))
	d.saved(w, r, err, "", "renamed")
}

// moveAccessPoint re-homes an access point of the viewer's organization
// under the location chosen in the form's locationId; one that is not a
// UUID is the nil UUID, which no location has.
func (d *dashboard) moveAccessPoint(w http.ResponseWriter, r *http.Request) {
	locationID, _ := uuid.Parse(r.PostFormValue("locationId"))
	_, err := d.Service.MoveAccessPoint(r.Context(), viewerOf(r).user.OrgID, pathID(r), locationID)
	d.saved(w, r, err, "", "moved")
}

// pathID is the path's {id}; one that is not a UUID is the nil UUID, which
// no location has, so it reads as unknown.
func pathID(r *http.Request) uuid.UUID {
	id, _ := uuid.Parse(r.PathValue("id"))
	return id
}

// allLocations returns the viewer's organization's locations in use,
// with their access points in use, for a page's menus and forms; on a
// failure it writes the error page and returns false.
func (d *dashboard) allLocations(w http.ResponseWriter, r *http.Request) ([]gatehouse.Location, bool) {
	return d.locations(w, r, false)
}

// everyLocation is allLocations with the archived locations and access
// points too: what names records (grants, a policy's page) finds them
// whatever their state.
func (d *dashboard) everyLocation(w http.ResponseWriter, r *http.Request) ([]gatehouse.Location, bool) {
	return d.locations(w, r, true)
}

func (d *dashboard) locations(w http.ResponseWriter, r *http.Request, withArchived bool) ([]gatehouse.Location, bool) {
	locs, err := d.Service.AllLocations(r.Context(), viewerOf(r).user.OrgID, withArchived)
	if err != nil {
		d.fail(w, r, err)
		return nil, false
	}
	return locs, true
}

// menuOf is the locations of a filter's menus: those in use, with their
// access points in use, and the archived location or access point the
// filter names (locationID, accessPointID; "" for none), so that a view
// of an archived one keeps its filter. every holds archived ones too.
func menuOf(every []gatehouse.Location, locationID, accessPointID string) []gatehouse.Location {
	var menu []gatehouse.Location
	for _, l := range every {
		var aps []gatehouse.AccessPoint
		for _, ap := range l.AccessPoints {
			if (ap.ArchivedAt == nil && l.ArchivedAt == nil) || ap.ID.String() == accessPointID {
				aps = append(aps, ap)
			}
		}
		if l.ArchivedAt == nil || l.ID.String() == locationID || len(aps) > 0 {
			l.AccessPoints = aps
			menu = append(menu, l)
		}
	}
	return menu
}
