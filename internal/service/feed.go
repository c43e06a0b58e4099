package service

import (
	"context"
	"errors"
	"net/url"

	"github.com/gatehouse/gatehouse"
	"github.com/google/uuid"
)

// ReadFeedQuery parses the query of GET /events/feed and opens its cursor
// for orgID into After.
//
// Errors:
//   - a [*gatehouse.ValidationError] reporting every problem of both at
//     once (the cursor's keyed "after");
//   - [gatehouse.ErrUnavailable]: a cursor of the first form may read the
//     store (legacyFeedPosition).
func (s *Service) ReadFeedQuery(ctx context.Context, orgID uuid.UUID, v url.Values) (gatehouse.FeedQuery, error) {
	q, err := gatehouse.ParseFeedQuery(v)
	var errs gatehouse.ValidationError
	if ve := (*gatehouse.ValidationError)(nil); errors.As(err, &ve) {
		errs.Merge("", ve)
	} else if err != nil {
		return gatehouse.FeedQuery{}, err
	}
	if q.Cursor != "" && errs.Issues[gatehouse.ParamAfter] == nil {
		p, legacy, err := s.feedCursors.Open(orgID, q.Cursor)
		switch {
		case err != nil:
			errs.Add(gatehouse.ParamAfter, "%s", err.Error())
		case legacy:
			if p, err = s.legacyFeedPosition(ctx, orgID, p); err != nil {
				return gatehouse.FeedQuery{}, err
			}
		}
		q.After = p
	}
	return q, errs.Err()
}

// FeedCursor is the cursor of position p of orgID's feed
// ([gatehouse.FeedCursors]): opaque to consumers, who store it and come
// back with it.
func (s *Service) FeedCursor(orgID uuid.UUID, p gatehouse.FeedPosition) string {
	return s.feedCursors.Seal(orgID, p)
}

// openFeedCursor opens a cursor of orgID's feed into the position to
// read after, a cursor of the first form no later than the ceiling.
func (s *Service) openFeedCursor(ctx context.Context, orgID uuid.UUID, cursor string) (gatehouse.FeedPosition, error) {
	p, legacy, err := s.feedCursors.Open(orgID, cursor)
	if err != nil {
		return gatehouse.FeedPosition{}, err
	}
	if legacy {
		return s.legacyFeedPosition(ctx, orgID, p)
	}
	return p, nil
}

// legacyFeedPosition is p, from a cursor of the first form, as the feed
// reads it: no later than the store's
// [gatehouse.EventStore.FeedCursorCeiling], where the feed stood when
// cursors began to be sealed. Every such cursor handed out is at or before
// it; one written since, by hand, would otherwise let its writer compare
// the positions of its events, which count every organization's, with
// numbers of its choosing. It is read at each use: cursors of the first
// form are few and old, and the ceiling is that of the database of orgID
// (an organization on a shard made since has the feed's start).
func (s *Service) legacyFeedPosition(ctx context.Context, orgID uuid.UUID, p gatehouse.FeedPosition) (gatehouse.FeedPosition, error) {
	ceiling, err := s.store.FeedCursorCeiling(ctx, orgID)
	if err != nil {
		return gatehouse.FeedPosition{}, err
	}
	if ceiling.Less(p) {
		return ceiling, nil
	}
	return p, nil
}

// ReadFeed returns the page of the organization's feed after q.After.
// Following Next yields every event of the filter exactly once, however
// late it arrived and in whatever order concurrent writers committed.
// An unknown organization has an empty feed.
func (s *Service) ReadFeed(ctx context.Context, orgID uuid.UUID, q gatehouse.FeedQuery) (gatehouse.FeedPage, error) {
	reach, err := gatehouse.AuthorizeIn(ctx, orgID, gatehouse.PermView)
	if err != nil {
		return gatehouse.FeedPage{}, err
	}
	q.Filter.Within = reach
	return s.store.ReadFeed(ctx, orgID, q.Filter, q.After)
}
