package dashboard

import (
	"errors"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/gatehouse/gatehouse"
	"github.com/google/uuid"
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

func (d *dashboard) keysPage(w http.ResponseWriter, r *http.Request) {
	d.renderKeys(w, r, http.StatusOK, keysPage{Form: keyForm{Scopes: []string{string(gatehouse.ScopeEventsRead)}, Expires: "90"}})
}

func (d *dashboard) renderKeys(w http.ResponseWriter, r *http.Request, status int, p keysPage) {
	keys, err := d.Store.ListAPIKeys(r.Context(), viewerOf(r).user.OrgID)
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

// createKey stores a key and shows it, raw, this once.
func (d *dashboard) createKey(w http.ResponseWriter, r *http.Request) {
	form := keyForm{Name: r.PostFormValue("name"), Scopes: r.PostForm["scope"], Expires: r.PostFormValue("expires")}
	var errs gatehouse.ValidationError
	name, err := gatehouse.CheckName("name", form.Name)
	var ve *gatehouse.ValidationError
	if errors.As(err, &ve) {
		errs.Merge("", ve)
	}
	var scopes []gatehouse.Scope
	if len(form.Scopes) == 0 {
		errs.Add("scope", "choose at least one scope")
	} else if sc, err := gatehouse.ParseScopes(strings.Join(form.Scopes, ",")); err != nil {
		errs.Add("scope", "%s", err.Error())
	} else {
		scopes = sc
	}
	now := gatehouse.Truncate(d.Now())
	k := gatehouse.APIKey{ID: gatehouse.NewID(), OrgID: viewerOf(r).user.OrgID, Name: name, Scopes: scopes, CreatedAt: now}
	if form.Expires != "" {
		if !slices.Contains(expiryChoices, form.Expires) {
			errs.Add("expires", "choose one of the offered lifetimes")
		} else {
			days, _ := strconv.Atoi(form.Expires)
			t := now.Add(time.Duration(days) * 24 * time.Hour)
			k.ExpiresAt = &t
		}
	}
	if len(errs.Issues) > 0 {
		d.renderKeys(w, r, http.StatusBadRequest, keysPage{Form: form, Issues: errs.Issues})
		return
	}
	raw, prefix, hash := gatehouse.GenerateKey()
	k.Prefix, k.Hash = prefix, hash
	if err := d.Store.CreateAPIKey(r.Context(), k); err != nil {
		d.fail(w, r, err)
		return
	}
	d.renderKeys(w, r, http.StatusCreated, keysPage{Created: &createdKey{Raw: raw, Prefix: prefix, Name: name},
		Form: keyForm{Scopes: []string{string(gatehouse.ScopeEventsRead)}, Expires: "90"}})
}

// ownKey finds one of the viewer's organization's keys by the path's id;
// any other id reads as unknown.
func (d *dashboard) ownKey(w http.ResponseWriter, r *http.Request) (gatehouse.APIKey, bool) {
	id, err := uuid.Parse(r.PathValue("id"))
	if err == nil {
		keys, err := d.Store.ListAPIKeys(r.Context(), viewerOf(r).user.OrgID)
		if err != nil {
			d.fail(w, r, err)
			return gatehouse.APIKey{}, false
		}
		if i := slices.IndexFunc(keys, func(k gatehouse.APIKey) bool { return k.ID == id }); i >= 0 {
			return keys[i], true
		}
	}
	d.errorPage(w, r, http.StatusNotFound, "There is no such key.")
	return gatehouse.APIKey{}, false
}

// confirmRevoke asks before revoking: the form on this page does it.
func (d *dashboard) confirmRevoke(w http.ResponseWriter, r *http.Request) {
	if k, ok := d.ownKey(w, r); ok {
		d.render(w, r, http.StatusOK, "revoke", keyRow{APIKey: k, Status: k.Status(d.Now())})
	}
}

func (d *dashboard) revokeKey(w http.ResponseWriter, r *http.Request) {
	k, ok := d.ownKey(w, r)
	if !ok {
		return
	}
	if k.RevokedAt == nil {
		if _, err := d.Store.RevokeAPIKey(r.Context(), k.ID, d.Now()); err != nil {
			d.fail(w, r, err)
			return
		}
	}
	http.Redirect(w, r, Prefix+"/keys", http.StatusSeeOther)
}
