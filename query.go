package gatehouse

import (
	"errors"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/google/uuid"
)

// Bounds of free-text query parameters, in characters.
const (
	MaxQLen        = 200
	MaxExternalID  = 128 // platform user ids and server job ids
	dateOnlyLayout = "2006-01-02"
	paramCursor    = "cursor"
	paramLimit     = "limit"
)

var reasonRE = regexp.MustCompile(ReasonPattern)

// EventQuery is a parsed request for a page of events: the filter to apply,
// the cursor to continue from, and what parsing changed, for the response's
// meta object.
type EventQuery struct {
	Filter       EventFilter
	Cursor       string   // raw cursor, verified by the caller with Cursors
	IgnoredTypes []string // type values that were dropped as unknown
	Narrowed     bool     // the date range was narrowed to MaxRange
}

// EventQueryParams lists the query parameters ParseEventQuery reads.
var EventQueryParams = []string{
	"accessPointId", "locationId", "type", "allowed", "platformUserId", "reason",
	"scope", "q", "dateFrom", "dateTo", paramLimit, paramCursor,
}

// ParseEventQuery reads the query parameters of GET /events. An empty value
// counts as absent; every parameter but type may appear once. It returns a
// *ValidationError listing every malformed parameter at once; unknown type
// values and over-wide date ranges are not errors (see EventQuery).
func ParseEventQuery(v url.Values) (EventQuery, error) {
	return parseEventQuery(v, EventQueryParams)
}

// parseEventQuery is ParseEventQuery for an endpoint whose parameters are
// known: any other is an error.
func parseEventQuery(v url.Values, known []string) (EventQuery, error) {
	var (
		q    EventQuery
		errs ValidationError
		f    = &q.Filter
	)
	one := newListQuery(v, known, &errs).one
	if s, ok := one("accessPointId"); ok {
		f.AccessPointID = parseUUID(&errs, "accessPointId", s)
	}
	if s, ok := one("locationId"); ok {
		f.LocationID = parseUUID(&errs, "locationId", s)
	}
	for _, s := range v["type"] {
		for t := range strings.SplitSeq(s, ",") {
			t = strings.TrimSpace(t)
			switch {
			case t == "":
			case slices.Contains(EventTypes, EventType(t)):
				if !slices.Contains(f.Types, EventType(t)) {
					f.Types = append(f.Types, EventType(t))
				}
			default:
				q.IgnoredTypes = append(q.IgnoredTypes, t)
			}
		}
	}
	if s, ok := one("allowed"); ok {
		if o := Outcome(s); o == Granted || o == Denied {
			f.Allowed = &o
		} else {
			errs.Add("allowed", "must be granted or denied")
		}
	}
	if s, ok := one("platformUserId"); ok {
		if CheckText(&errs, "platformUserId", s, MaxExternalID) {
			f.PlatformUserID = &s
		}
	}
	if s, ok := one("reason"); ok {
		if reasonRE.MatchString(s) {
			f.Reason = &s
		} else {
			errs.Add("reason", "must be a reason code: upper-case letters, digits and underscores, at most 64, e.g. OUTSIDE_SCHEDULE")
		}
	}
	if s, ok := one("scope"); ok {
		if sc := CommandScope(s); slices.Contains(CommandScopes, sc) {
			f.Scope = &sc
		} else {
			errs.Add("scope", "must be UNIVERSE, SERVER or PLAYER")
		}
	}
	if s, ok := one("q"); ok {
		if CheckText(&errs, "q", s, MaxQLen) {
			f.Q = s
		}
	}
	if s, ok := one("dateFrom"); ok {
		f.From = parseDate(&errs, "dateFrom", s)
	}
	if s, ok := one("dateTo"); ok {
		f.To = parseDate(&errs, "dateTo", s)
	}
	if f.From != nil && f.To != nil {
		switch {
		case f.From.After(*f.To):
			errs.Add("dateFrom", "must not be after dateTo")
		case f.To.Sub(*f.From) > MaxRange:
			from := f.To.Add(-MaxRange)
			f.From = &from
			q.Narrowed = true
		}
	}
	f.Limit = parseLimit(&errs, v)
	if s, ok := one(paramCursor); ok {
		q.Cursor = s
	}
	return q, errs.Err()
}

// ReadEventQuery parses the query of an event list and opens its cursor
// for orgID, reporting every problem of both at once. GET /events and the
// dashboard's Event Log both read their queries with it.
func ReadEventQuery(v url.Values, cursors *Cursors, orgID uuid.UUID) (EventQuery, error) {
	q, err := ParseEventQuery(v)
	var errs ValidationError
	if ve := (*ValidationError)(nil); errors.As(err, &ve) {
		errs.Merge("", ve)
	} else if err != nil {
		return q, err
	}
	if q.Cursor != "" && errs.Issues["cursor"] == nil {
		b, err := cursors.Open(q.Cursor, CursorEvents, q.Filter.Digest(orgID))
		if err == nil {
			var key EventKey
			key, err = DecodeEventKey(b)
			q.Filter.After = &key
		}
		// With other problems the filters, and so the digest, are not
		// known; a cursor can still be seen to be forged.
		if err != nil && (len(errs.Issues) == 0 || errors.Is(err, ErrCursorInvalid)) {
			errs.Add("cursor", "%s", err.Error())
		}
	}
	return q, errs.Err()
}

// ParseLimit reads the limit parameter shared by every list endpoint.
func ParseLimit(v url.Values) (int, error) {
	var errs ValidationError
	n := parseLimit(&errs, v)
	return n, errs.Err()
}

func parseLimit(errs *ValidationError, v url.Values) int {
	return parseLimitUpTo(errs, v, MaxLimit)
}

// parseLimitUpTo reads the limit parameter of a list that may give up to
// most at once (DefaultLimit when absent or bad).
func parseLimitUpTo(errs *ValidationError, v url.Values, most int) int {
	vals := slices.DeleteFunc(slices.Clone(v[paramLimit]), func(s string) bool { return s == "" })
	switch {
	case len(vals) == 0:
		return DefaultLimit
	case len(vals) > 1:
		errs.Add(paramLimit, "must be given at most once")
		return DefaultLimit
	}
	n, err := strconv.Atoi(vals[0])
	if err != nil || n < 1 || n > most {
		errs.Add(paramLimit, "must be an integer from 1 to %d", most)
		return DefaultLimit
	}
	return n
}

func parseUUID(errs *ValidationError, field, s string) *uuid.UUID {
	id, err := ParseUUID(s)
	if err != nil {
		errs.Add(field, "must be a UUID, e.g. 0193a5b2-7c1e-7d3f-9a4b-5c6d7e8f9a0b")
		return nil
	}
	return &id
}

// ParseUUID accepts only the canonical hyphenated form (any case) and
// returns it; braces, "urn:uuid:" and bare hex are refused.
func ParseUUID(s string) (uuid.UUID, error) {
	if len(s) != 36 {
		return uuid.UUID{}, ErrInvalid
	}
	return uuid.Parse(s)
}

// parseDate reads RFC 3339 with an offset, or YYYY-MM-DD meaning 00:00 UTC,
// truncated to milliseconds and within MinTime..MaxTime, so that meta never
// shows a date that cannot be written in RFC 3339.
func parseDate(errs *ValidationError, field, s string) *time.Time {
	t, err := ParseTime(s)
	if err != nil {
		t, err = time.Parse(dateOnlyLayout, s)
	}
	if err != nil {
		errs.Add(field, "must be an RFC 3339 timestamp with an offset (2026-11-20T12:00:00Z) or a date (2026-11-20), from year 0000 to 9999 in UTC")
		return nil
	}
	return &t
}

// CheckText adds to errs, under field, what is wrong with a text a person
// or a game server gave: it must be valid UTF-8, at most max characters,
// and free of control and bidirectional-override characters. It reports
// whether s passed.
func CheckText(errs *ValidationError, field, s string, max int) bool {
	switch {
	case !utf8.ValidString(s):
		errs.Add(field, "must be valid UTF-8")
	case utf8.RuneCountInString(s) > max:
		errs.Add(field, "must be at most %d characters", max)
	case HasUnsafeRune(s):
		errs.Add(field, unsafeInText)
	default:
		return true
	}
	return false
}
