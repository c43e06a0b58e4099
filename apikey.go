package gatehouse

import (
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"errors"
	"hash/crc32"
	"slices"
	"strings"
	"time"

	"github.com/google/uuid"
)

// An API key is "gk_", 32 random base62 characters and a 6-character base62
// CRC32 checksum of everything before it: 41 characters in all. The checksum
// lets a malformed or mistyped key be refused without touching the database,
// and lets secret scanners match keys with KeyPattern and few false positives.
const (
	KeyPrefix       = "gk_"
	keyRandomLen    = 32
	keyChecksumLen  = 6
	KeyLen          = len(KeyPrefix) + keyRandomLen + keyChecksumLen
	keyDisplayChars = 8
	// KeyPattern is a regular expression that matches a Gatehouse API key, for secret scanners.
	KeyPattern = `\bgk_[0-9A-Za-z]{38}\b`
)

const base62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"

// ErrMalformedKey: the token does not have the shape or checksum of a Gatehouse key.
var ErrMalformedKey = errors.New("malformed API key")

// KeyHash is the SHA-256 of a whole raw key: the only form in which a key is stored.
type KeyHash [sha256.Size]byte

// Equal compares two hashes in constant time.
func (h KeyHash) Equal(other KeyHash) bool {
	return subtle.ConstantTimeCompare(h[:], other[:]) == 1
}

// APIKey is an organization's credential for the consumer API. The raw key
// is never part of it: only its hash and a display prefix.
type APIKey struct {
	ID     uuid.UUID
	OrgID  uuid.UUID
	Name   string
	Prefix string // "gk_" and the first 8 random characters; not secret
	Hash   KeyHash
	Scopes []Scope
	// Reach is the locations the key is limited to (nil: the whole
	// organization); a key made by a limited user keeps within theirs.
	Reach      Reach
	RateLimit  *Rate // overrides the server's per-key rate when set
	CreatedAt  time.Time
	ExpiresAt  *time.Time
	RevokedAt  *time.Time
	LastUsedAt *time.Time
}

// HasScope reports whether the key carries scope s.
func (k APIKey) HasScope(s Scope) bool { return slices.Contains(k.Scopes, s) }

// Status is "active", "revoked" or "expired" at time now.
func (k APIKey) Status(now time.Time) string {
	switch {
	case k.RevokedAt != nil && !now.Before(*k.RevokedAt):
		return "revoked"
	case k.ExpiresAt != nil && !now.Before(*k.ExpiresAt):
		return "expired"
	}
	return "active"
}

// GenerateKey returns a new raw key with its display prefix and hash. The raw
// key must be shown to its owner once and then forgotten.
func GenerateKey() (raw, prefix string, hash KeyHash) {
	b := make([]byte, 0, KeyLen)
	b = append(b, KeyPrefix...)
	// rand.Text would be base32; draw base62 characters by rejection sampling
	// so that every character is uniform.
	var buf [64]byte
	for len(b) < len(KeyPrefix)+keyRandomLen {
		rand.Read(buf[:])
		for _, c := range buf {
			if c < 248 && len(b) < len(KeyPrefix)+keyRandomLen { // 248 = 4*62
				b = append(b, base62[c%62])
			}
		}
	}
	b = appendChecksum(b)
	raw = string(b)
	return raw, raw[:len(KeyPrefix)+keyDisplayChars], sha256.Sum256(b)
}

// ParseKey checks a raw key's shape and checksum and returns its hash. It
// never touches storage; [ErrMalformedKey] is its only error.
func ParseKey(raw string) (KeyHash, error) {
	if len(raw) != KeyLen || raw[:len(KeyPrefix)] != KeyPrefix {
		return KeyHash{}, ErrMalformedKey
	}
	for i := len(KeyPrefix); i < KeyLen; i++ {
		if !isBase62(raw[i]) {
			return KeyHash{}, ErrMalformedKey
		}
	}
	body := raw[:KeyLen-keyChecksumLen]
	want := appendChecksum(make([]byte, 0, KeyLen), []byte(body)...)
	if subtle.ConstantTimeCompare(want[len(body):], []byte(raw[len(body):])) != 1 {
		return KeyHash{}, ErrMalformedKey
	}
	return sha256.Sum256([]byte(raw)), nil
}

// Redact replaces anything in s that looks like an API key, valid or not,
// with its non-secret display prefix and an ellipsis, so that text echoed
// from a request (a path, a parameter name) can be logged or returned.
//
// Something looks like a key when [KeyPrefix] is followed by at least
// keyDisplayChars base62 characters. Keys may overlap: in "gk_000000gk_…"
// the second key begins inside the first, so every occurrence of the
// prefix is examined, not only those after the previous match.
func Redact(s string) string {
	if !strings.Contains(s, KeyPrefix) {
		return s
	}
	var b strings.Builder
	written := 0 // s[:written] is in b or deliberately left out
	for i := 0; ; {
		j := strings.Index(s[i:], KeyPrefix)
		if j < 0 {
			break
		}
		start := i + j
		shown := start + len(KeyPrefix) + keyDisplayChars
		end := start + len(KeyPrefix)
		for end < len(s) && isBase62(s[end]) {
			end++
		}
		i = start + 1
		if end < shown {
			continue
		}
		if start > written {
			b.WriteString(s[written:start])
		}
		b.WriteString(s[start:shown])
		b.WriteString("…")
		written = end
	}
	if written == 0 {
		return s
	}
	b.WriteString(s[written:])
	return b.String()
}

// appendChecksum appends body (if any) to dst, then the base62 CRC32 of
// everything in dst, left-padded with zeros to 6 characters.
func appendChecksum(dst []byte, body ...byte) []byte {
	dst = append(dst, body...)
	sum := crc32.ChecksumIEEE(dst)
	var c [keyChecksumLen]byte
	for i := keyChecksumLen - 1; i >= 0; i-- {
		c[i] = base62[sum%62]
		sum /= 62
	}
	return append(dst, c[:]...)
}

func isBase62(c byte) bool {
	return '0' <= c && c <= '9' || 'A' <= c && c <= 'Z' || 'a' <= c && c <= 'z'
}

// NewAPIKey is what a door asks for when it creates a key.
type NewAPIKey struct {
	OrgID  uuid.UUID
	Name   string
	Scopes []Scope
	// Locations limits the key to those locations (empty: the whole
	// organization, or all of a limited creator's).
	Locations []uuid.UUID
	ExpiresAt *time.Time // nil: never, unless Lifetime is set
	// Lifetime, when positive, sets ExpiresAt to the key's creation time
	// plus it: a door that offers "expires in 30 days" asks for exactly 30
	// days, measured from the instant the service creates the key.
	Lifetime  time.Duration
	RateLimit *Rate // nil: the server's
}

// ExpiryWarning is how long before its expiry a key is shown as expiring
// soon: on the dashboard, in the CLI's key list and in the operator's
// metrics, so that a game's servers do not all start failing one day
// without warning.
const ExpiryWarning = 14 * 24 * time.Hour

// ExpiresSoon reports whether the key is active at now and expires
// within [ExpiryWarning] of it.
func (k APIKey) ExpiresSoon(now time.Time) bool {
	return k.Status(now) == "active" && k.ExpiresAt != nil && k.ExpiresAt.Sub(now) <= ExpiryWarning
}

// ChangeableBy reports whether actor may change the key's settings (its
// rate limit). A dashboard user and the operator may (their role is
// checked apart); an API key may change only another key that does not
// carry [ScopeKeysWrite] itself, so that no key raises its own limits,
// directly or through a second key that raises them back.
func (k APIKey) ChangeableBy(actor Actor) bool {
	if actor.Type != ActorKey {
		return true
	}
	return actor.ID != k.ID && !k.HasScope(ScopeKeysWrite)
}

// CheckKeyRate reports a rate a key may not carry: nil (the server's
// rate) is fine, as is any positive rate.
func CheckKeyRate(r *Rate) error {
	var errs ValidationError
	if r != nil && (r.Count < 1 || r.Per <= 0) {
		errs.Add("rateLimit", "must be a positive rate")
	}
	return errs.Err()
}

// GameServerScopes are what the Luau SDK calls and nothing more: the sync
// loop, the policy set and decisions ([ScopeGameServer]) and recording
// events ([ScopeEventsWrite]). The dashboard's "Game server" preset
// offers them, and the docs' key create command names them.
var GameServerScopes = []Scope{ScopeGameServer, ScopeEventsWrite}

// GameServerRate is the rate the "Game server" preset gives a key that
// every server of an experience shares: a busy server (50 players at a
// door every second) sends about 15 requests a minute with the SDK's
// defaults (12 event batches, 2 to 3 syncs), so 150/s serves 600 busy
// servers, and its burst (two seconds of it: 300) their first requests
// after a release. The server's default of 20/s serves 80.
var GameServerRate = Rate{Count: 150, Per: time.Second}

// APIKeyView is a key as every door shows it, in lists and in the answers
// of its changes: never the raw key, which exists only in the answer that
// created it, nor its hash.
type APIKeyView struct {
	ID     uuid.UUID `json:"id"`
	Name   string    `json:"name"`
	Prefix string    `json:"prefix"`
	Scopes []Scope   `json:"scopes"`
	// Locations are those the key is limited to; empty: the whole
	// organization.
	Locations []uuid.UUID `json:"locations"`
	// RateLimit is the key's own rate, "N/s" or "N/m"; nil: the server's.
	RateLimit *string `json:"rateLimit"`
	Status    string  `json:"status"`
	// ExpiresSoon: active, and expiring within [ExpiryWarning].
	ExpiresSoon bool  `json:"expiresSoon"`
	ExpiresAt   *Time `json:"expiresAt"`
	RevokedAt   *Time `json:"revokedAt"`
	LastUsedAt  *Time `json:"lastUsedAt"`
	CreatedAt   Time  `json:"createdAt"`
}

// View is k as the doors show it at now.
func (k APIKey) View(now time.Time) APIKeyView {
	v := APIKeyView{ID: k.ID, Name: k.Name, Prefix: k.Prefix, Scopes: k.Scopes, Locations: append([]uuid.UUID{}, k.Reach...), Status: k.Status(now),
		ExpiresSoon: k.ExpiresSoon(now), ExpiresAt: TimePtr(k.ExpiresAt), RevokedAt: TimePtr(k.RevokedAt),
		LastUsedAt: TimePtr(k.LastUsedAt), CreatedAt: Time(k.CreatedAt)}
	if k.RateLimit != nil {
		s := k.RateLimit.String()
		v.RateLimit = &s
	}
	return v
}
