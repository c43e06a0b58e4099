package gatehouse

import (
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
	Q              string     // case-insensitive substring of id, user, names, reason, job id
	From           *time.Time // inclusive
	To             *time.Time // exclusive

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
	// more may match before Next: a q too short for the search index is
	// matched on a bounded number of events per page (SearchBudgets.Max),
	// and the page ends at the last event read. Next is then always set.
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

// SearchText is the text q is matched against: the event id, platform user
// id, access point name, location name, reason and server job id.
func SearchText(id uuid.UUID, platformUserID *string, accessPoint, location string, reason, serverJobID *string) string {
	opt := func(s *string) string {
		if s == nil {
			return ""
		}
		return *s
	}
	return id.String() + searchSeparator + opt(platformUserID) + searchSeparator + accessPoint +
		searchSeparator + location + searchSeparator + opt(reason) + searchSeparator + opt(serverJobID)
}

// MatchesQ reports whether the search text contains q, ignoring case as
// FoldCase says. It is the reference for every store's implementation of q.
func MatchesQ(searchText, q string) bool {
	return strings.Contains(FoldCase(searchText), FoldCase(q))
}

// FoldCase is the one case-folding rule of q, on every path of every store:
// each character becomes the lower case of its upper case, by Unicode's
// one-to-one mappings. So İ, ı and I all match i, ſ matches s, ς and Σ
// match σ, and the Kelvin sign matches k; no character becomes two (ß does
// not match ss). A plain lower-casing would keep ſ, ς and ı apart from
// their capitals' other forms, and SQLite's and Go's tables disagree on
// İ; the stores index FoldCase of the search text instead.
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
