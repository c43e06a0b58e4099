// Package gatehouse holds the domain of the Gatehouse access-control event
// service: organizations, API keys and their scopes, locations and access
// points, access events and remote-unlock commands, the filters and cursors
// that page through events, and the Store interface every backend implements.
//
// The package imports no database driver and no HTTP code; implementations
// live in internal/sqlite, internal/server and friends.
package gatehouse

import (
	"time"

	"github.com/google/uuid"
)

// NewID returns a new time-ordered identifier (UUIDv7).
func NewID() uuid.UUID {
	return uuid.Must(uuid.NewV7())
}

// Truncate returns t in UTC at the millisecond precision Gatehouse stores
// and prints.
func Truncate(t time.Time) time.Time {
	return t.UTC().Truncate(time.Millisecond)
}

// TimeFormat is how every timestamp is written: RFC 3339 in UTC with exactly
// three fractional digits, e.g. 2026-11-20T12:34:56.789Z.
const TimeFormat = "2006-01-02T15:04:05.000Z07:00"

// FormatTime writes t as TimeFormat in UTC.
func FormatTime(t time.Time) string {
	return t.UTC().Format(TimeFormat)
}

// Time is an instant that marshals to JSON as TimeFormat.
type Time time.Time

// MarshalJSON writes the instant as a quoted TimeFormat string.
func (t Time) MarshalJSON() ([]byte, error) {
	b := make([]byte, 0, len(TimeFormat)+2)
	b = append(b, '"')
	b = time.Time(t).UTC().AppendFormat(b, TimeFormat)
	return append(b, '"'), nil
}

// TimePtr converts an optional instant for JSON output.
func TimePtr(t *time.Time) *Time {
	if t == nil {
		return nil
	}
	v := Time(*t)
	return &v
}

// Equal reports whether t and u are the same instant.
func (t Time) Equal(u Time) bool { return time.Time(t).Equal(time.Time(u)) }
