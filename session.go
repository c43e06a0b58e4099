package gatehouse

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"time"

	"github.com/google/uuid"
)

// SessionLifetime is how long a dashboard sign-in lasts.
const SessionLifetime = 12 * time.Hour

// Session is a signed-in dashboard user. The browser holds a random token;
// the store holds only its hash (see Sessions).
type Session struct {
	TokenHash [32]byte
	UserID    uuid.UUID
	// CSRF is the session's anti-forgery token, sent back by every form.
	CSRF      string
	CreatedAt time.Time
	ExpiresAt time.Time
}

// Sessions issues and recognises dashboard session tokens. The store keeps
// HMAC-SHA256(service secret, token): a copy of the database signs no one
// in, every instance sharing the secret recognises every session, and a new
// secret ends them all.
type Sessions struct {
	secret []byte
}

// NewSessions returns the sessions signed with the service secret.
func NewSessions(secret []byte) *Sessions { return &Sessions{secret: secret} }

// New returns a session for user starting at now, and the raw token for
// the browser's cookie.
func (s *Sessions) New(user uuid.UUID, now time.Time) (Session, string) {
	token := NewToken()
	return Session{TokenHash: s.Hash(token), UserID: user, CSRF: NewToken(),
		CreatedAt: Truncate(now), ExpiresAt: Truncate(now.Add(SessionLifetime))}, token
}

// Hash is the stored form of a session token.
func (s *Sessions) Hash(token string) [32]byte {
	mac := hmac.New(sha256.New, s.secret)
	mac.Write([]byte("gatehouse session\x00"))
	mac.Write([]byte(token))
	return [32]byte(mac.Sum(nil))
}

// NewToken returns 256 random bits, base64url-encoded: a session or form token.
func NewToken() string {
	var b [32]byte
	rand.Read(b[:])
	return base64.RawURLEncoding.EncodeToString(b[:])
}
