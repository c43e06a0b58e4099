package dashboard

import (
	"errors"
	"net/http"

	"github.com/gatehouse/gatehouse"
)

// locationLive shows a location as operators watch it now: each door's
// mode, the unlocks and the lockdown in force, the live game servers of
// its universe with their job ids and players, and a copy button for
// every id the SDK and the API need (docs/api.md, "GET
// /locations/{id}/live").
func (d *dashboard) locationLive(w http.ResponseWriter, r *http.Request) {
	live, err := d.Service.LocationLive(r.Context(), viewerOf(r).user.OrgID, pathID(r))
	switch {
	case errors.Is(err, gatehouse.ErrNotFound):
		d.errorPage(w, r, http.StatusNotFound, "There is no such location.")
	case err != nil:
		d.fail(w, r, err)
	default:
		d.render(w, r, http.StatusOK, "location-live", live)
	}
}
