package dashboard

// Signing in through the OpenID provider (--oidc-issuer).

import (
	"errors"
	"log/slog"
	"net/http"

	"github.com/gatehouse/gatehouse"
	"github.com/gatehouse/gatehouse/internal/ratelimit"
	"github.com/google/uuid"
)

// providerCookie keeps a sign-in through the provider while the browser
// is away there: SameSite=Lax, since the provider sends the browser back
// with a top-level GET from its own site.
const providerCookie = "gatehouse_oidc"

// beginProviderSignIn sends the browser to the provider.
func (d *dashboard) beginProviderSignIn(w http.ResponseWriter, r *http.Request) {
	next := safeNext(r.URL.Query().Get("next"))
	url, cookie, err := d.Service.BeginProviderSignIn(r.Context(), next)
	switch {
	case errors.Is(err, gatehouse.ErrNoProvider):
		d.errorPage(w, r, http.StatusNotFound, "This Gatehouse signs in with passwords only.")
		return
	case errors.Is(err, gatehouse.ErrUnavailable):
		d.renderLogin(w, r, http.StatusServiceUnavailable, loginPage{Next: next, Error: "The identity provider does not answer. Try again in a moment."})
		return
	case err != nil:
		d.fail(w, r, err)
		return
	}
	http.SetCookie(w, &http.Cookie{Name: providerCookie, Value: cookie, Path: Prefix + "/login/oidc", HttpOnly: true,
		Secure: secure(r), SameSite: http.SameSiteLaxMode, MaxAge: int(gatehouse.ProviderFlowLifetime.Seconds())})
	http.Redirect(w, r, url, http.StatusSeeOther)
}

// providerCallback is where the provider sends the browser back: the
// flow's cookie is spent whatever happens, so an answer is used once.
func (d *dashboard) providerCallback(w http.ResponseWriter, r *http.Request) {
	http.SetCookie(w, &http.Cookie{Name: providerCookie, Path: Prefix + "/login/oidc", MaxAge: -1, HttpOnly: true, Secure: secure(r)})
	q := r.URL.Query()
	if e := q.Get("error"); e != "" {
		d.providerRefused(w, r, http.StatusUnauthorized, "The identity provider did not sign you in ("+e+").")
		return
	}
	var cookie string
	if c, err := r.Cookie(providerCookie); err == nil {
		cookie = c.Value
	}
	session, token, user, next, err := d.Service.FinishProviderSignIn(anonymous(r), cookie, q.Get("state"), q.Get("code"))
	d.providerSignedIn(w, r, session, token, user, safeNext(next), err)
}

// invitationsPage shows the invitations waiting for an email the
// provider verified: the person picks one to join, or goes on without.
type invitationsPage struct {
	CSRF, Next string
	Waiting    *gatehouse.InvitationsError
}

// providerSignedIn answers a sign-in through the provider, or a choice
// made after it.
func (d *dashboard) providerSignedIn(w http.ResponseWriter, r *http.Request, session gatehouse.Session, token string, user gatehouse.User, next string, err error) {
	var (
		choice  *gatehouse.ChoiceError
		second  *gatehouse.SecondFactorError
		waiting *gatehouse.InvitationsError
	)
	switch {
	case errors.As(err, &waiting):
		p := invitationsPage{CSRF: gatehouse.NewToken(), Next: next, Waiting: waiting}
		for name, value := range map[string]string{loginCookie: p.CSRF, verifiedCookie: waiting.Token} {
			http.SetCookie(w, &http.Cookie{Name: name, Value: value, Path: Prefix + "/login", HttpOnly: true,
				Secure: secure(r), SameSite: http.SameSiteStrictMode, MaxAge: int(gatehouse.ProviderFlowLifetime.Seconds())})
		}
		d.render(w, r, http.StatusOK, "provider-invitations", p)
	case errors.As(err, &choice):
		d.renderChoice(w, r, choice, next)
	case errors.As(err, &second):
		d.renderSecondStep(w, r, second, http.StatusOK, secondStepPage{Next: next})
	case errors.Is(err, gatehouse.ErrEmailNotVerified):
		d.providerRefused(w, r, http.StatusForbidden, "The identity provider has not verified your email address, so it cannot sign you in here. Verify it there first.")
	case errors.Is(err, gatehouse.ErrProviderSignInFailed):
		d.providerRefused(w, r, http.StatusUnauthorized, "The sign-in through the identity provider failed or expired. Please try again.")
	case errors.Is(err, gatehouse.ErrNoProvider):
		d.errorPage(w, r, http.StatusNotFound, "This Gatehouse signs in with passwords only.")
	case errors.Is(err, gatehouse.ErrNotFound):
		d.providerRefused(w, r, http.StatusForbidden, "Nobody with your email address is a member here, and no invitation waits for it. Ask an admin of your organization to invite you.")
	case errors.Is(err, gatehouse.ErrUnavailable):
		d.providerRefused(w, r, http.StatusServiceUnavailable, "The identity provider does not answer. Try again in a moment.")
	case err != nil:
		d.fail(w, r, err)
	default:
		d.signIn(w, r, session, token, user, next)
	}
}

// acceptThroughProvider joins the invitation picked on the page of the
// invitations waiting for an email the provider verified.
func (d *dashboard) acceptThroughProvider(w http.ResponseWriter, r *http.Request) {
	if !d.loginFormToken(w, r) {
		return
	}
	userID, _ := uuid.Parse(r.PostFormValue("user"))
	session, token, user, err := d.Service.AcceptThroughProvider(anonymous(r), verifiedEmail(r), userID)
	d.providerSignedIn(w, r, session, token, user, safeNext(r.PostFormValue("next")), err)
}

// continueThroughProvider goes on from that page without joining.
func (d *dashboard) continueThroughProvider(w http.ResponseWriter, r *http.Request) {
	if !d.loginFormToken(w, r) {
		return
	}
	session, token, user, err := d.Service.ContinueThroughProvider(anonymous(r), verifiedEmail(r))
	d.providerSignedIn(w, r, session, token, user, safeNext(r.PostFormValue("next")), err)
}

// verifiedEmail is the token of the email the provider verified, which
// the page of invitations left in a cookie (never in the page, which a
// screenshot or a shared screen could carry away).
func verifiedEmail(r *http.Request) string {
	if c, err := r.Cookie(verifiedCookie); err == nil {
		return c.Value
	}
	return ""
}

// loginFormToken checks the form's token against the sign-in cookie,
// answering when it does not match.
func (d *dashboard) loginFormToken(w http.ResponseWriter, r *http.Request) bool {
	if !loginTokenGood(r) {
		d.renderLogin(w, r, http.StatusForbidden, loginPage{Error: "The sign-in form expired; please try again."})
		return false
	}
	return true
}

// providerRefused answers a sign-in through the provider that failed:
// the sign-in page, saying why.
func (d *dashboard) providerRefused(w http.ResponseWriter, r *http.Request, status int, message string) {
	d.Logger.LogAttrs(r.Context(), slog.LevelWarn, "dashboard sign-in through the identity provider failed",
		slog.String("remoteAddr", ratelimit.ClientAddress(r)), slog.Int("status", status))
	d.renderLogin(w, r, status, loginPage{Error: message})
}

// requireProvider sets whether the organization signs in through the
// provider only.
func (d *dashboard) requireProvider(w http.ResponseWriter, r *http.Request) {
	err := d.Service.RequireProvider(r.Context(), viewerOf(r).user.OrgID, r.PostFormValue("required") == "on")
	if errors.Is(err, gatehouse.ErrNoProvider) {
		d.renderUsers(w, r, http.StatusConflict, usersPage{Form: userForm{Role: gatehouse.RoleViewer},
			Error: "No identity provider is configured: start Gatehouse with --oidc-issuer first."})
		return
	}
	d.userChanged(w, r, err)
}
