package gatehouse

import (
	"crypto/hkdf"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"
)

// Retention bounds, in days (docs/api.md, "Privacy: erasure and
// retention"): the minimum keeps a whole 366-day window answerable.
const (
	DefaultRetentionDays = 400
	MinRetentionDays     = 367
	MaxRetentionDays     = 36_500
)

// EraseBatch is how many events one erasure or retention transaction
// deletes: short transactions, so that no write waits long behind one.
const EraseBatch = 1000

// Erasure is what erasing a player removed.
type Erasure struct {
	Events   int `json:"events"`
	Commands int `json:"commands"`
}

// ErasureOutcome says what a request of the platform's right-to-erasure
// webhook did.
type ErasureOutcome string

// The outcomes of an erasure request.
const (
	ErasureErased    ErasureOutcome = "erased"    // verified; the player's data is erased
	ErasureDuplicate ErasureOutcome = "duplicate" // verified; its notification was erased already
	ErasureIgnored   ErasureOutcome = "ignored"   // verified; not an erasure (the platform's test)
	ErasureRefused   ErasureOutcome = "refused"   // bad or missing signature, stale timestamp, bad body
)

// ErasureRequest is the record of one request the organization's
// erasure webhook received: never the player's id, only its keyed hash.
type ErasureRequest struct {
	ID             uuid.UUID      `json:"id"`
	NotificationID string         `json:"notificationId"`
	ReceivedAt     Time           `json:"receivedAt"`
	Outcome        ErasureOutcome `json:"outcome"`
	Detail         string         `json:"detail"`
	UserHash       string         `json:"userHash"`
	Events         int            `json:"events"`
	Commands       int            `json:"commands"`
}

// ErasureWebhookPath is where the platform sends an organization's
// right-to-erasure requests, before its token.
const ErasureWebhookPath = "/api/consumer/v1/integrations/roblox/erasure/"

// ErasureIntegration is an organization's right-to-erasure webhook as the
// admin sets it up on the platform: the URL path's opaque token and the
// secret the platform signs with.
type ErasureIntegration struct {
	Token     string `json:"token"`
	Secret    string `json:"secret"`
	CreatedAt Time   `json:"createdAt"`
}

// userHashPurpose labels the key the audit log's hashes of platform user
// ids are made with.
const userHashPurpose = "gatehouse erased platform user v1"

// PlatformUserHash is the keyed hash the audit log and the erasure
// records name an erased player by: HMAC-SHA256 under a key derived from
// the service secret, over the organization and the id. Without the
// secret it cannot be reversed by trying ids; with it, an operator can
// tell whether a given player was erased.
func PlatformUserHash(secret []byte, orgID uuid.UUID, platformUserID string) string {
	key, _ := hkdf.Key(sha256.New, secret, nil, userHashPurpose, 32) // fails only for a length SHA-256 cannot give
	m := hmac.New(sha256.New, key)
	m.Write(orgID[:])
	m.Write([]byte(platformUserID))
	return "hmac-sha256:" + hex.EncodeToString(m.Sum(nil)[:16])
}

// RetentionCutoff is the occurredAt before which an organization keeping
// days of events deletes them, at now.
func RetentionCutoff(now time.Time, days int) time.Time {
	return now.AddDate(0, 0, -days)
}

// ErasureMaxAge is how old a right-to-erasure request's signed timestamp
// may be (docs/api.md, "The platform's right-to-erasure webhook"): an
// older one is a replay, refused.
const ErasureMaxAge = 10 * time.Minute

// ErrErasureUnverified is a right-to-erasure request whose signature or
// timestamp does not verify: nothing is done.
var ErrErasureUnverified = errors.New("the request's roblox-signature does not verify")

// VerifyPlatformSignature checks a roblox-signature header as the
// platform's "Webhook notifications" documentation defines it, and
// returns what is wrong ("" when it verifies).
func VerifyPlatformSignature(secret []byte, header string, body []byte, now time.Time) string {
	var ts string
	var sigs []string
	for part := range strings.SplitSeq(header, ",") {
		k, v, _ := strings.Cut(strings.TrimSpace(part), "=")
		switch k {
		case "t":
			ts = v
		case "v1":
			sigs = append(sigs, v)
		}
	}
	sec, err := strconv.ParseInt(ts, 10, 64)
	switch {
	case header == "":
		return "no roblox-signature header (set a secret in the platform's webhook settings)"
	case err != nil || len(sigs) == 0:
		return "the roblox-signature header is not t=<timestamp>,v1=<signature>"
	case now.Sub(time.Unix(sec, 0)) > ErasureMaxAge:
		return "the signed timestamp is older than 10 minutes"
	case time.Unix(sec, 0).Sub(now) > time.Minute:
		return "the signed timestamp is in the future"
	}
	m := hmac.New(sha256.New, secret)
	m.Write([]byte(ts + "."))
	m.Write(body)
	want := m.Sum(nil)
	for _, sig := range sigs {
		if got, err := base64.StdEncoding.DecodeString(sig); err == nil && hmac.Equal(got, want) {
			return ""
		}
	}
	return "the signature does not match the secret"
}
