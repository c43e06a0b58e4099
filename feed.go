package gatehouse

import (
	"context"
	"errors"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"
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
		return FeedPosition{}, errFeedCursor
	}
	txn, err1 := strconv.ParseUint(parts[1], 10, 64)
	seq, err2 := strconv.ParseInt(parts[2], 10, 64)
	if err1 != nil || err2 != nil || seq < 0 {
		return FeedPosition{}, errFeedCursor
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
	"accessPointId", "locationId", "type", "allowed", "platformUserId", "reason", "scope", paramLimit, paramAfter,
}

const paramAfter = "after"

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
	if after, ok := (listQuery{v: v, errs: &errs}).one(paramAfter); ok {
		fq.Cursor = after
	}
	return fq, errs.Err()
}

// ReadFeedQuery parses the query of GET /events/feed and opens its
// cursor for orgID into After, reporting every problem of both at once
// as a *ValidationError (the cursor's keyed "after"). A cursor of the
// first form may read the store (legacyFeedPosition): ErrUnavailable.
func (s *Service) ReadFeedQuery(ctx context.Context, orgID uuid.UUID, v url.Values) (FeedQuery, error) {
	q, err := ParseFeedQuery(v)
	var errs ValidationError
	if ve := (*ValidationError)(nil); errors.As(err, &ve) {
		errs.Merge("", ve)
	} else if err != nil {
		return FeedQuery{}, err
	}
	if q.Cursor != "" && errs.Issues[paramAfter] == nil {
		p, legacy, err := s.feedCursors.Open(orgID, q.Cursor)
		switch {
		case err != nil:
			errs.Add(paramAfter, "%s", err.Error())
		case legacy:
			if p, err = s.legacyFeedPosition(ctx, p); err != nil {
				return FeedQuery{}, err
			}
		}
		q.After = p
	}
	return q, errs.Err()
}

// FeedCursor is the cursor of position p of orgID's feed (FeedCursors):
// opaque to consumers, who store it and come back with it.
func (s *Service) FeedCursor(orgID uuid.UUID, p FeedPosition) string {
	return s.feedCursors.Seal(orgID, p)
}

// openFeedCursor opens a cursor of orgID's feed into the position to
// read after, a cursor of the first form no later than the ceiling.
func (s *Service) openFeedCursor(ctx context.Context, orgID uuid.UUID, cursor string) (FeedPosition, error) {
	p, legacy, err := s.feedCursors.Open(orgID, cursor)
	if err != nil {
		return FeedPosition{}, err
	}
	if legacy {
		return s.legacyFeedPosition(ctx, p)
	}
	return p, nil
}

// legacyFeedPosition is p, from a cursor of the first form, as the feed
// reads it: no later than the store's FeedCursorCeiling, where the feed
// stood when cursors began to be sealed. Every such cursor handed out
// is at or before it; one written since, by hand, would otherwise let
// its writer compare the positions of its events, which count every
// organization's, with numbers of its choosing.
func (s *Service) legacyFeedPosition(ctx context.Context, p FeedPosition) (FeedPosition, error) {
	ceiling := s.feedCeiling.Load()
	if ceiling == nil {
		c, err := s.store.FeedCursorCeiling(ctx)
		if err != nil {
			return FeedPosition{}, err
		}
		ceiling = &c
		s.feedCeiling.Store(ceiling)
	}
	if ceiling.Less(p) {
		return *ceiling, nil
	}
	return p, nil
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

// ReadFeed returns the page of the organization's feed after q.After.
// Following Next yields every event of the filter exactly once, however
// late it arrived and in whatever order concurrent writers committed.
// An unknown organization has an empty feed.
func (s *Service) ReadFeed(ctx context.Context, orgID uuid.UUID, q FeedQuery) (FeedPage, error) {
	if err := authorize(ctx, orgID, PermView); err != nil {
		return FeedPage{}, err
	}
	return s.store.ReadFeed(ctx, orgID, q.Filter, q.After)
}

func joinTypes() string {
	names := make([]string, len(EventTypes))
	for i, t := range EventTypes {
		names[i] = string(t)
	}
	return strings.Join(names, ", ")
}
