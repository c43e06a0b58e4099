package dashboard

import (
	"errors"
	"net/http"

	"github.com/gatehouse/gatehouse"
	"github.com/google/uuid"
)

// invitationsPage lists the organizations that added the signed-in
// user's email and wait for that person to accept (see
// service.Service.SignIn: an invitation of an email that already
// belongs to someone takes no part in sign-in).
type invitationsPage struct {
	Invitations []gatehouse.SignInChoice
}

func (d *dashboard) invitationsPage(w http.ResponseWriter, r *http.Request) {
	invitations, err := d.Service.Invitations(r.Context())
	if err != nil {
		d.fail(w, r, err)
		return
	}
	d.render(w, r, http.StatusOK, "invitations", invitationsPage{Invitations: invitations})
}

// acceptInvitation joins the organization of the invitation picked and
// continues there: this session ends, one of the accepted user starts.
func (d *dashboard) acceptInvitation(w http.ResponseWriter, r *http.Request) {
	userID, _ := uuid.Parse(r.PostFormValue("user"))
	session, token, user, err := d.Service.AcceptInvitation(r.Context(), userID)
	var second *gatehouse.SecondFactorError
	switch {
	case errors.As(err, &second):
		d.renderSecondStep(w, r, second, http.StatusOK, secondStepPage{})
		return
	case errors.Is(err, gatehouse.ErrNotFound):
		d.errorPage(w, r, http.StatusNotFound, "That invitation is not waiting for you (any more).")
		return
	case err != nil:
		d.fail(w, r, err)
		return
	}
	if err := d.Service.SignOut(r.Context(), viewerOf(r).session); err != nil {
		d.fail(w, r, err)
		return
	}
	d.signIn(w, r, session, token, user, "")
}
