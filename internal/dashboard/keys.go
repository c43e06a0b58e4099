package dashboard

import (
	"errors"
	"net/http"
	"slices"
	"strconv"
	"time"

	"github.com/gatehouse/gatehouse"
)

// keysPage lists the organization's API keys; Created is set only on the
// answer to the form that created a key, the one time its raw value shows.
type keysPage struct {
	Keys    []keyRow
	Scopes  []gatehouse.Scope
	Created *createdKey
	Form    keyForm
	Issues  map[string][]string
}

type keyRow struct {
	gatehouse.APIKey
	Status string
}

type createdKey struct {
	Raw, Prefix, Name string
}

type keyForm struct {
	Name    string
	Scopes  []string
	Expires string // days, or "" for never
}

// expiryChoices are the lifetimes the form offers, in days.
var expiryChoices = []string{"30", "90", "365"}

// keyPresets are the scope sets the form offers by name (?preset=…): a
// game server's key is "server,events:write", as the contract says.
var keyPresets = map[string][]string{
	"game-server": {string(gatehouse.ScopeGameServer), string(gatehouse.ScopeEventsWrite)},
	"reader":      {string(gatehouse.ScopeEventsRead), string(gatehouse.ScopeLocationsRead)},
}

// keysPage lists the keys, with the key just created shown once (see
// takeCreatedKey) and the form preset as ?preset= asks.
func (d *dashboard) keysPage(w http.ResponseWriter, r *http.Request) {
	p := keysPage{Form: keyForm{Scopes: []string{string(gatehouse.ScopeEventsRead)}, Expires: "90"},
		Created: takeCreatedKey(w, r)}
	if scopes, ok := keyPresets[r.URL.Query().Get("preset")]; ok {
		p.Form.Scopes = scopes
	}
	d.renderKeys(w, r, http.StatusOK, p)
}

func (d *dashboard) renderKeys(w http.ResponseWriter, r *http.Request, status int, p keysPage) {
	keys, err := d.Service.ListAPIKeys(r.Context(), viewerOf(r).user.OrgID)
	if err != nil {
		d.fail(w, r, err)
		return
	}
	now := d.Now()
	for _, k := range keys {
		p.Keys = append(p.Keys, keyRow{APIKey: k, Status: k.Status(now)})
	}
	p.Scopes = gatehouse.Scopes
	d.render(w, r, status, "keys", p)
}

// createKey stores a key and redirects to the keys page, which shows it,
// raw, this once (POST-redirect-GET: reloading that page creates nothing).
func (d *dashboard) createKey(w http.ResponseWriter, r *http.Request) {
	form := keyForm{Name: r.PostFormValue("name"), Scopes: r.PostForm["scope"], Expires: r.PostFormValue("expires")}
	nk := gatehouse.NewAPIKey{OrgID: viewerOf(r).user.OrgID, Name: form.Name}
	for _, sc := range form.Scopes {
		nk.Scopes = append(nk.Scopes, gatehouse.Scope(sc))
	}
	var formErrs gatehouse.ValidationError
	if form.Expires != "" {
		if !slices.Contains(expiryChoices, form.Expires) {
			formErrs.Add("expires", "choose one of the offered lifetimes")
		} else {
			days, _ := strconv.Atoi(form.Expires)
			nk.Lifetime = time.Duration(days) * 24 * time.Hour
		}
	}
	var (
		k   gatehouse.APIKey
		raw string
		err error
	)
	if formErrs.Err() != nil {
		err = d.Service.CheckAPIKey(nk) // every problem at once
	} else {
		k, raw, err = d.Service.CreateAPIKey(r.Context(), nk)
	}
	var ve *gatehouse.ValidationError
	if errors.As(err, &ve) || formErrs.Err() != nil {
		if ve != nil {
			for field, msgs := range ve.Issues {
				if field == "scopes" {
					field = "scope" // the form's name for the checkboxes
				}
				for _, m := range msgs {
					formErrs.Add(field, "%s", m)
				}
			}
		}
		d.renderKeys(w, r, http.StatusBadRequest, keysPage{Form: form, Issues: formErrs.Issues})
		return
	}
	if err != nil {
		d.fail(w, r, err)
		return
	}
	giveCreatedKey(w, r, createdKey{Raw: raw, Prefix: k.Prefix, Name: k.Name})
	http.Redirect(w, r, Prefix+"/keys", http.StatusSeeOther)
}

// ownKey finds one of the viewer's organization's keys by the path's id;
// any other id reads as unknown.
func (d *dashboard) ownKey(w http.ResponseWriter, r *http.Request) (gatehouse.APIKey, bool) {
	k, err := d.Service.FindAPIKey(r.Context(), viewerOf(r).user.OrgID, pathID(r))
	switch {
	case errors.Is(err, gatehouse.ErrNotFound):
		d.errorPage(w, r, http.StatusNotFound, "There is no such key.")
		return k, false
	case err != nil:
		d.fail(w, r, err)
		return k, false
	}
	return k, true
}

// confirmRevoke asks before revoking: the form on this page does it.
func (d *dashboard) confirmRevoke(w http.ResponseWriter, r *http.Request) {
	if k, ok := d.ownKey(w, r); ok {
		d.render(w, r, http.StatusOK, "revoke", keyRow{APIKey: k, Status: k.Status(d.Now())})
	}
}

// revokeKey revokes one of the viewer's organization's keys; the service
// matches the id within the organization, so another's is unknown.
func (d *dashboard) revokeKey(w http.ResponseWriter, r *http.Request) {
	_, err := d.Service.RevokeAPIKey(r.Context(), viewerOf(r).user.OrgID, pathID(r))
	switch {
	case errors.Is(err, gatehouse.ErrNotFound):
		d.errorPage(w, r, http.StatusNotFound, "There is no such key.")
	case err != nil:
		d.fail(w, r, err)
	default:
		http.Redirect(w, r, Prefix+"/keys", http.StatusSeeOther)
	}
}
