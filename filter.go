package gatehouse

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/google/uuid"
)

// Page sizes of every list endpoint.
const (
	DefaultLimit = 50
	MaxLimit     = 500
)

// MaxRange is the widest date range a query may span; wider ranges are
// narrowed by moving the start, never rejected.
const MaxRange = 366 * 24 * time.Hour

// EventFilter narrows an organization's events. Every set field must match
// (they are ANDed); the organization is not part of the filter because every
// store method takes it separately and applies it first.
type EventFilter struct {
	ID             *uuid.UUID // exact event id
	AccessPointID  *uuid.UUID
	LocationID     *uuid.UUID
	Types          []EventType // any of; empty means every type
	Allowed        *Outcome
	PlatformUserID *string
	Reason         *string
	Scope          *CommandScope
	Q              string     // case-insensitive substring of user, names, reason, job id; prefix of the id
	From           *time.Time // inclusive
	To             *time.Time // exclusive
	// Within, when not nil, keeps the events of those locations only:
	// the reach of the actor reading (the service sets it; never a
	// query parameter).
	Within Reach

	Limit int       // events per page, 1..MaxLimit
	After *EventKey // keyset position: only events after it in the event order
}

// EventPage is one page of events in the event order (occurredAt descending,
// then id descending). Next is the position to continue from, or nil on the
// last page.
type EventPage struct {
	Events []Event
	Next   *EventKey
	// Partial says the page may hold fewer events than the limit although
	// more may match before Next: a q found in too many distinct values
	// to read each one's events (SearchBudgets.Terms) is matched on a
	// bounded number of events per page (SearchBudgets.Max), and the page
	// ends at the last event read. Next is then always set.
	Partial bool
}

// Digest identifies the filter (without Limit and After) in an organization,
// so that a cursor can be bound to the query it was issued for.
func (f EventFilter) Digest(orgID uuid.UUID) [8]byte {
	h := sha256.New()
	h.Write([]byte("events\x00"))
	h.Write(orgID[:])
	optUUID := func(u *uuid.UUID) {
		if u == nil {
			h.Write([]byte{0})
			return
		}
		h.Write([]byte{1})
		h.Write(u[:])
	}
	str := func(present bool, s string) {
		var n [9]byte
		if present {
			n[0] = 1
		}
		binary.BigEndian.PutUint64(n[1:], uint64(len(s)))
		h.Write(n[:])
		h.Write([]byte(s))
	}
	optStr := func(s *string) {
		if s == nil {
			str(false, "")
		} else {
			str(true, *s)
		}
	}
	optTime := func(t *time.Time) {
		var b [9]byte
		if t != nil {
			b[0] = 1
			binary.BigEndian.PutUint64(b[1:], uint64(t.UnixMilli()))
		}
		h.Write(b[:])
	}
	optUUID(f.ID)
	optUUID(f.AccessPointID)
	optUUID(f.LocationID)
	for _, t := range EventTypes { // canonical order, so "a,b" and "b,a" agree
		present := false
		for _, ft := range f.Types {
			present = present || ft == t
		}
		str(present, "")
	}
	optStr((*string)(f.Allowed))
	optStr(f.PlatformUserID)
	optStr(f.Reason)
	optStr((*string)(f.Scope))
	str(true, f.Q)
	optTime(f.From)
	optTime(f.To)
	var d [8]byte
	copy(d[:], h.Sum(nil))
	return d
}

// searchSeparator joins the searched fields of an event. q may not contain
// control characters, so no match can span two fields.
const searchSeparator = "\x1f"

// SearchText is the text q is matched against as a substring: the platform
// user id, access point name, location name, reason and server job id.
// The event id is matched by prefix instead (IDPrefix).
func SearchText(platformUserID *string, accessPoint, location string, reason, serverJobID *string) string {
	opt := func(s *string) string {
		if s == nil {
			return ""
		}
		return *s
	}
	return opt(platformUserID) + searchSeparator + accessPoint + searchSeparator + location +
		searchSeparator + opt(reason) + searchSeparator + opt(serverJobID)
}

// MatchesQ reports whether an event with this id and search text matches
// q: the text contains q, ignoring case as FoldCase says, or the id starts
// with q (IDPrefix). It is the reference for every store's implementation
// of q.
func MatchesQ(q string, id uuid.UUID, searchText string) bool {
	if lo, hi, ok := IDPrefix(q); ok && bytes.Compare(id[:], lo[:]) >= 0 && (hi == nil || bytes.Compare(id[:], hi[:]) < 0) {
		return true
	}
	return strings.Contains(FoldCase(searchText), FoldCase(q))
}

// MinIDPrefix is the fewest hexadecimal digits q needs to match event ids
// by prefix: three would select one event in 4,096 of a log, too many to
// read through the id index for a page.
const MinIDPrefix = 4

// IDPrefix reads q as the start of an event id: at least MinIDPrefix
// hexadecimal digits in either case, with hyphens where the canonical form
// has them or without any. The ids that start so are those from lo
// (inclusive) to hi (exclusive); hi is nil when every id from lo on does
// (a prefix of all f's).
func IDPrefix(q string) (lo uuid.UUID, hi *uuid.UUID, ok bool) {
	var digits []byte
	hyphens := strings.Contains(q, "-")
	for i := 0; i < len(q); i++ {
		c := q[i]
		switch {
		case c == '-':
			if i != 8 && i != 13 && i != 18 && i != 23 {
				return lo, nil, false
			}
		case hyphens && (i == 8 || i == 13 || i == 18 || i == 23):
			return lo, nil, false // the canonical form has a hyphen here
		case '0' <= c && c <= '9':
			digits = append(digits, c-'0')
		case 'a' <= c && c <= 'f', 'A' <= c && c <= 'F':
			digits = append(digits, c|0x20-'a'+10)
		default:
			return lo, nil, false
		}
	}
	if len(digits) < MinIDPrefix || len(digits) > 32 {
		return lo, nil, false
	}
	for i, d := range digits {
		lo[i/2] |= d << (4 * (1 - i%2))
	}
	// hi is lo with the prefix's last digit raised by one, carrying.
	next := lo
	for i := len(digits) - 1; i >= 0; i-- {
		if digits[i] < 15 {
			next[i/2] += 1 << (4 * (1 - i%2))
			return lo, &next, true
		}
		next[i/2] &^= 0xf << (4 * (1 - i%2))
	}
	return lo, nil, true
}

// FoldCase is the one case-folding rule of q, on every path of every
// store: each character becomes the lower case of its upper case, by
// Unicode's one-to-one mappings.
//   - İ, ı and I all match i; ſ matches s; ς and Σ match σ; the Kelvin
//     sign matches k.
//   - No character becomes two: ß does not match ss.
//
// The stores index FoldCase of the search text, not a plain lower-casing:
// that would keep ſ, ς and ı apart from their capitals' other forms, and
// SQLite's and Go's tables disagree on İ.
func FoldCase(s string) string {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return strings.Map(foldRune, s)
		}
	}
	return strings.ToLower(s) // ASCII: the same, without a rune at a time
}

func foldRune(r rune) rune { return unicode.ToLower(unicode.ToUpper(r)) }

// EventCount is how many events of a filter fall in one bucket of time.
type EventCount struct {
	Start   time.Time
	Granted int
	Denied  int
	Other   int // remote unlocks, which have no outcome
}

// Add counts n events of an outcome ("" for none).
func (c *EventCount) Add(o Outcome, n int) {
	switch o {
	case Granted:
		c.Granted += n
	case Denied:
		c.Denied += n
	default:
		c.Other += n
	}
}

// NewEventCounts returns the empty buckets of step covering [from, to).
func NewEventCounts(from, to time.Time, step time.Duration) []EventCount {
	var counts []EventCount
	for t := from; t.Before(to); t = t.Add(step) {
		counts = append(counts, EventCount{Start: t})
	}
	return counts
}
