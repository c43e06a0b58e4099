package gatehouse

import (
	"errors"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// FeedPosition is a place in an organization's feed: the order in which
// Gatehouse stored its events. Txn orders the writing transactions (on
// PostgreSQL its id, whose order is not the order of the commits; zero on
// SQLite, whose one writer commits in the order it writes) and Seq the
// events within and across them. The zero position is the feed's start.
type FeedPosition struct {
	Txn uint64
	Seq int64
}

// Less reports whether p comes before q in the feed.
func (p FeedPosition) Less(q FeedPosition) bool {
	return p.Txn < q.Txn || p.Txn == q.Txn && p.Seq < q.Seq
}

// legacyFeedCursorVersion prefixes the feed cursors of the first form,
// the base64 of "f1.<txn>.<seq>", handed out before cursors were sealed
// (FeedCursors): consumers keep cursors forever, so they are still read.
const legacyFeedCursorVersion = "f1"

// parseLegacyFeedCursor reads the decoded bytes of a cursor of the first
// form.
func parseLegacyFeedCursor(b []byte) (FeedPosition, error) {
	parts := strings.Split(string(b), ".")
	if len(parts) != 3 || parts[0] != legacyFeedCursorVersion {
		return FeedPosition{}, ErrFeedCursor
	}
	txn, err1 := strconv.ParseUint(parts[1], 10, 64)
	seq, err2 := strconv.ParseInt(parts[2], 10, 64)
	if err1 != nil || err2 != nil || seq < 0 {
		return FeedPosition{}, ErrFeedCursor
	}
	return FeedPosition{Txn: txn, Seq: seq}, nil
}

// FeedQuery is a parsed request for a page of the feed: the filters of
// GET /events without q and dates, where to continue, and how many.
type FeedQuery struct {
	Filter EventFilter // Limit set; Q, From, To, ID and After unset
	// Cursor is the after parameter as given; the service opens it
	// (ReadFeedQuery) into After.
	Cursor string
	After  FeedPosition
}

// FeedQueryParams lists the query parameters ParseFeedQuery reads.
var FeedQueryParams = []string{
	"accessPointId", "locationId", "type", "allowed", "platformUserId", "reason", "scope", paramLimit, ParamAfter,
}

// ParamAfter is the query parameter of a feed page's cursor.
const ParamAfter = "after"

// ParseFeedQuery reads the query parameters of GET /events/feed, reporting
// every problem at once in a *ValidationError; the cursor is kept as
// given, for the service to open (ReadFeedQuery). Unlike GET /events it
// refuses an unknown type: a feed that dropped a mistyped filter would
// hand its consumer every event.
func ParseFeedQuery(v url.Values) (FeedQuery, error) {
	q, err := parseEventQuery(v, FeedQueryParams)
	var errs ValidationError
	if ve := (*ValidationError)(nil); errors.As(err, &ve) {
		errs.Merge("", ve)
	} else if err != nil {
		return FeedQuery{}, err
	}
	fq := FeedQuery{Filter: q.Filter}
	if len(q.IgnoredTypes) > 0 {
		errs.Add("type", "unknown event type %q (known: %s)", q.IgnoredTypes[0], joinTypes())
	}
	if after, ok := (listQuery{v: v, errs: &errs}).one(ParamAfter); ok {
		fq.Cursor = after
	}
	return fq, errs.Err()
}

// FeedMargin is how far a store's CompleteThrough stays behind the start
// of the oldest write in progress, or behind now: for the moment between
// an instance reading its clock for receivedAt and its transaction
// writing, and for the instances' clocks against the database's.
const FeedMargin = time.Second

// FeedPage is one page of the feed. Next is where to continue, always set:
// the consumer comes back with it, forever, and gets what was stored
// since. CompleteThrough is the receivedAt up to which the feed is
// complete: once a consumer has read to a page shorter than its limit, it
// has every event of its filter received up to then.
type FeedPage struct {
	Events []Event
	// Positions are the events' own, in the same order: a consumer that
	// handled only some of them continues after the last it handled.
	Positions       []FeedPosition
	Next            FeedPosition
	CompleteThrough time.Time
}

func joinTypes() string {
	names := make([]string, len(EventTypes))
	for i, t := range EventTypes {
		names[i] = string(t)
	}
	return strings.Join(names, ", ")
}
