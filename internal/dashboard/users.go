package dashboard

import (
	"errors"
	"net/http"
	"time"

	"github.com/gatehouse/gatehouse"
)

// usersPage lists the organization's users with their roles, for admins.
// Invited is set only on the answer to the form that added a user or made
// a new link, the one time the invitation's link shows.
type usersPage struct {
	Users []gatehouse.User
	Roles []gatehouse.Role
	// Locations are those a role may be limited to, archived ones too
	// (a user may keep one).
	Locations []gatehouse.Location
	Invited   *invitedUser
	// Now tells the invitations whose link expired.
	Now    time.Time
	Form   userForm
	Issues map[string][]string
	// Error says why a change of role or a removal was refused.
	Error string
	// SecondFactorRequired: the organization requires a second factor.
	SecondFactorRequired bool
	// Provider names the OpenID provider ("" for none); ProviderRequired:
	// the organization signs in through it only.
	Provider         string
	ProviderRequired bool
}

type userForm struct {
	Email, Name string
	Role        gatehouse.Role
	Locations   gatehouse.Reach
}

func (d *dashboard) usersPage(w http.ResponseWriter, r *http.Request) {
	d.renderUsers(w, r, http.StatusOK, usersPage{Form: userForm{Role: gatehouse.RoleViewer}})
}

func (d *dashboard) renderUsers(w http.ResponseWriter, r *http.Request, status int, p usersPage) {
	users, err := d.Service.ListUsers(r.Context(), viewerOf(r).user.OrgID)
	if err != nil {
		d.fail(w, r, err)
		return
	}
	p.Users, p.Roles, p.Now = users, gatehouse.Roles, d.Now()
	if p.Locations, err = d.Service.AllLocations(r.Context(), viewerOf(r).user.OrgID, true); err != nil {
		d.fail(w, r, err)
		return
	}
	if p.SecondFactorRequired, err = d.Service.SecondFactorRequired(r.Context(), viewerOf(r).user.OrgID); err != nil {
		d.fail(w, r, err)
		return
	}
	if p.ProviderRequired, err = d.Service.ProviderRequired(r.Context(), viewerOf(r).user.OrgID); err != nil {
		d.fail(w, r, err)
		return
	}
	p.Provider = d.Service.ProviderName()
	d.render(w, r, status, "users", p)
}

// createUser invites a user: the page shows their link this once.
func (d *dashboard) createUser(w http.ResponseWriter, r *http.Request) {
	form := userForm{Email: r.PostFormValue("email"), Name: r.PostFormValue("name"), Role: gatehouse.Role(r.PostFormValue("role"))}
	locations, err := formLocations(r)
	if err != nil {
		d.renderUsers(w, r, http.StatusBadRequest, usersPage{Form: form, Issues: gatehouse.AsValidation(err).Issues})
		return
	}
	form.Locations = locations
	u, token, err := d.Service.InviteUser(r.Context(), gatehouse.NewUser{OrgID: viewerOf(r).user.OrgID, Email: form.Email,
		Name: form.Name, Role: form.Role, Locations: locations})
	var ve *gatehouse.ValidationError
	switch {
	case errors.As(err, &ve):
		d.renderUsers(w, r, http.StatusBadRequest, usersPage{Form: form, Issues: ve.Issues})
	case errors.Is(err, gatehouse.ErrConflict):
		d.renderUsers(w, r, http.StatusConflict, usersPage{Form: form,
			Issues: map[string][]string{"email": {"is already a user of this organization"}}})
	case err != nil:
		d.fail(w, r, err)
	default:
		d.renderUsers(w, r, http.StatusCreated, usersPage{Invited: &invitedUser{Email: u.Email, Link: d.invitationLink(r, token),
			Expires: u.InvitedUntil}, Form: userForm{Role: gatehouse.RoleViewer}})
	}
}

// renewInvitation makes a new link for a user who has not joined: the
// page shows it this once; the old one no longer works.
func (d *dashboard) renewInvitation(w http.ResponseWriter, r *http.Request) {
	u, token, err := d.Service.RenewInvitation(r.Context(), viewerOf(r).user.OrgID, r.PostFormValue("email"))
	switch {
	case errors.Is(err, gatehouse.ErrConflict):
		d.renderUsers(w, r, http.StatusConflict, usersPage{Form: userForm{Role: gatehouse.RoleViewer},
			Error: "That user has joined already: they sign in with their password."})
	case err != nil:
		d.userChanged(w, r, err)
	default:
		d.renderUsers(w, r, http.StatusOK, usersPage{Invited: &invitedUser{Email: u.Email, Link: d.invitationLink(r, token),
			Expires: u.InvitedUntil}, Form: userForm{Role: gatehouse.RoleViewer}})
	}
}

// setUserRole changes a user's role and the locations it is limited to;
// a lowered role ends their sessions.
func (d *dashboard) setUserRole(w http.ResponseWriter, r *http.Request) {
	locations, err := formLocations(r)
	if err == nil {
		_, err = d.Service.SetUserRole(r.Context(), viewerOf(r).user.OrgID, r.PostFormValue("email"),
			gatehouse.Role(r.PostFormValue("role")), locations)
	}
	d.userChanged(w, r, err)
}

// confirmRemoveUser asks before removing: the form on this page does it.
func (d *dashboard) confirmRemoveUser(w http.ResponseWriter, r *http.Request) {
	users, err := d.Service.ListUsers(r.Context(), viewerOf(r).user.OrgID)
	if err != nil {
		d.fail(w, r, err)
		return
	}
	email := r.URL.Query().Get("email")
	for _, u := range users {
		if u.Email == email {
			d.render(w, r, http.StatusOK, "remove-user", u)
			return
		}
	}
	d.errorPage(w, r, http.StatusNotFound, "There is no such user.")
}

// removeUser removes a user of the viewer's organization and ends their
// sessions.
func (d *dashboard) removeUser(w http.ResponseWriter, r *http.Request) {
	_, err := d.Service.RemoveUser(r.Context(), viewerOf(r).user.OrgID, r.PostFormValue("email"))
	d.userChanged(w, r, err)
}

// userChanged answers a change of role or a removal: back to the list,
// or the list saying why the change was refused.
func (d *dashboard) userChanged(w http.ResponseWriter, r *http.Request, err error) {
	var ve *gatehouse.ValidationError
	switch {
	case errors.As(err, &ve):
		d.renderUsers(w, r, http.StatusBadRequest, usersPage{Issues: ve.Issues, Form: userForm{Role: gatehouse.RoleViewer}})
	case errors.Is(err, gatehouse.ErrConflict):
		d.renderUsers(w, r, http.StatusConflict, usersPage{Form: userForm{Role: gatehouse.RoleViewer},
			Error: "The organization must keep an admin of all its locations: make another user one first."})
	case errors.Is(err, gatehouse.ErrNotFound):
		d.errorPage(w, r, http.StatusNotFound, "There is no such user.")
	case err != nil:
		d.fail(w, r, err)
	default:
		http.Redirect(w, r, Prefix+"/users", http.StatusSeeOther)
	}
}
