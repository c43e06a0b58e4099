package dashboard

// Two factors: the code step of signing in, and the Account page where a
// user enrols and removes their authenticator.

import (
	"context"
	"encoding/base64"
	"errors"
	"html/template"
	"log/slog"
	"net/http"
	"strings"

	"github.com/gatehouse/gatehouse"
	"github.com/gatehouse/gatehouse/internal/ratelimit"
	"github.com/gatehouse/gatehouse/internal/service"
	"github.com/google/uuid"
)

// secondStepCookie holds a sign-in whose password matched, until the
// code of the user's second factor is given. Scoped like the sign-in
// form's.
const secondStepCookie = "gatehouse_second_step"

// secondStepPage asks for the code of the second factor.
type secondStepPage struct {
	CSRF, Next, Error string
}

// renderSecondStep asks a person whose password matched a user with a
// second factor for its code. The service's token waits in an HttpOnly
// cookie beside the sign-in form's CSRF token.
func (d *dashboard) renderSecondStep(w http.ResponseWriter, r *http.Request, sf *gatehouse.SecondFactorError, status int, p secondStepPage) {
	p.CSRF = gatehouse.NewToken()
	http.SetCookie(w, &http.Cookie{Name: loginCookie, Value: p.CSRF, Path: Prefix + "/login", HttpOnly: true,
		Secure: secure(r), SameSite: http.SameSiteStrictMode, MaxAge: 3600})
	if sf != nil {
		http.SetCookie(w, &http.Cookie{Name: secondStepCookie, Value: sf.Token, Path: Prefix + "/login", HttpOnly: true,
			Secure: secure(r), SameSite: http.SameSiteStrictMode, MaxAge: int(gatehouse.SecondStepLifetime.Seconds())})
	}
	d.render(w, r, status, "second-step", p)
}

// signInWithCode finishes a sign-in with the code of the second factor.
func (d *dashboard) signInWithCode(w http.ResponseWriter, r *http.Request) {
	p := secondStepPage{Next: safeNext(r.PostFormValue("next"))}
	if !loginTokenGood(r) {
		d.renderLogin(w, r, http.StatusForbidden, loginPage{Next: p.Next, Error: "The sign-in form expired; please try again."})
		return
	}
	var token string
	if c, err := r.Cookie(secondStepCookie); err == nil {
		token = c.Value
	}
	if _, _, ok := d.Service.OpenSecondStep(token); !ok {
		d.renderLogin(w, r, http.StatusUnauthorized, loginPage{Next: p.Next, Error: "The sign-in expired; please sign in again."})
		return
	}
	session, sessionToken, user, err := d.Service.SignInSecondFactor(anonymous(r), token, r.PostFormValue("code"), ratelimit.SignInNetwork(r))
	var retry *gatehouse.RetryError
	switch {
	case errors.As(err, &retry):
		retryAfter(w, retry)
		p.Error = "Too many wrong codes. Wait a minute and try again."
		d.renderSecondStep(w, r, nil, http.StatusTooManyRequests, p)
	case errors.Is(err, gatehouse.ErrBadCredentials):
		d.Logger.LogAttrs(r.Context(), slog.LevelWarn, "dashboard second factor failed", slog.String("remoteAddr", ratelimit.ClientAddress(r)))
		p.Error = "That code does not match, or was used already. Give the code your app shows now, or a recovery code."
		d.renderSecondStep(w, r, nil, http.StatusUnauthorized, p)
	case err != nil:
		d.fail(w, r, err)
	default:
		http.SetCookie(w, &http.Cookie{Name: secondStepCookie, Path: Prefix + "/login", MaxAge: -1})
		d.signIn(w, r, session, sessionToken, user, p.Next)
	}
}

// accountPage is the signed-in user's own: their second factor and
// their sessions.
type accountPage struct {
	// Factor is the user's second factor, nil when they have none.
	Factor   *gatehouse.SecondFactor
	Required bool
	Sessions []sessionRow
	Error    string
	// PasswordError says why a change of password was refused.
	PasswordError string
}

// sessionRow is one of the user's sessions as the account page lists it.
type sessionRow struct {
	gatehouse.Session
	// Device names the browser and system of its user agent.
	Device string
	// Current: the session of this browser.
	Current bool
}

func (d *dashboard) account(w http.ResponseWriter, r *http.Request) {
	d.renderAccount(w, r, http.StatusOK, accountPage{})
}

func (d *dashboard) renderAccount(w http.ResponseWriter, r *http.Request, status int, p accountPage) {
	f, err := d.Service.SecondFactorOf(r.Context())
	switch {
	case errors.Is(err, gatehouse.ErrNotFound):
	case err != nil:
		d.fail(w, r, err)
		return
	default:
		p.Factor = &f
	}
	if p.Required, err = d.Service.SecondFactorRequired(r.Context(), viewerOf(r).user.OrgID); err != nil {
		d.fail(w, r, err)
		return
	}
	sessions, err := d.Service.Sessions(r.Context())
	if err != nil {
		d.fail(w, r, err)
		return
	}
	for _, s := range sessions {
		p.Sessions = append(p.Sessions, sessionRow{Session: s, Device: deviceOf(s.UserAgent), Current: s.ID != uuid.Nil && s.ID == viewerOf(r).session.ID})
	}
	d.render(w, r, status, "account", p)
}

// enrolPage shows a new secret as a QR code and as text, and takes a
// code from it back.
type enrolPage struct {
	// Secret is the base32 secret; Grouped the same in groups of four,
	// as people type it.
	Secret, Grouped, Pending string
	QR                       template.URL
	// EnrolOnly: the organization requires a second factor, and this is
	// all the user may do until they have one.
	EnrolOnly bool
	Error     string
}

// enrolForm begins an enrolment: a new secret each time the page is
// loaded, stored nowhere until a code from it comes back.
func (d *dashboard) enrolForm(w http.ResponseWriter, r *http.Request) {
	d.renderEnrol(w, r, http.StatusOK, "", "")
}

// renderEnrol shows the enrolment pending began, while it has not
// expired, or a new one.
func (d *dashboard) renderEnrol(w http.ResponseWriter, r *http.Request, status int, pending, problem string) {
	var (
		e   service.Enrolment
		err error
	)
	if pending != "" {
		if e, err = d.Service.ResumeEnrolment(r.Context(), pending); errors.Is(err, gatehouse.ErrInvalid) {
			pending, problem = "", "That enrolment expired: scan this new code and give a code from it."
		}
	}
	if pending == "" {
		e, err = d.Service.BeginEnrolment(r.Context())
	}
	if errors.Is(err, gatehouse.ErrConflict) {
		http.Redirect(w, r, Prefix+"/account", http.StatusSeeOther)
		return
	}
	if err != nil {
		d.fail(w, r, err)
		return
	}
	w.Header().Set("Cache-Control", "no-store")
	d.render(w, r, status, "enrol", enrolPage{Secret: e.Secret, Grouped: grouped(e.Secret), Pending: e.Pending, Error: problem,
		QR:        template.URL("data:image/png;base64," + base64.StdEncoding.EncodeToString(e.QR)),
		EnrolOnly: viewerOf(r).session.EnrolOnly})
}

// grouped is s in groups of four characters.
func grouped(s string) string {
	var b strings.Builder
	for i, r := range s {
		if i > 0 && i%4 == 0 {
			b.WriteByte(' ')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// enrol finishes an enrolment: every session of the user ends, this
// browser gets a new one, and the recovery codes show this once.
func (d *dashboard) enrol(w http.ResponseWriter, r *http.Request) {
	session, token, codes, err := d.Service.EnrolSecondFactor(r.Context(), r.PostFormValue("pending"), r.PostFormValue("code"))
	var ve *gatehouse.ValidationError
	switch {
	case errors.As(err, &ve):
		pending := r.PostFormValue("pending")
		d.renderEnrol(w, r, http.StatusBadRequest, pending, "That code does not match: give the code your app shows now for this secret.")
		return
	case errors.Is(err, gatehouse.ErrConflict):
		http.Redirect(w, r, Prefix+"/account", http.StatusSeeOther)
		return
	case err != nil:
		d.fail(w, r, err)
		return
	}
	d.setSession(w, r, session, token)
	w.Header().Set("Cache-Control", "no-store")
	v := viewerOf(r) // the page's forms carry the new session's token
	v.session = session
	d.render(w, r.WithContext(context.WithValue(r.Context(), viewerKey{}, v)), http.StatusCreated, "recovery-codes", codes)
}

// removeFactor removes the user's own second factor, given a good code.
func (d *dashboard) removeFactor(w http.ResponseWriter, r *http.Request) {
	session, token, err := d.Service.RemoveSecondFactor(r.Context(), r.PostFormValue("code"), ratelimit.SignInNetwork(r))
	var (
		ve    *gatehouse.ValidationError
		retry *gatehouse.RetryError
	)
	switch {
	case errors.As(err, &ve):
		d.renderAccount(w, r, http.StatusBadRequest, accountPage{Error: "That code does not match, or was used already."})
	case errors.As(err, &retry):
		retryAfter(w, retry)
		d.renderAccount(w, r, http.StatusTooManyRequests, accountPage{Error: "Too many wrong codes. Wait and try again."})
	case errors.Is(err, gatehouse.ErrNotFound):
		http.Redirect(w, r, Prefix+"/account", http.StatusSeeOther)
	case err != nil:
		d.fail(w, r, err)
	default:
		d.setSession(w, r, session, token)
		http.Redirect(w, r, Prefix+"/account", http.StatusSeeOther)
	}
}

// resetFactor removes a user's second factor, for an admin; their own
// they remove on their account page, with a code.
func (d *dashboard) resetFactor(w http.ResponseWriter, r *http.Request) {
	_, err := d.Service.ResetSecondFactor(r.Context(), viewerOf(r).user.OrgID, r.PostFormValue("email"))
	switch {
	case errors.Is(err, gatehouse.ErrConflict):
		d.renderUsers(w, r, http.StatusConflict, usersPage{Form: userForm{Role: gatehouse.RoleViewer},
			Error: "Remove your own second factor on your account page, with a code."})
	case errors.Is(err, gatehouse.ErrNotFound): // reset already, or removed: nothing left to do
		http.Redirect(w, r, Prefix+"/users", http.StatusSeeOther)
	default:
		d.userChanged(w, r, err)
	}
}

// requireFactor sets whether the organization requires a second factor.
func (d *dashboard) requireFactor(w http.ResponseWriter, r *http.Request) {
	err := d.Service.RequireSecondFactor(r.Context(), viewerOf(r).user.OrgID, r.PostFormValue("required") == "on")
	d.userChanged(w, r, err)
}

// enrolOnlyPaths are what a session good only for enrolment reaches
// ([gatehouse.Session.EnrolOnly]); any other page sends it to enrol.
var enrolOnlyPaths = map[string]bool{
	Prefix + "/account/second-factor": true,
	Prefix + "/logout":                true,
}
