package dashboard

import (
	"errors"
	"net/http"
	"strings"
	"time"

	"github.com/gatehouse/gatehouse"
	"github.com/gatehouse/gatehouse/internal/service"
)

// joinPage is an invitation link's page: who is invited where, and the
// form that sets their password, or why the link does nothing.
type joinPage struct {
	Joining service.Joining
	// Problem says why the link does not work (used, expired, or an
	// organization that signs in through the provider only), instead of
	// the form.
	Problem string
	// SignIn: the email signs in already; the page sends there.
	SignIn bool
	// Provider names the OpenID provider the person may join through
	// ("" for none).
	Provider string
	Issues   map[string][]string
}

// join shows the page of an invitation link: the token in the path is
// the credential, so neither this page nor its form needs a session.
func (d *dashboard) joinForm(w http.ResponseWriter, r *http.Request) {
	j, err := d.Service.Invitation(r.Context(), r.PathValue("token"))
	if err != nil {
		d.joinRefused(w, r, err)
		return
	}
	d.render(w, r, http.StatusOK, "join", joinPage{Joining: j, Provider: d.Service.ProviderName()})
}

// join sets the invited user's password, uses the link and signs them
// in.
func (d *dashboard) join(w http.ResponseWriter, r *http.Request) {
	token, password := r.PathValue("token"), r.PostFormValue("password")
	if password != r.PostFormValue("confirm") {
		j, err := d.Service.Invitation(r.Context(), token)
		if err != nil {
			d.joinRefused(w, r, err)
			return
		}
		d.render(w, r, http.StatusBadRequest, "join", joinPage{Joining: j, Provider: d.Service.ProviderName(),
			Issues: map[string][]string{"confirm": {"does not match the password"}}})
		return
	}
	session, sessionToken, user, err := d.Service.Join(anonymous(r), token, password)
	var ve *gatehouse.ValidationError
	switch {
	case errors.As(err, &ve):
		j, err := d.Service.Invitation(r.Context(), token)
		if err != nil {
			d.joinRefused(w, r, err)
			return
		}
		d.render(w, r, http.StatusBadRequest, "join", joinPage{Joining: j, Provider: d.Service.ProviderName(), Issues: ve.Issues})
	case err != nil:
		d.joinRefused(w, r, err)
	default:
		d.signIn(w, r, session, sessionToken, user, "")
	}
}

// joinRefused answers a link that does not work, saying why.
func (d *dashboard) joinRefused(w http.ResponseWriter, r *http.Request, err error) {
	switch {
	case errors.Is(err, gatehouse.ErrInvitationExpired):
		d.render(w, r, http.StatusGone, "join", joinPage{Problem: "This invitation link has expired. Ask an admin of the organization for a new one."})
	case errors.Is(err, gatehouse.ErrProviderRequired):
		d.render(w, r, http.StatusForbidden, "join", joinPage{Problem: "Your organization signs in through " + d.Service.ProviderName() +
			" only: join by signing in there with the email you were invited with.", SignIn: true, Provider: d.Service.ProviderName()})
	case errors.Is(err, gatehouse.ErrNotFound):
		d.render(w, r, http.StatusNotFound, "join", joinPage{Problem: "This invitation link has been used, or replaced by a newer one. Sign in if you set your password through it; otherwise ask an admin of the organization for a new link."})
	default:
		d.fail(w, r, err)
	}
}

// invitationLink is the whole link of an invitation's token, for the
// admin to hand on: under --public-url when the server has one, else
// under the address this request came to.
func (d *dashboard) invitationLink(r *http.Request, token string) string {
	base := d.PublicURL
	if base == "" {
		scheme := "http"
		if secure(r) {
			scheme = "https"
		}
		base = scheme + "://" + r.Host
	}
	return strings.TrimRight(base, "/") + gatehouse.InvitationPath(token)
}

// invitedUser is a link just made, shown to the admin this once.
type invitedUser struct {
	Email, Link string
	Expires     time.Time
}
