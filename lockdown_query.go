package gatehouse

import (
	"crypto/sha256"
	"net/url"
	"time"

	"github.com/google/uuid"
)

// CursorLockdowns is the cursor kind of lockdown lists.
const CursorLockdowns = 'd'

// LockdownQueryParams lists the query parameters ReadLockdownQuery reads.
var LockdownQueryParams = []string{"active", paramLimit, paramCursor}

// ReadLockdownQuery parses the query of a lockdown list (GET /lockdowns,
// the CLI) and opens its cursor for orgID, as [ReadCommandQuery] does:
// active is true or false, and every problem is reported at once in a
// *ValidationError keyed by parameter. now is the instant "active" means.
func ReadLockdownQuery(v url.Values, cursors *Cursors, orgID uuid.UUID, now time.Time) (LockdownFilter, error) {
	var (
		f    = LockdownFilter{Now: now}
		errs ValidationError
	)
	q := newListQuery(v, LockdownQueryParams, &errs)
	if s, ok := q.one("active"); ok {
		switch s {
		case "true":
			f.Active = true
		case "false":
		default:
			errs.Add("active", "must be true or false")
		}
	}
	f.Limit = q.limit()
	f.After = openListCursor(q, cursors, CursorLockdowns, f.Digest(orgID), DecodeLockdownKey)
	return f, errs.Err()
}

// Digest binds a cursor to the organization and the filter.
func (f LockdownFilter) Digest(orgID uuid.UUID) [8]byte {
	h := sha256.New()
	h.Write([]byte("lockdowns\x00"))
	h.Write(orgID[:])
	if f.Active {
		h.Write([]byte("active"))
	}
	return [8]byte(h.Sum(nil)[:8])
}

// EncodeLockdownKey writes a lockdown position as cursor bytes.
func EncodeLockdownKey(k LockdownKey) []byte {
	return EncodeEventKey(EventKey{OccurredAt: k.StartedAt, ID: k.ID})
}

// DecodeLockdownKey reads cursor bytes written by EncodeLockdownKey.
func DecodeLockdownKey(b []byte) (LockdownKey, error) {
	k, err := DecodeEventKey(b)
	return LockdownKey{StartedAt: k.OccurredAt, ID: k.ID}, err
}
