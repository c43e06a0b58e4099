// Package gatehouse holds the nouns of the Gatehouse access-control event
// service and their rules: organizations, API keys and their scopes,
// locations and access points, access events and remote-unlock commands,
// policies and the evaluator that decides by them, the filters and cursors
// that page through events, who may do what, and the [Store] interface
// every backend implements.
//
// Nothing here runs by itself: no goroutine, channel, mutex or timer. The
// operations and everything that runs (loops, caches, leases) live in
// internal/service; the package imports no database driver and nothing of
// internal/ (layers_test.go keeps both walls).
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

// MinTime and MaxTime bound every instant Gatehouse accepts, from any
// door: they are the first and last instants that TimeFormat can write, in
// UTC, with a four-digit year. An instant is checked after conversion to
// UTC, because an offset moves the year: 9999-12-31T23:59:59.999-23:59 is
// 10000-01-01 in UTC, which no RFC 3339 reader accepts.
var (
	MinTime = time.Date(0, time.January, 1, 0, 0, 0, 0, time.UTC)
	MaxTime = time.Date(9999, time.December, 31, 23, 59, 59, 999_000_000, time.UTC)
)

// ParseTime reads an RFC 3339 timestamp with an offset and returns it as
// Truncate does. It returns [ErrInvalid] when s is not RFC 3339 or the
// instant lies outside MinTime..MaxTime.
func ParseTime(s string) (time.Time, error) {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return time.Time{}, ErrInvalid
	}
	return inRange(Truncate(t))
}

// inRange returns t, or [ErrInvalid] when it lies outside MinTime..MaxTime.
func inRange(t time.Time) (time.Time, error) {
	if t.Before(MinTime) || t.After(MaxTime) {
		return time.Time{}, ErrInvalid
	}
	return t, nil
}

// TimeFormat is how every timestamp is written: RFC 3339 in UTC with exactly
// three fractional digits, e.g. 2026-11-20T12:34:56.789Z.
const TimeFormat = "2006-01-02T15:04:05.000Z07:00"

// FormatTime writes t as TimeFormat in UTC.
func FormatTime(t time.Time) string {
	return string(AppendTime(make([]byte, 0, len("2006-01-02T15:04:05.000Z")), t))
}

// AppendTime appends t as TimeFormat in UTC. Every event carries two or
// three instants, so a page of events formats a hundred or more: this
// writes the digits directly, several times faster than AppendFormat.
func AppendTime(b []byte, t time.Time) []byte {
	t = t.UTC()
	year, month, day := t.Date()
	if year < 0 || year > 9999 {
		return t.AppendFormat(b, TimeFormat)
	}
	hour, min, sec := t.Clock()
	b = appendDigits(b, year, 4)
	b = appendDigits(append(b, '-'), int(month), 2)
	b = appendDigits(append(b, '-'), day, 2)
	b = appendDigits(append(b, 'T'), hour, 2)
	b = appendDigits(append(b, ':'), min, 2)
	b = appendDigits(append(b, ':'), sec, 2)
	b = appendDigits(append(b, '.'), t.Nanosecond()/int(time.Millisecond), 3)
	return append(b, 'Z')
}

// appendDigits appends the n lowest decimal digits of v, zero-padded.
func appendDigits(b []byte, v, n int) []byte {
	start := len(b)
	b = append(b, "0000"[:n]...)
	for i := start + n - 1; i >= start; i-- {
		b[i] = byte('0' + v%10)
		v /= 10
	}
	return b
}

// Time is an instant that marshals to JSON as a TimeFormat string.
type Time time.Time

// MarshalText writes the instant as TimeFormat. (Text, not JSON: the JSON
// encoder checks and compacts what a MarshalJSON returns, and quotes what a
// MarshalText returns, which is cheaper.)
func (t Time) MarshalText() ([]byte, error) {
	return AppendTime(make([]byte, 0, len("2006-01-02T15:04:05.000Z")), time.Time(t)), nil
}

// UnmarshalText reads an RFC 3339 instant, as MarshalText writes it, so
// that an API answer reads back into the domain's types.
func (t *Time) UnmarshalText(b []byte) error {
	v, err := time.Parse(time.RFC3339Nano, string(b))
	if err != nil {
		return err
	}
	*t = Time(v.UTC())
	return nil
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
