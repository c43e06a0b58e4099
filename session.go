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

// SessionSeenEvery is how often at most a session's last use is
// written: a page a second costs one write a minute.
const SessionSeenEvery = time.Minute

// MaxUserAgentLen bounds the user agent a session keeps, in bytes.
const MaxUserAgentLen = 300

// Session is a signed-in dashboard user. The browser holds a random token;
// the store holds only its hash (see Sessions).
type Session struct {
	// ID names the session to its user, who may end it (the token's hash
	// is never shown).
	ID        uuid.UUID
	TokenHash [32]byte
	UserID    uuid.UUID
	// CSRF is the session's anti-forgery token, sent back by every form.
	CSRF      string
	CreatedAt time.Time
	ExpiresAt time.Time
	// EnrolOnly: the user's organization requires a second factor the
	// user has not enrolled; the session serves the enrolment and
	// signing out, nothing else.
	EnrolOnly bool
	// UserAgent is the browser's, trimmed to MaxUserAgentLen bytes, and
	// ClientAddress the client's, as the session began.
	UserAgent, ClientAddress string
	// LastSeenAt is when the session was last used, to the minute
	// (SessionSeenEvery).
	LastSeenAt time.Time
	// SecondFactorGiven says the sign-in gave the code of the user's
	// second factor, or enrolled one; not stored. The store refuses a
	// session without it of a user who has a second factor, which closes
	// the race of a password checked while its user enrolls.
	SecondFactorGiven bool
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
	return Session{ID: NewID(), TokenHash: s.Hash(token), UserID: user, CSRF: NewToken(),
		CreatedAt: Truncate(now), ExpiresAt: Truncate(now.Add(SessionLifetime)), LastSeenAt: Truncate(now)}, token
}

// Hash is the stored form of a session token.
func (s *Sessions) Hash(token string) [32]byte {
	return [32]byte(s.mac("gatehouse session\x00", []byte(token)))
}

// ChoiceLifetime is how long a person whose password matched several
// organizations has to pick one.
const ChoiceLifetime = 5 * time.Minute

// Choice returns a token, signed with the service secret, that lets the
// person who signed in as email at now continue as one of users within
// ChoiceLifetime (see service.Service.ChooseSignIn).
func (s *Sessions) Choice(email string, users []User, now time.Time) string {
	users = users[:min(len(users), 255)] // the count is one byte; nobody belongs to more
	b := []byte{byte(len(users))}
	for _, u := range users {
		b = append(b, u.ID[:]...)
	}
	return s.sign(choicePurpose, now.Add(ChoiceLifetime), append(b, email...))
}

// OpenChoice returns the email and user ids of a token Choice made, unless
// it was altered or has expired at now.
func (s *Sessions) OpenChoice(token string, now time.Time) (email string, ids []uuid.UUID, ok bool) {
	body, ok := s.open(choicePurpose, token, now)
	if !ok || len(body) < 1 {
		return "", nil, false
	}
	n := int(body[0])
	if len(body) < 1+16*n {
		return "", nil, false
	}
	for i := range n {
		ids = append(ids, uuid.UUID(body[1+16*i:1+16*(i+1)]))
	}
	return strings.ToLower(string(body[1+16*n:])), ids, true
}

// SecondStepLifetime is how long a person whose password matched has to
// give the code of their second factor.
const SecondStepLifetime = 5 * time.Minute

// SecondStep returns a token, signed with the service secret, that lets
// the person who gave u's password at now finish signing in with u's
// second factor within SecondStepLifetime (see
// service.Service.SignInSecondFactor).
func (s *Sessions) SecondStep(u User, now time.Time) string {
	return s.sign(secondStepPurpose, now.Add(SecondStepLifetime), append(u.ID[:], u.OrgID[:]...))
}

// OpenSecondStep returns the user and organization of a token SecondStep
// made, unless it was altered or has expired at now.
func (s *Sessions) OpenSecondStep(token string, now time.Time) (userID, orgID uuid.UUID, ok bool) {
	body, ok := s.open(secondStepPurpose, token, now)
	if !ok || len(body) != 32 {
		return uuid.Nil, uuid.Nil, false
	}
	return uuid.UUID(body[:16]), uuid.UUID(body[16:]), true
}

// The purposes of the tokens Sessions signs: a token opens only for its
// own.
const (
	choicePurpose     = "gatehouse sign-in choice\x00"
	secondStepPurpose = "gatehouse second step\x00"
)

// sign returns body with its expiry, MACed for purpose, base64url-encoded.
func (s *Sessions) sign(purpose string, expires time.Time, body []byte) string {
	b := binary.BigEndian.AppendUint64(nil, uint64(expires.UnixMilli()))
	b = append(b, body...)
	return base64.RawURLEncoding.EncodeToString(append(b, s.mac(purpose, b)...))
}

// open returns the body of a token sign made for purpose, unless it was
// altered or has expired at now.
func (s *Sessions) open(purpose, token string, now time.Time) ([]byte, bool) {
	b, err := base64.RawURLEncoding.DecodeString(token)
	if err != nil || len(b) < 8+sha256.Size {
		return nil, false
	}
	signed, mac := b[:len(b)-sha256.Size], b[len(b)-sha256.Size:]
	if !hmac.Equal(mac, s.mac(purpose, signed)) {
		return nil, false
	}
	if now.UnixMilli() >= int64(binary.BigEndian.Uint64(signed)) {
		return nil, false
	}
	return signed[8:], true
}

func (s *Sessions) mac(purpose string, b []byte) []byte {
	mac := hmac.New(sha256.New, s.secret)
	mac.Write([]byte(purpose))
	mac.Write(b)
	return mac.Sum(nil)
}

// NewToken returns 256 random bits, base64url-encoded: a session or form token.
func NewToken() string {
	var b [32]byte
	rand.Read(b[:])
	return base64.RawURLEncoding.EncodeToString(b[:])
}
