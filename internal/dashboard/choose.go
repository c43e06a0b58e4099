package dashboard

import (
	"errors"
	"net/http"

	"github.com/gatehouse/gatehouse"
	"github.com/google/uuid"
)

// choosePage lists the organizations a person's password matched, one
// button each.
type choosePage struct {
	CSRF, Next string
	Choices    []gatehouse.SignInChoice
}

// renderChoice asks a person whose email and password matched users of
// several organizations which one to continue as. The service's choice
// token waits in an HttpOnly cookie, scoped like the sign-in form's.
func (d *dashboard) renderChoice(w http.ResponseWriter, r *http.Request, choice *gatehouse.ChoiceError, next string) {
	p := choosePage{CSRF: gatehouse.NewToken(), Next: next, Choices: choice.Choices}
	http.SetCookie(w, &http.Cookie{Name: loginCookie, Value: p.CSRF, Path: Prefix + "/login", HttpOnly: true,
		Secure: secure(r), SameSite: http.SameSiteStrictMode, MaxAge: 3600})
	http.SetCookie(w, &http.Cookie{Name: choiceCookie, Value: choice.Token, Path: Prefix + "/login", HttpOnly: true,
		Secure: secure(r), SameSite: http.SameSiteStrictMode, MaxAge: int(gatehouse.ChoiceLifetime.Seconds())})
	d.render(w, r, http.StatusOK, "choose", p)
}

// chooseOrganization signs the person in as the user they picked.
func (d *dashboard) chooseOrganization(w http.ResponseWriter, r *http.Request) {
	next := safeNext(r.PostFormValue("next"))
	if !loginTokenGood(r) {
		d.renderLogin(w, r, http.StatusForbidden, loginPage{Next: next, Error: "The sign-in form expired; please try again."})
		return
	}
	var token string
	if c, err := r.Cookie(choiceCookie); err == nil {
		token = c.Value
	}
	userID, _ := uuid.Parse(r.PostFormValue("user"))
	session, sessionToken, user, err := d.Service.ChooseSignIn(anonymous(r), token, userID)
	var second *gatehouse.SecondFactorError
	switch {
	case errors.As(err, &second):
		d.renderSecondStep(w, r, second, http.StatusOK, secondStepPage{Next: next})
	case errors.Is(err, gatehouse.ErrBadCredentials):
		d.renderLogin(w, r, http.StatusUnauthorized, loginPage{Next: next, Error: "The sign-in expired; please sign in again."})
	case err != nil:
		d.fail(w, r, err)
	default:
		d.signIn(w, r, session, sessionToken, user, next)
	}
}
