package client

import (
	"cmp"
	"context"
	"errors"
	"iter"
	"time"
)

// FeedPage is one page of the event feed: events in the order the server
// stored them.
type FeedPage struct {
	Data []Event `json:"data"`
	// NextCursor is never empty: store it once Data is safely processed,
	// and resume from it, even months later.
	NextCursor string `json:"nextCursor"`
	// CompleteThrough: once caught up (a page shorter than the limit),
	// the consumer holds every event received up to this instant.
	CompleteThrough time.Time `json:"completeThrough"`
}

// defaultLimit is the server's page size when the query sets none.
const defaultLimit = 50

// ErrFeedQuery is returned for a feed query with Q, From or To, which the
// feed does not take.
var ErrFeedQuery = errors.New("client: the feed takes no q and no dates")

// ReadFeed returns the page of the feed after cursor ("" for the feed's
// start), filtered by q, whose Q, From and To must be zero.
func (c *Client) ReadFeed(ctx context.Context, q EventQuery, after string) (*FeedPage, error) {
	if q.Q != "" || !q.From.IsZero() || !q.To.IsZero() {
		return nil, ErrFeedQuery
	}
	v := q.values()
	if after != "" {
		v.Set("after", after)
	}
	var page FeedPage
	if err := c.do(ctx, "GET", "/api/consumer/v1/events/feed", v, nil, &page); err != nil {
		return nil, err
	}
	return &page, nil
}

// Feed follows the feed from after ("" for its start), for as long as ctx
// lasts: it yields each page that holds events, in order, and once caught
// up asks again every poll. Every event of q comes exactly once, however
// late it reached the server. Store each page's NextCursor after handling
// its events, and pass the stored cursor as after to resume: a crash
// between the two repeats at most that page.
//
// It stops at the first error, which it yields (ctx's when ctx ends).
func (c *Client) Feed(ctx context.Context, q EventQuery, after string, poll time.Duration) iter.Seq2[*FeedPage, error] {
	return func(yield func(*FeedPage, error) bool) {
		for {
			page, err := c.ReadFeed(ctx, q, after)
			if err != nil {
				yield(nil, err)
				return
			}
			if len(page.Data) > 0 && !yield(page, nil) {
				return
			}
			after = page.NextCursor
			if len(page.Data) >= cmp.Or(q.Limit, defaultLimit) {
				continue // a full page: more may follow at once
			}
			select {
			case <-ctx.Done():
				yield(nil, ctx.Err())
				return
			case <-time.After(poll):
			}
		}
	}
}
