package postgres

import (
	"context"
	"errors"
	"strconv"
	"time"

	"github.com/gatehouse/gatehouse"
	"github.com/gatehouse/gatehouse/internal/sqlstore"
	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
)

// ReadFeed implements gatehouse.Store: events in (xid, seq) order, only
// those of transactions older than every one still running
// (migration 0012, docs/decisions.md "Feed positions"), in the
// organization's positions (horizon).
func (db *DB) ReadFeed(ctx context.Context, orgID uuid.UUID, f gatehouse.EventFilter, after gatehouse.FeedPosition) (_ gatehouse.FeedPage, err error) {
	defer sqlstore.Label(&err, "Store.ReadFeed", orgID)
	page := gatehouse.FeedPage{Events: []gatehouse.Event{}, Next: after}
	org, err := db.orgSeq(ctx, db.pool, orgID)
	unknown := errors.Is(err, gatehouse.ErrNotFound)
	if err != nil && !unknown {
		return page, err
	}
	// The oldest transaction first, the feed's snapshot second: a
	// transaction running at the snapshot was running already (and bounds
	// completeThrough) or began since, on events received since. Every
	// database of the cluster: a transaction of another one holds the
	// feed back too (its id is below ours), and so the events committed
	// behind it.
	var (
		oldest time.Time
		next   *string // NULL for an unknown organization
	)
	if err := db.pool.QueryRow(ctx, `SELECT least(now(), min(xact_start)), `+nextPosition("$1")+`::text
		FROM pg_stat_activity WHERE pid <> pg_backend_pid()`, org).Scan(&oldest, &next); err != nil {
		return page, wrap(err)
	}
	page.CompleteThrough = oldest.Add(-gatehouse.FeedMargin).UTC()
	if unknown {
		return page, nil
	}
	q, where, err := feedAfter(org, after, *next, f)
	if err != nil {
		return page, err
	}
	rows, err := db.pool.Query(ctx, feedPage(q, where, f.Limit), q.args...)
	if err != nil {
		return page, wrap(err)
	}
	var (
		xid string
		seq int64
	)
	keyed, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (keyedEvent, error) {
		ev, err := scanEventAnd(row, &xid, &seq)
		if err != nil {
			return ev, err
		}
		txn, err := strconv.ParseUint(xid, 10, 64)
		page.Positions = append(page.Positions, gatehouse.FeedPosition{Txn: txn, Seq: seq})
		return ev, err
	})
	if err != nil {
		return page, wrap(err)
	}
	if page.Events, err = db.placeEvents(ctx, db.pool, org, keyed); err != nil {
		return page, err
	}
	if n := len(page.Positions); n > 0 {
		page.Next = page.Positions[n-1]
	}
	return page, nil
}

// feedPage is the statement of a page of at most limit events, those of
// the conditions where (feedAfter, with q its arguments) below the
// horizon, in the feed's order.
func feedPage(q *query, where string, limit int) string {
	return `SELECT ` + eventColumns + `, e.xid::text, e.seq FROM events e
		LEFT JOIN users u ON u.id = e.requested_by
		LEFT JOIN commands c ON c.org = e.org AND c.id = e.command_id
		WHERE ` + where + ` AND e.xid < ` + horizon("$1") + `
		ORDER BY ` + feedOrder("e.", "") + ` LIMIT ` + q.arg(limit)
}

// FeedCursorCeiling implements gatehouse.Store (migration 0019): the
// organization's own when it was moved here with the cursors its source
// handed out (migration 0031), the database's otherwise.
func (db *DB) FeedCursorCeiling(ctx context.Context, orgID uuid.UUID) (_ gatehouse.FeedPosition, err error) {
	defer sqlstore.Label(&err, "Store.FeedCursorCeiling", orgID)
	var xid string
	if err := db.pool.QueryRow(ctx, `SELECT coalesce(o.cursor_ceiling, c.xid)::text
		FROM feed_cursor_ceiling c LEFT JOIN organizations o ON o.id = $1`, orgID).Scan(&xid); err != nil {
		return gatehouse.FeedPosition{}, wrap(err)
	}
	txn, err := strconv.ParseUint(xid, 10, 64)
	return gatehouse.FeedPosition{Txn: txn}, err
}

// CountFeed implements gatehouse.Store: the events after (xid, seq),
// those of transactions still running included (they are on their way).
func (db *DB) CountFeed(ctx context.Context, orgID uuid.UUID, f gatehouse.EventFilter, after gatehouse.FeedPosition) (_ int64, err error) {
	defer sqlstore.Label(&err, "Store.CountFeed", orgID)
	org, err := db.orgSeq(ctx, db.pool, orgID)
	if errors.Is(err, gatehouse.ErrNotFound) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	var next string
	if err := db.pool.QueryRow(ctx, `SELECT `+nextPosition("$1")+`::text`, org).Scan(&next); err != nil {
		return 0, wrap(err)
	}
	q, where, err := feedAfter(org, after, next, f)
	if err != nil {
		return 0, err
	}
	var n int64
	err = db.pool.QueryRow(ctx, `SELECT count(*) FROM events e WHERE `+where, q.args...).Scan(&n)
	return n, wrap(err)
}

// feedAfter checks a feed position of the organization org against
// next, past every position its transactions wrote (nextPosition), and
// returns the conditions, with their arguments, of its events after the
// position that f keeps. A position past every transaction id handed out
// so far was not made here: the database was restored from a dump, which
// keeps the rows' ids while the new cluster counts from lower ones.
// Following it would return nothing until the counter caught up.
func feedAfter(org int64, after gatehouse.FeedPosition, next string, f gatehouse.EventFilter) (*query, string, error) {
	if n, err := strconv.ParseUint(next, 10, 64); err == nil && after.Txn >= n {
		return nil, "", gatehouse.Invalid("after", "is past every transaction of this database (restored from a dump?): read from the feed's start, or from a cursor it gave since")
	}
	q := &query{args: []any{org, strconv.FormatUint(after.Txn, 10), after.Seq}}
	where := "e.org = $1 AND " + pastPosition("e.", "$2::text::xid8", "$3::bigint")
	conds, _ := filterConditions(f, q.arg)
	for _, c := range conds {
		where += " AND " + c
	}
	return q, where, nil
}

// feedOrder is the feed's order, (xid, seq), of the events aliased a
// ("e." or ""), in direction dir ("" or " DESC"), spelled as the feed's
// index keys it (migration 0035): (org, xid, seq >> 5), one entry for
// each run of 32 consecutive seq of a transaction (B-tree deduplication),
// where (xid, seq) took an entry an event. A page reads the index in
// (xid, seq >> 5) order and sorts each run by seq (an incremental sort),
// reading at most a run's events past the page at either end.
func feedOrder(a, dir string) string {
	return a + "xid" + dir + ", " + a + "seq >> 5" + dir + ", " + a + "seq" + dir
}

// pastPosition is the condition that an event aliased a is past the
// position (txn, seq), an xid8 and a bigint expression, in the terms of
// feedOrder, which the feed's index bounds.
func pastPosition(a, txn, seq string) string {
	return "(" + feedOrder(a, "") + ") > (" + txn + ", " + seq + " >> 5, " + seq + ")"
}

// The transaction part of the positions of an organization's rows (events,
// command changes, lockdown changes: migration 0012) is this database's
// transaction id plus the organization's xid_shift (migration 0031): 0
// unless the organization was moved here from another primary, whose
// positions it keeps, and whose transaction ids may be past this one's.
// Every position written for an organization, and every bound its reads
// stop at, is shifted alike, so that a cursor from before a move reads on
// after it, nothing lost or repeated.
//
// Each fragment below is a scalar subquery on the organization whose
// seq is the statement's parameter org ("$1"). It names no column of the
// statement's rows, so PostgreSQL runs it once per statement (an
// initplan), not once per row, and a bound compares with the feed's
// index as a constant would. It is NULL for an unknown organization.

// positionNow is the transaction part of the positions this transaction
// writes for the organization org.
func positionNow(org string) string {
	return shiftedXid("pg_current_xact_id()", org)
}

// horizon is the feed's horizon for the organization org: below it, no
// transaction still running can commit one of its rows (migration 0012).
func horizon(org string) string {
	return shiftedXid("pg_snapshot_xmin(pg_current_snapshot())", org)
}

// nextPosition is past every position of the organization org that a
// transaction of this database has written (the snapshot's next
// transaction id, shifted).
func nextPosition(org string) string {
	return shiftedXid("pg_snapshot_xmax(pg_current_snapshot())", org)
}

// shiftedXid is xid, an xid8 of this database, shifted for the
// organization org. xid8 has no arithmetic: the sum is made in bigint.
func shiftedXid(xid, org string) string {
	return `(SELECT (` + xid + `::text::bigint + o.xid_shift)::text::xid8 FROM organizations o WHERE o.seq = ` + org + `)`
}
