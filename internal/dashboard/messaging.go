package dashboard

import (
	"errors"
	"net/http"
	"net/url"

	"github.com/gatehouse/gatehouse"
)

// messagingPage lists the universes whose commands are pushed to the
// platform's messaging, by key hint, with the forms to set and remove a
// key. A key typed in is never rendered back, not even when the form has
// a problem.
type messagingPage struct {
	Keys     []gatehouse.MessagingKey
	Universe string
	Issues   map[string][]string
	// Set and Removed name the universe the last form changed.
	Set, Removed string
}

func (d *dashboard) messagingPage(w http.ResponseWriter, r *http.Request) {
	var p messagingPage
	if u := r.URL.Query().Get("set"); gatehouse.IsUniverseID(u) {
		p.Set = u
	}
	if u := r.URL.Query().Get("removed"); gatehouse.IsUniverseID(u) {
		p.Removed = u
	}
	d.renderMessaging(w, r, http.StatusOK, p)
}

func (d *dashboard) renderMessaging(w http.ResponseWriter, r *http.Request, status int, p messagingPage) {
	keys, err := d.Service.ListMessaging(r.Context(), viewerOf(r).user.OrgID)
	if err != nil {
		d.fail(w, r, err)
		return
	}
	p.Keys = keys
	d.render(w, r, status, "messaging", p)
}

// setMessaging stores a universe's key from the password field, then
// redirects (POST-redirect-GET: a reload sends nothing again).
func (d *dashboard) setMessaging(w http.ResponseWriter, r *http.Request) {
	universe := r.PostFormValue("universeId")
	k, err := d.Service.SetMessaging(r.Context(), viewerOf(r).user.OrgID, universe, r.PostFormValue("apiKey"))
	var ve *gatehouse.ValidationError
	if errors.As(err, &ve) {
		d.renderMessaging(w, r, http.StatusBadRequest, messagingPage{Universe: universe, Issues: ve.Issues})
		return
	}
	if err != nil {
		d.fail(w, r, err)
		return
	}
	http.Redirect(w, r, Prefix+"/messaging?set="+url.QueryEscape(k.UniverseID), http.StatusSeeOther)
}

// removeMessaging deletes a universe's key; the service matches it
// within the organization, so another's is unknown.
func (d *dashboard) removeMessaging(w http.ResponseWriter, r *http.Request) {
	universe := r.PostFormValue("universeId")
	err := d.Service.RemoveMessaging(r.Context(), viewerOf(r).user.OrgID, universe)
	switch {
	case errors.Is(err, gatehouse.ErrNotFound), errors.Is(err, gatehouse.ErrInvalid):
		d.errorPage(w, r, http.StatusNotFound, "That universe has no messaging key.")
	case err != nil:
		d.fail(w, r, err)
	default:
		http.Redirect(w, r, Prefix+"/messaging?removed="+url.QueryEscape(universe), http.StatusSeeOther)
	}
}
