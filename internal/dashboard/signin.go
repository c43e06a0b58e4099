package dashboard

// Signing in and out of the dashboard.

import (
	"crypto/subtle"
	"errors"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/gatehouse/gatehouse"
	"github.com/gatehouse/gatehouse/internal/ratelimit"
)

// retryAfter says in whole seconds when a limited sign-in, code or
// password may be tried again.
func retryAfter(w http.ResponseWriter, retry *gatehouse.RetryError) {
	w.Header().Set("Retry-After", strconv.Itoa(int((retry.After+time.Second-1)/time.Second)))
}

// loginTokenGood says whether a form of the sign-in pages carries the
// token of the sign-in cookie.
func loginTokenGood(r *http.Request) bool {
	c, err := r.Cookie(loginCookie)
	return err == nil && sameToken(r.PostFormValue("csrf"), c.Value)
}

func sameToken(got, want string) bool {
	return got != "" && subtle.ConstantTimeCompare([]byte(got), []byte(want)) == 1
}

type loginPage struct {
	CSRF, Email, Next, Error string
	// Provider names the OpenID provider to sign in through, if any.
	Provider string
}

func (d *dashboard) loginForm(w http.ResponseWriter, r *http.Request) {
	d.renderLogin(w, r, http.StatusOK, loginPage{Next: safeNext(r.URL.Query().Get("next"))})
}

// renderLogin issues a fresh sign-in CSRF token, in a cookie and in the form.
func (d *dashboard) renderLogin(w http.ResponseWriter, r *http.Request, status int, p loginPage) {
	p.CSRF, p.Provider = gatehouse.NewToken(), d.Service.ProviderName()
	http.SetCookie(w, &http.Cookie{Name: loginCookie, Value: p.CSRF, Path: Prefix + "/login", HttpOnly: true,
		Secure: secure(r), SameSite: http.SameSiteStrictMode, MaxAge: 3600})
	d.render(w, r, status, "login", p)
}

func (d *dashboard) login(w http.ResponseWriter, r *http.Request) {
	email := strings.ToLower(strings.TrimSpace(r.PostFormValue("email")))
	p := loginPage{Email: email, Next: safeNext(r.PostFormValue("next"))}
	if !loginTokenGood(r) {
		p.Error = "The sign-in form expired; please try again."
		d.renderLogin(w, r, http.StatusForbidden, p)
		return
	}
	session, token, user, err := d.Service.SignIn(anonymous(r), email, r.PostFormValue("password"), ratelimit.SignInNetwork(r))
	var (
		retry  *gatehouse.RetryError
		choice *gatehouse.ChoiceError
		second *gatehouse.SecondFactorError
	)
	switch {
	case errors.As(err, &retry):
		retryAfter(w, retry)
		p.Error = "Too many failed sign-ins. Wait a minute and try again."
		if errors.Is(err, gatehouse.ErrHashBusy) {
			p.Error = "Too many sign-ins at once. Wait a moment and try again."
		}
		d.renderLogin(w, r, http.StatusTooManyRequests, p)
		return
	case errors.Is(err, gatehouse.ErrProviderRequired):
		p.Error = "Your organization signs in through " + d.Service.ProviderName() + ": use the button below."
		d.renderLogin(w, r, http.StatusForbidden, p)
		return
	case errors.Is(err, gatehouse.ErrBadCredentials):
		d.Logger.LogAttrs(r.Context(), slog.LevelWarn, "dashboard sign-in failed", slog.String("remoteAddr", ratelimit.ClientAddress(r)))
		p.Error = "That email and password do not match."
		d.renderLogin(w, r, http.StatusUnauthorized, p)
		return
	case errors.As(err, &choice):
		d.renderChoice(w, r, choice, p.Next)
		return
	case errors.As(err, &second):
		d.renderSecondStep(w, r, second, http.StatusOK, secondStepPage{Next: p.Next})
		return
	case err != nil:
		d.fail(w, r, err)
		return
	}
	d.signIn(w, r, session, token, user, p.Next)
}

// signIn gives the browser its session and sends it on to next, by
// default to the Event Log (to enrolment, for a session good only for
// that).
func (d *dashboard) signIn(w http.ResponseWriter, r *http.Request, session gatehouse.Session, token string, user gatehouse.User, next string) {
	http.SetCookie(w, &http.Cookie{Name: loginCookie, Path: Prefix + "/login", MaxAge: -1})
	http.SetCookie(w, &http.Cookie{Name: choiceCookie, Path: Prefix + "/login", MaxAge: -1})
	http.SetCookie(w, &http.Cookie{Name: verifiedCookie, Path: Prefix + "/login", MaxAge: -1})
	d.setSession(w, r, session, token)
	d.Logger.LogAttrs(r.Context(), slog.LevelInfo, "dashboard sign-in", slog.String("userId", user.ID.String()),
		slog.String("orgId", user.OrgID.String()))
	switch {
	case session.EnrolOnly:
		next = Prefix + "/account/second-factor"
	case next == "":
		next = Prefix + "/events"
	}
	http.Redirect(w, r, next, http.StatusSeeOther)
}

// setSession gives the browser the cookie of session.
func (d *dashboard) setSession(w http.ResponseWriter, r *http.Request, session gatehouse.Session, token string) {
	http.SetCookie(w, &http.Cookie{Name: sessionCookie, Value: token, Path: Prefix, HttpOnly: true, Secure: secure(r),
		SameSite: http.SameSiteLaxMode, MaxAge: int(session.ExpiresAt.Sub(session.CreatedAt).Seconds())})
}

func (d *dashboard) logout(w http.ResponseWriter, r *http.Request) {
	v := viewerOf(r)
	if err := d.Service.SignOut(r.Context(), v.session); err != nil {
		d.fail(w, r, err)
		return
	}
	http.SetCookie(w, &http.Cookie{Name: sessionCookie, Path: Prefix, MaxAge: -1, HttpOnly: true, Secure: secure(r)})
	http.Redirect(w, r, Prefix+"/login", http.StatusSeeOther)
}

// safeNext keeps a post-sign-in destination only if it is a dashboard page
// of this site, so the form cannot redirect elsewhere.
func safeNext(next string) string {
	if strings.HasPrefix(next, Prefix+"/") && !strings.HasPrefix(next, "//") && !strings.ContainsAny(next, "\\\r\n") {
		return next
	}
	return ""
}

// secure says whether the request came over TLS, directly or through a
// proxy that says so: cookies are then Secure.
func secure(r *http.Request) bool {
	return r.TLS != nil || r.Header.Get("X-Forwarded-Proto") == "https"
}
