package dashboard

import (
	"errors"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/gatehouse/gatehouse"
)

// keysPage lists the organization's API keys; Created is set only on the
// answer to the form that created a key, the one time its raw value shows.
type keysPage struct {
	Keys []keyRow
	// Expiring counts the active keys that expire within
	// gatehouse.ExpiryWarning: the page warns of them above the list.
	Expiring int
	Scopes   []gatehouse.Scope
	// Locations are those a new key may be limited to: the viewer's.
	Locations []gatehouse.Location
	// Limited: the viewer's role is limited to locations, and so is
	// every key they make.
	Limited bool
	// ReachScopes are those a key limited to locations may hold.
	ReachScopes []gatehouse.Scope
	Created     *createdKey
	Form        keyForm
	Issues      map[string][]string
}

type keyRow struct {
	gatehouse.APIKey
	Status      string
	ExpiresSoon bool
	// Reach names the locations the key is limited to, "" for all.
	Reach string
}

func newKeyRow(k gatehouse.APIKey, now time.Time, locs []gatehouse.Location) keyRow {
	row := keyRow{APIKey: k, Status: k.Status(now), ExpiresSoon: k.ExpiresSoon(now)}
	if !k.Reach.Whole() {
		row.Reach = reachChoice{Locations: locs, Chosen: k.Reach}.Summary()
	}
	return row
}

type createdKey struct {
	Raw, Prefix, Name string
}

type keyForm struct {
	Name    string
	Scopes  []string
	Expires string // days, or "" for never
	Rate    string // "N/s" or "N/m", or "" for the server's
	// Locations limit the key (none: the whole organization, or all the
	// viewer's).
	Locations gatehouse.Reach
}

// expiryChoices are the lifetimes the form offers, in days.
var expiryChoices = []string{"30", "90", "365"}

// keyPresets are the forms the page offers filled by name (?preset=…).
// A game server's key carries what the Luau SDK calls and nothing more
// (gatehouse.GameServerScopes), never expires unless asked (when it does,
// every server of the experience fails closed at once), and has a rate
// for hundreds of servers sharing it (gatehouse.GameServerRate).
var keyPresets = map[string]keyForm{
	"game-server": {Name: "game-servers", Scopes: scopeNames(gatehouse.GameServerScopes), Expires: "", Rate: gatehouse.GameServerRate.String()},
	"reader":      {Scopes: scopeNames([]gatehouse.Scope{gatehouse.ScopeEventsRead, gatehouse.ScopeLocationsRead}), Expires: "90"},
}

func scopeNames(scopes []gatehouse.Scope) []string {
	s := make([]string, len(scopes))
	for i, sc := range scopes {
		s[i] = string(sc)
	}
	return s
}

// keysPage lists the keys, with the key just created shown once (see
// takeCreatedKey) and the form preset as ?preset= asks.
func (d *dashboard) keysPage(w http.ResponseWriter, r *http.Request) {
	p := keysPage{Form: keyForm{Scopes: []string{string(gatehouse.ScopeEventsRead)}, Expires: "90"},
		Created: takeCreatedKey(w, r)}
	if form, ok := keyPresets[r.URL.Query().Get("preset")]; ok {
		p.Form = form
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
	v := viewerOf(r)
	locs, err := d.Service.AllLocations(r.Context(), v.user.OrgID, true)
	if err != nil {
		d.fail(w, r, err)
		return
	}
	p.Limited, p.Scopes, p.ReachScopes = !v.user.Reach.Whole(), gatehouse.Scopes, gatehouse.ReachScopes
	if p.Limited {
		p.Scopes = gatehouse.ReachScopes
	}
	for _, l := range locs {
		if l.ArchivedAt == nil {
			p.Locations = append(p.Locations, l)
		}
	}
	for _, k := range keys {
		row := newKeyRow(k, now, locs)
		if row.ExpiresSoon {
			p.Expiring++
		}
		p.Keys = append(p.Keys, row)
	}
	d.render(w, r, status, "keys", p)
}

// createKey stores a key and redirects to the keys page, which shows it,
// raw, this once (POST-redirect-GET: reloading that page creates nothing).
func (d *dashboard) createKey(w http.ResponseWriter, r *http.Request) {
	form := keyForm{Name: r.PostFormValue("name"), Scopes: r.PostForm["scope"], Expires: r.PostFormValue("expires"),
		Rate: strings.TrimSpace(r.PostFormValue("rate"))}
	nk := gatehouse.NewAPIKey{OrgID: viewerOf(r).user.OrgID, Name: form.Name}
	for _, sc := range form.Scopes {
		nk.Scopes = append(nk.Scopes, gatehouse.Scope(sc))
	}
	var formErrs gatehouse.ValidationError
	locations, err := formLocations(r)
	formErrs.Merge("", gatehouse.AsValidation(err))
	form.Locations, nk.Locations = locations, locations
	if form.Expires != "" {
		if !slices.Contains(expiryChoices, form.Expires) {
			formErrs.Add("expires", "choose one of the offered lifetimes")
		} else {
			days, _ := strconv.Atoi(form.Expires)
			nk.Lifetime = time.Duration(days) * 24 * time.Hour
		}
	}
	if form.Rate != "" {
		if rate, err := gatehouse.ParseRate(form.Rate); err != nil {
			formErrs.Add("rate", "%v", err)
		} else {
			nk.RateLimit = &rate
		}
	}
	var (
		k   gatehouse.APIKey
		raw string
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
		d.render(w, r, http.StatusOK, "revoke", newKeyRow(k, d.Now(), nil))
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

// keyRatePage is the form that changes a key's rate limit.
type keyRatePage struct {
	Key    keyRow
	Rate   string // as typed; "" for the server's
	Issues map[string][]string
}

// keyRateForm shows the form that changes one of the organization's
// keys' rate limit.
func (d *dashboard) keyRateForm(w http.ResponseWriter, r *http.Request) {
	if k, ok := d.ownKey(w, r); ok {
		p := keyRatePage{Key: newKeyRow(k, d.Now(), nil)}
		if k.RateLimit != nil {
			p.Rate = k.RateLimit.String()
		}
		d.render(w, r, http.StatusOK, "key-rate", p)
	}
}

// setKeyRate changes a key's rate limit (empty: the server's), which
// every instance applies within a second, and goes back to the keys.
func (d *dashboard) setKeyRate(w http.ResponseWriter, r *http.Request) {
	typed := strings.TrimSpace(r.PostFormValue("rate"))
	var rate *gatehouse.Rate
	var err error
	if typed != "" {
		var parsed gatehouse.Rate
		if parsed, err = gatehouse.ParseRate(typed); err == nil {
			rate = &parsed
		} else {
			err = gatehouse.Invalid("rate", "%v", err)
		}
	}
	if err == nil {
		_, err = d.Service.SetAPIKeyRate(r.Context(), viewerOf(r).user.OrgID, pathID(r), rate)
	}
	var ve *gatehouse.ValidationError
	switch {
	case errors.As(err, &ve):
		k, ok := d.ownKey(w, r)
		if !ok {
			return
		}
		issues := map[string][]string{}
		for _, msgs := range ve.Issues {
			issues["rate"] = append(issues["rate"], msgs...)
		}
		d.render(w, r, http.StatusBadRequest, "key-rate", keyRatePage{Key: newKeyRow(k, d.Now(), nil), Rate: typed, Issues: issues})
	case errors.Is(err, gatehouse.ErrNotFound):
		d.errorPage(w, r, http.StatusNotFound, "There is no such key.")
	case err != nil:
		d.fail(w, r, err)
	default:
		http.Redirect(w, r, Prefix+"/keys", http.StatusSeeOther)
	}
}
