package gatehouse

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"time"

	"github.com/google/uuid"
)

// Cursor errors. Both are reported to clients as a 400 on the cursor parameter.
var (
	// ErrCursorInvalid: the cursor was not issued by this service (or was altered).
	ErrCursorInvalid = errors.New("is not a valid cursor; use nextCursor exactly as returned")
	// ErrCursorMismatch: the cursor was issued for other filters.
	ErrCursorMismatch = errors.New("was issued for different filters; repeat the filters of the request that returned it, or start without a cursor")
)

// Cursor kinds keep a cursor of one list from being replayed on another.
const (
	cursorVersion   = 1
	CursorEvents    = 'e'
	CursorLocations = 'l'
	CursorAudit     = 'a'
)

const cursorMACLen = 16

// Cursors signs and opens opaque pagination cursors. A cursor carries a
// position, the digest of the filters it was issued for and an HMAC-SHA256
// tag, so a client can neither forge a position nor reuse it with other
// filters. Instances that share a secret accept each other's cursors.
type Cursors struct {
	key []byte
}

// NewCursors derives the signing key from the service secret.
func NewCursors(secret []byte) *Cursors {
	m := hmac.New(sha256.New, secret)
	m.Write([]byte("gatehouse cursor v1"))
	return &Cursors{key: m.Sum(nil)}
}

// Sign returns the opaque cursor for a position in the list of kind,
// bound to digest.
func (c *Cursors) Sign(kind byte, digest [8]byte, position []byte) string {
	b := make([]byte, 0, 2+len(digest)+len(position)+cursorMACLen)
	b = append(b, cursorVersion, kind)
	b = append(b, digest[:]...)
	b = append(b, position...)
	b = append(b, c.mac(b)...)
	return base64.RawURLEncoding.EncodeToString(b)
}

// Open verifies a cursor of kind and returns its position. It returns
// [ErrCursorInvalid] for anything it did not sign, and [ErrCursorMismatch]
// when the cursor was signed for another digest.
func (c *Cursors) Open(s string, kind byte, digest [8]byte) ([]byte, error) {
	b, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil || len(b) < 2+len(digest)+cursorMACLen {
		return nil, ErrCursorInvalid
	}
	body, tag := b[:len(b)-cursorMACLen], b[len(b)-cursorMACLen:]
	if !hmac.Equal(tag, c.mac(body)) || body[0] != cursorVersion || body[1] != kind {
		return nil, ErrCursorInvalid
	}
	if !hmac.Equal(body[2:10], digest[:]) {
		return nil, ErrCursorMismatch
	}
	return body[10:], nil
}

func (c *Cursors) mac(b []byte) []byte {
	m := hmac.New(sha256.New, c.key)
	m.Write(b)
	return m.Sum(nil)[:cursorMACLen]
}

// EncodeEventKey writes an event position as cursor bytes.
func EncodeEventKey(k EventKey) []byte {
	b := make([]byte, 8, 24)
	binary.BigEndian.PutUint64(b, uint64(k.OccurredAt.UnixMilli()))
	return append(b, k.ID[:]...)
}

// DecodeEventKey reads cursor bytes written by EncodeEventKey.
func DecodeEventKey(b []byte) (EventKey, error) {
	if len(b) != 24 {
		return EventKey{}, ErrCursorInvalid
	}
	var k EventKey
	k.OccurredAt = time.UnixMilli(int64(binary.BigEndian.Uint64(b))).UTC()
	copy(k.ID[:], b[8:])
	return k, nil
}

// LocationKey is the position of a location in the location order: name,
// then id.
type LocationKey struct {
	Name string
	ID   uuid.UUID
}

// EncodeLocationKey writes a location position as cursor bytes.
func EncodeLocationKey(k LocationKey) []byte {
	return append(k.ID[:], k.Name...)
}

// DecodeLocationKey reads cursor bytes written by EncodeLocationKey.
func DecodeLocationKey(b []byte) (LocationKey, error) {
	if len(b) < 16 {
		return LocationKey{}, ErrCursorInvalid
	}
	var k LocationKey
	copy(k.ID[:], b[:16])
	k.Name = string(b[16:])
	return k, nil
}

// EventCursor signs the position next for the filters f of orgID.
func (c *Cursors) EventCursor(orgID uuid.UUID, f EventFilter, next EventKey) string {
	return c.Sign(CursorEvents, f.Digest(orgID), EncodeEventKey(next))
}
