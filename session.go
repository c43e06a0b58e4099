package gatehouse

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"time"

	"github.com/google/uuid"
)

// SessionLifetime is how long a dashboard sign-in lasts.
const SessionLifetime = 12 * time.Hour

// Session is a signed-in dashboard user. The browser holds a random token;
// the store holds only its SHA-256, so a copy of the database signs no one
// in.
type Session struct {
	TokenHash [32]byte
	UserID    uuid.UUID
	// CSRF is the session's anti-forgery token, sent back by every form.
	CSRF      string
	CreatedAt time.Time
	ExpiresAt time.Time
}

// NewSession returns a session for user starting at now, and the raw token
// for the browser's cookie.
func NewSession(user uuid.UUID, now time.Time) (Session, string) {
	token, csrf := randomToken(), randomToken()
	return Session{TokenHash: sha256.Sum256([]byte(token)), UserID: user, CSRF: csrf,
		CreatedAt: Truncate(now), ExpiresAt: Truncate(now.Add(SessionLifetime))}, token
}

// SessionHash is the stored form of a session token.
func SessionHash(token string) [32]byte { return sha256.Sum256([]byte(token)) }

func randomToken() string {
	var b [32]byte
	rand.Read(b[:])
	return base64.RawURLEncoding.EncodeToString(b[:])
}
