package gatehouse

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"strings"
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

// ChoiceLifetime is how long a person whose password matched several
// organizations has to pick one.
const ChoiceLifetime = 5 * time.Minute

// Choice returns a token, signed with the service secret, that lets the
// person who signed in as email at now continue as one of users within
// ChoiceLifetime (see service.Service.ChooseSignIn).
func (s *Sessions) Choice(email string, users []User, now time.Time) string {
	users = users[:min(len(users), 255)] // the count is one byte; nobody belongs to more
	b := binary.BigEndian.AppendUint64(nil, uint64(now.Add(ChoiceLifetime).UnixMilli()))
	b = append(b, byte(len(users)))
	for _, u := range users {
		b = append(b, u.ID[:]...)
	}
	b = append(b, email...)
	return base64.RawURLEncoding.EncodeToString(append(b, s.choiceMAC(b)...))
}

// OpenChoice returns the email and user ids of a token Choice made, unless
// it was altered or has expired at now.
func (s *Sessions) OpenChoice(token string, now time.Time) (email string, ids []uuid.UUID, ok bool) {
	b, err := base64.RawURLEncoding.DecodeString(token)
	if err != nil || len(b) < 9+sha256.Size {
		return "", nil, false
	}
	body, mac := b[:len(b)-sha256.Size], b[len(b)-sha256.Size:]
	if !hmac.Equal(mac, s.choiceMAC(body)) {
		return "", nil, false
	}
	expires, n := int64(binary.BigEndian.Uint64(body)), int(body[8])
	if now.UnixMilli() >= expires || len(body) < 9+16*n {
		return "", nil, false
	}
	for i := range n {
		ids = append(ids, uuid.UUID(body[9+16*i:9+16*(i+1)]))
	}
	return strings.ToLower(string(body[9+16*n:])), ids, true
}

func (s *Sessions) choiceMAC(body []byte) []byte {
	mac := hmac.New(sha256.New, s.secret)
	mac.Write([]byte("gatehouse sign-in choice\x00"))
	mac.Write(body)
	return mac.Sum(nil)
}

// NewToken returns 256 random bits, base64url-encoded: a session or form token.
func NewToken() string {
	var b [32]byte
	rand.Read(b[:])
	return base64.RawURLEncoding.EncodeToString(b[:])
}
