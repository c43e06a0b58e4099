package dashboard

import (
	"encoding/base64"
	"encoding/json"
	"net/http"
)

// A new key travels from the form's POST to the page that shows it in a
// flash cookie: HttpOnly (no script reads it), SameSite=Strict, Secure
// over TLS, scoped to the keys page, alive for a minute at most, and
// cleared by the GET that shows it, so the raw key is shown exactly once
// and never appears in a URL, a log line or the database. The cookie
// rather than server-side state, so the GET may reach any instance;
// docs/decisions.md weighs the two.
const (
	newKeyCookie = "gatehouse_new_key"
	newKeyMaxAge = 60 // seconds: the redirect follows at once
)

func giveCreatedKey(w http.ResponseWriter, r *http.Request, k createdKey) {
	b, _ := json.Marshal(k)
	http.SetCookie(w, &http.Cookie{Name: newKeyCookie, Value: base64.RawURLEncoding.EncodeToString(b),
		Path: Prefix + "/keys", HttpOnly: true, Secure: secure(r), SameSite: http.SameSiteStrictMode, MaxAge: newKeyMaxAge})
}

// takeCreatedKey returns the key the flash cookie carries, if any, and
// clears the cookie: a reload shows the key no more.
func takeCreatedKey(w http.ResponseWriter, r *http.Request) *createdKey {
	c, err := r.Cookie(newKeyCookie)
	if err != nil {
		return nil
	}
	http.SetCookie(w, &http.Cookie{Name: newKeyCookie, Path: Prefix + "/keys", MaxAge: -1, HttpOnly: true,
		Secure: secure(r), SameSite: http.SameSiteStrictMode})
	b, err := base64.RawURLEncoding.DecodeString(c.Value)
	var k createdKey
	if err != nil || json.Unmarshal(b, &k) != nil || k.Raw == "" {
		return nil
	}
	return &k
}
