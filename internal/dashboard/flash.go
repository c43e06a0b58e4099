package dashboard

import (
	"encoding/base64"
	"encoding/json"
	"net/http"
)

// A secret made by a form (a new API key, a new webhook endpoint's
// signing secret) travels from the form's POST to the page that shows it
// in a flash cookie: HttpOnly (no script reads it), SameSite=Strict,
// Secure over TLS, scoped to the page's path, alive for a minute at
// most, and cleared by the GET that shows it, so the secret is shown
// exactly once and never appears in a URL, a log line or the database.
// The cookie rather than server-side state, so the GET may reach any
// instance; docs/decisions.md weighs the two.
type flash struct {
	name, path string
}

var (
	newKeyFlash     = flash{name: "gatehouse_new_key", path: Prefix + "/keys"}
	newWebhookFlash = flash{name: "gatehouse_new_webhook", path: Prefix + "/webhooks"}
	// erasedFlash carries an erasure's counts (never the player's id) to
	// the Privacy page, so that nothing of the erasure is in a URL.
	erasedFlash = flash{name: "gatehouse_erased", path: Prefix + "/privacy"}
	// newAlertRuleFlash carries a new standard-webhooks rule's secret.
	newAlertRuleFlash = flash{name: "gatehouse_new_alert_rule", path: Prefix + "/alerts"}
)

// flashMaxAge is how long a flash cookie lives, in seconds: the redirect
// follows at once.
const flashMaxAge = 60

// give sets the flash cookie to v, as JSON.
func (f flash) give(w http.ResponseWriter, r *http.Request, v any) {
	b, _ := json.Marshal(v)
	http.SetCookie(w, &http.Cookie{Name: f.name, Value: base64.RawURLEncoding.EncodeToString(b),
		Path: f.path, HttpOnly: true, Secure: secure(r), SameSite: http.SameSiteStrictMode, MaxAge: flashMaxAge})
}

// take reads the flash cookie, if any, into v and clears the cookie: a
// reload shows the secret no more. It reports whether v was filled.
func (f flash) take(w http.ResponseWriter, r *http.Request, v any) bool {
	c, err := r.Cookie(f.name)
	if err != nil {
		return false
	}
	http.SetCookie(w, &http.Cookie{Name: f.name, Path: f.path, MaxAge: -1, HttpOnly: true,
		Secure: secure(r), SameSite: http.SameSiteStrictMode})
	b, err := base64.RawURLEncoding.DecodeString(c.Value)
	return err == nil && json.Unmarshal(b, v) == nil
}

func giveCreatedKey(w http.ResponseWriter, r *http.Request, k createdKey) { newKeyFlash.give(w, r, k) }

// takeCreatedKey returns the key the flash cookie carries, if any, and
// clears the cookie.
func takeCreatedKey(w http.ResponseWriter, r *http.Request) *createdKey {
	var k createdKey
	if !newKeyFlash.take(w, r, &k) || k.Raw == "" {
		return nil
	}
	return &k
}
