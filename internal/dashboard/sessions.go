package dashboard

// The user's sessions on the account page, and an admin's "sign out
// everywhere" on the Users page.

import (
	"errors"
	"net/http"
	"strings"

	"github.com/gatehouse/gatehouse"
	"github.com/gatehouse/gatehouse/internal/ratelimit"
	"github.com/google/uuid"
)

// endSession ends one of the user's sessions; ending this browser's own
// is signing out.
func (d *dashboard) endSession(w http.ResponseWriter, r *http.Request) {
	id, _ := uuid.Parse(r.PostFormValue("id"))
	err := d.Service.EndSession(r.Context(), id)
	switch {
	case errors.Is(err, gatehouse.ErrNotFound): // ended already
		http.Redirect(w, r, Prefix+"/account", http.StatusSeeOther)
	case err != nil:
		d.fail(w, r, err)
	case id == viewerOf(r).session.ID:
		http.SetCookie(w, &http.Cookie{Name: sessionCookie, Path: Prefix, MaxAge: -1, HttpOnly: true, Secure: secure(r)})
		http.Redirect(w, r, Prefix+"/login", http.StatusSeeOther)
	default:
		http.Redirect(w, r, Prefix+"/account", http.StatusSeeOther)
	}
}

// changePassword replaces the user's own password: every other session
// ends, this browser gets a new one.
func (d *dashboard) changePassword(w http.ResponseWriter, r *http.Request) {
	session, token, err := d.Service.ChangePassword(r.Context(), r.PostFormValue("current"), r.PostFormValue("password"), ratelimit.SignInNetwork(r))
	var (
		ve    *gatehouse.ValidationError
		retry *gatehouse.RetryError
	)
	switch {
	case errors.Is(err, gatehouse.ErrBadCredentials):
		d.renderAccount(w, r, http.StatusUnauthorized, accountPage{PasswordError: "That is not your current password."})
	case errors.As(err, &ve):
		d.renderAccount(w, r, http.StatusBadRequest, accountPage{PasswordError: "The new password " + strings.Join(ve.Issues["password"], "; ") + "."})
	case errors.As(err, &retry):
		retryAfter(w, retry)
		d.renderAccount(w, r, http.StatusTooManyRequests, accountPage{PasswordError: "Too many wrong passwords. Wait a minute and try again."})
	case err != nil:
		d.fail(w, r, err)
	default:
		d.setSession(w, r, session, token)
		http.Redirect(w, r, Prefix+"/account", http.StatusSeeOther)
	}
}

// endUserSessions signs a user out everywhere, for an admin.
func (d *dashboard) endUserSessions(w http.ResponseWriter, r *http.Request) {
	_, _, err := d.Service.EndUserSessions(r.Context(), viewerOf(r).user.OrgID, r.PostFormValue("email"))
	d.userChanged(w, r, err)
}

// devices are the names deviceOf looks for in a user agent, in the
// order that tells them apart: Edge's and Opera's name Chrome too, and
// Chrome's names Safari.
var (
	browsers = [][2]string{{"Edg/", "Edge"}, {"OPR/", "Opera"}, {"Firefox/", "Firefox"}, {"Chrome/", "Chrome"},
		{"CriOS/", "Chrome"}, {"FxiOS/", "Firefox"}, {"Safari/", "Safari"}, {"curl/", "curl"}}
	systems = [][2]string{{"iPhone", "iPhone"}, {"iPad", "iPad"}, {"Android", "Android"}, {"CrOS", "ChromeOS"},
		{"Windows", "Windows"}, {"Mac OS X", "macOS"}, {"Linux", "Linux"}}
)

// deviceOf names the browser and system of a user agent ("Firefox on
// Linux"), or gives the user agent itself when it names neither.
func deviceOf(ua string) string {
	find := func(names [][2]string) string {
		for _, n := range names {
			if strings.Contains(ua, n[0]) {
				return n[1]
			}
		}
		return ""
	}
	browser, system := find(browsers), find(systems)
	switch {
	case browser != "" && system != "":
		return browser + " on " + system
	case browser != "" || system != "":
		return browser + system
	case ua == "":
		return "unknown browser"
	}
	return ua
}
