package sqlite

import (
	"context"
	"errors"
	"time"

	"github.com/gatehouse/gatehouse"
	"github.com/google/uuid"
)

// feedMargin is how far completeThrough stays behind now, or behind the
// start of this process's write transaction when one is open: for the
// moment between a batch reading the clock and its rows being written.
// A write transaction of another process on the same file (an import
// while a server runs) is not seen; decisions.md says so.
const feedMargin = time.Second

// ReadFeed implements gatehouse.Store: events in seq order. The one
// writer commits transactions in the order it writes them, so every seq
// below one a reader sees is committed already.
func (db *DB) ReadFeed(ctx context.Context, orgID uuid.UUID, f gatehouse.EventFilter, after gatehouse.FeedPosition) (gatehouse.FeedPage, error) {
	complete := db.Now()
	if since := db.writingSince.Load(); since != 0 && since < complete.UnixNano() {
		complete = time.Unix(0, since)
	}
	page := gatehouse.FeedPage{Events: []gatehouse.Event{}, Next: after, CompleteThrough: complete.Add(-feedMargin).UTC()}
	org, err := db.orgSeq(ctx, db.read, orgID)
	if errors.Is(err, gatehouse.ErrNotFound) || after.Txn != 0 { // not a position of this store: nothing after it
		return page, nil
	}
	if err != nil {
		return page, err
	}
	conds, condArgs := filterConditions(org, f)
	args := append(append([]any{org, after.Seq}, condArgs...), f.Limit)
	rows, err := db.read.QueryContext(ctx, `SELECT `+eventColumns+`, e.seq FROM events e
		LEFT JOIN users u ON u.id = e.requested_by
		LEFT JOIN commands c ON c.org = e.org AND c.id = e.command_id
		WHERE e.org = ? AND e.seq > ?`+conds+` ORDER BY e.seq LIMIT ?`, args...)
	if err != nil {
		return page, wrap(err)
	}
	defer rows.Close()
	row := newEventRow()
	row.dest = append(row.dest, &page.Next.Seq)
	for rows.Next() {
		ev, err := row.scan(rows)
		if err != nil {
			return page, wrap(err)
		}
		page.Events = append(page.Events, ev)
	}
	if err := rows.Err(); err != nil {
		return page, wrap(err)
	}
	return page, nil
}
