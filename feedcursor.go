package gatehouse

import (
	"crypto/cipher"
	"crypto/hkdf"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"errors"

	"github.com/google/uuid"
)

// feedCursorPurpose labels the keys derived from the service secret for
// sealing feed positions: no other use of the secret makes the same.
const feedCursorPurpose = "gatehouse feed cursor v2"

// feedCursorSealed is the first byte of a sealed feed cursor. A cursor
// of the first form is the base64 of "f1.<txn>.<seq>", whose first byte
// is 'f': the two never meet.
const feedCursorSealed byte = 2

// ErrFeedCursor is what a cursor that does not open says, whatever the
// reason (altered, another organization's, another secret's).
var ErrFeedCursor = errors.New("is not a feed cursor of this organization: pass nextCursor of a feed page as it was given")

// FeedCursors seals feed positions into the cursors consumers keep, and
// opens them. A cursor:
//   - reveals nothing of the position, which counts the events and
//     transactions of every organization (a global sequence) and would
//     tell a consumer how many events others stored between two of its
//     reads;
//   - cannot be altered, and does not open for another organization;
//   - is always the same for the same position, and two positions never
//     share a nonce;
//   - opens on every instance that shares the secret.
//
// The cursor holds the position encrypted and authenticated (AES-256-GCM)
// under a key derived from the service secret, with the organization as
// additional data. The nonce is a MAC of the organization and the position
// under a key of its own (a synthetic IV).
type FeedCursors struct {
	aead     cipher.AEAD
	nonceKey []byte
}

// NewFeedCursors derives the keys from the service secret.
func NewFeedCursors(secret []byte) *FeedCursors {
	// Errors come only from lengths HKDF and AES cannot take; 32 they can.
	aead, err := derivedAEAD(secret, feedCursorPurpose+" seal")
	if err != nil {
		panic(err)
	}
	nonceKey, err := hkdf.Key(sha256.New, secret, nil, feedCursorPurpose+" nonce", 32)
	if err != nil {
		panic(err)
	}
	return &FeedCursors{aead: aead, nonceKey: nonceKey}
}

// Seal returns the cursor of position p of orgID's feed.
func (c *FeedCursors) Seal(orgID uuid.UUID, p FeedPosition) string {
	var plain [16]byte
	binary.BigEndian.PutUint64(plain[:8], p.Txn)
	binary.BigEndian.PutUint64(plain[8:], uint64(p.Seq))
	ad := feedCursorAD(orgID)
	m := hmac.New(sha256.New, c.nonceKey)
	m.Write(ad)
	m.Write(plain[:])
	n := c.aead.NonceSize()
	out := make([]byte, 1, 1+n+len(plain)+c.aead.Overhead())
	out[0] = feedCursorSealed
	out = m.Sum(out)[:1+n]
	out = c.aead.Seal(out, out[1:1+n], plain[:], ad)
	return base64.RawURLEncoding.EncodeToString(out)
}

// Open returns the position of a cursor of orgID's feed.
//
// legacy says the cursor was of the first, unsealed form: base64 of
// "f1.<txn>.<seq>", handed out before cursors were sealed. Anyone can
// write one, so the caller reads its position as no later than where the
// feed stood when cursors began to be sealed
// ([EventStore.FeedCursorCeiling]). A written one then compares nothing
// stored since with a number of its writer's choosing.
func (c *FeedCursors) Open(orgID uuid.UUID, s string) (p FeedPosition, legacy bool, err error) {
	b, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil || len(s) > 128 {
		return FeedPosition{}, false, ErrFeedCursor
	}
	if len(b) > 0 && b[0] != feedCursorSealed {
		p, err := parseLegacyFeedCursor(b)
		return p, err == nil, err
	}
	n := c.aead.NonceSize()
	if len(b) != 1+n+16+c.aead.Overhead() {
		return FeedPosition{}, false, ErrFeedCursor
	}
	plain, err := c.aead.Open(nil, b[1:1+n], b[1+n:], feedCursorAD(orgID))
	if err != nil {
		return FeedPosition{}, false, ErrFeedCursor
	}
	p = FeedPosition{Txn: binary.BigEndian.Uint64(plain[:8]), Seq: int64(binary.BigEndian.Uint64(plain[8:]))}
	if p.Seq < 0 {
		return FeedPosition{}, false, ErrFeedCursor
	}
	return p, false, nil
}

// feedCursorAD binds a sealed cursor to its form and organization.
func feedCursorAD(orgID uuid.UUID) []byte {
	return append([]byte{feedCursorSealed}, orgID[:]...)
}
