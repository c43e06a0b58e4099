package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"strings"
	"time"

	"github.com/gatehouse/gatehouse"
	"github.com/gatehouse/gatehouse/internal/sqlstore"
	"github.com/google/uuid"
)

const eventColumns = `e.id, e.type, e.occurred_at, e.received_at, e.allowed, e.reason, e.platform_user_id,
	e.platform_user_name, e.server_job_id, e.scope, e.location_id, e.location_name, e.access_point_id, e.access_point_name,
	u.id, u.email, u.name,
	c.id, c.scope, c.status, c.server_job_id, c.platform_user_id, c.issued_at`

// ListEvents returns a page of an organization's events matching f.
func (db *DB) ListEvents(ctx context.Context, orgID uuid.UUID, f gatehouse.EventFilter) (_ gatehouse.EventPage, err error) {
	defer sqlstore.Label(&err, "Store.ListEvents", orgID)
	org, err := db.orgSeq(ctx, db.read, orgID)
	if errors.Is(err, gatehouse.ErrNotFound) {
		return gatehouse.EventPage{Events: []gatehouse.Event{}}, nil
	}
	if err != nil {
		return gatehouse.EventPage{}, err
	}
	if f.Q == "" {
		return db.queryEvents(ctx, f, eventQuery(org, f, queryPlan{}))
	}
	return sqlstore.SearchEvents(ctx, f, db.search, &eventSearch{db: db, org: org, f: f})
}

// queryPlan says what eventQuery returns.
type queryPlan struct {
	keysOnly  bool                // select (occurred_at, id) only
	count     int64               // > 0: count matches in buckets of this many ms, from f.From
	offset    int                 // rows to skip
	notBefore *gatehouse.EventKey // stop the scan at this position (inclusive)
}

type builtQuery struct {
	sql  string
	args []any
}

func (db *DB) queryEvents(ctx context.Context, f gatehouse.EventFilter, q builtQuery) (gatehouse.EventPage, error) {
	page := gatehouse.EventPage{Events: []gatehouse.Event{}}
	rows, err := db.read.QueryContext(ctx, q.sql, q.args...)
	if err != nil {
		return page, wrap(err)
	}
	if page.Events, err = scanEvents(rows, newEventRow()); err != nil {
		return page, err
	}
	return sqlstore.EventPage(page.Events, f.Limit), nil
}

// scanEvents reads every row of rows with row (eventColumns, then the
// destinations added to row.dest) and closes rows.
func scanEvents(rows *sql.Rows, row *eventRow) ([]gatehouse.Event, error) {
	defer rows.Close()
	events := []gatehouse.Event{}
	for rows.Next() {
		ev, err := row.scan(rows)
		if err != nil {
			return events, wrap(err)
		}
		events = append(events, ev)
	}
	if err := rows.Err(); err != nil {
		return events, wrap(err)
	}
	return events, nil
}

// eventQuery builds the page query: the organization first, then every
// filter, then the keyset position, in the event order, one row more than
// the page so the caller knows whether another page follows.
func eventQuery(org int64, f gatehouse.EventFilter, plan queryPlan) builtQuery {
	var b strings.Builder
	args := []any{org}
	if plan.count > 0 {
		b.WriteString(`SELECT (e.occurred_at - ?) / ? AS bucket, e.allowed, count(*) FROM events e WHERE e.org = ?`)
		args = []any{millis(*f.From), plan.count, org}
	} else if plan.keysOnly {
		b.WriteString(`SELECT e.occurred_at, e.id FROM events e WHERE e.org = ?`)
	} else {
		b.WriteString(`SELECT ` + eventColumns + ` FROM events e
		LEFT JOIN users u ON u.id = e.requested_by
		LEFT JOIN commands c ON c.org = e.org AND c.id = e.command_id
		WHERE e.org = ?`)
	}
	conds, condArgs := filterConditions(org, f)
	b.WriteString(conds)
	args = append(args, condArgs...)
	if plan.notBefore != nil {
		b.WriteString(" AND (e.occurred_at, e.id) >= (?, ?)")
		args = append(args, millis(plan.notBefore.OccurredAt), plan.notBefore.ID[:])
	}
	if plan.count > 0 {
		b.WriteString(" GROUP BY bucket, e.allowed")
		return builtQuery{b.String(), args}
	}
	b.WriteString(" ORDER BY e.occurred_at DESC, e.id DESC")
	if plan.keysOnly {
		b.WriteString(" LIMIT 1 OFFSET ?")
		args = append(args, plan.offset)
	} else {
		b.WriteString(" LIMIT ?")
		args = append(args, f.Limit+1)
	}
	return builtQuery{b.String(), args}
}

// filterConditions writes f's conditions but the organization's, each
// after " AND ", with their arguments in order.
func filterConditions(org int64, f gatehouse.EventFilter) (string, []any) {
	var (
		b    strings.Builder
		args []any
	)
	where := func(cond string, a ...any) {
		b.WriteString(" AND ")
		b.WriteString(cond)
		args = append(args, a...)
	}
	if f.ID != nil {
		where("e.id = ?", f.ID[:])
	}
	if f.AccessPointID != nil {
		where("e.access_point_id = ?", f.AccessPointID[:])
	}
	if f.LocationID != nil {
		where("e.location_id = ?", f.LocationID[:])
	}
	if locations, narrow := sqlstore.EventsWithin(f); narrow {
		cond, locationArgs := inLocations("e.location_id", locations) // a door rollup's row names it alike
		where(cond, locationArgs...)
	}
	switch len(f.Types) {
	case 0:
	case 1:
		where(sqlstore.TypeCondition(f.Types[0], "?"), string(f.Types[0]))
	default:
		// Several types are most of the log: walking the time index and
		// skipping beats merging several type ranges and sorting, so the
		// unary + keeps the planner off events_by_type.
		where("+e.type IN (?"+strings.Repeat(", ?", len(f.Types)-1)+")", typeArgs(f.Types)...)
	}
	if f.Allowed != nil {
		t := f.Allowed.Type() // allowed follows from type
		where(sqlstore.TypeCondition(t, "?"), string(t))
	}
	if f.PlatformUserID != nil {
		where("e.platform_user_id = ?", *f.PlatformUserID)
	}
	if f.Reason != nil {
		where("e.reason = ?", *f.Reason)
	}
	if f.Scope != nil {
		where("e.scope = ?", string(*f.Scope))
	}
	if f.Q != "" {
		cond, qArgs := qCondition(org, f.Q)
		where(cond, qArgs...)
	}
	if f.From != nil {
		where("e.occurred_at >= ?", millis(*f.From))
	}
	if f.To != nil {
		where("e.occurred_at < ?", millis(*f.To))
	}
	if f.After != nil {
		where("(e.occurred_at, e.id) < (?, ?)", millis(f.After.OccurredAt), f.After.ID[:])
	}
	return b.String(), args
}

func typeArgs(types []gatehouse.EventType) []any {
	a := make([]any, len(types))
	for i, t := range types {
		a[i] = string(t)
	}
	return a
}

// eventRow holds the scan destinations of one event row. One per query,
// reused for every row: handing Scan fresh variables would move some
// twenty of them to the heap per event.
type eventRow struct {
	ev                                   gatehouse.Event
	occurred, received                   int64
	allowed, scope                       sql.NullString
	reason, user, userName, job          sql.NullString
	reqID                                uuid.NullUUID
	reqEmail, reqName                    sql.NullString
	cmdID                                uuid.NullUUID
	cmdScope, cmdStatus, cmdJob, cmdUser sql.NullString
	cmdIssued                            sql.NullInt64
	dest                                 []any
}

func newEventRow() *eventRow {
	r := &eventRow{}
	r.dest = []any{&r.ev.ID, &r.ev.Type, &r.occurred, &r.received, &r.allowed, &r.reason, &r.user, &r.userName, &r.job, &r.scope,
		&r.ev.Location.ID, &r.ev.Location.Name, &r.ev.AccessPoint.ID, &r.ev.AccessPoint.Name,
		&r.reqID, &r.reqEmail, &r.reqName,
		&r.cmdID, &r.cmdScope, &r.cmdStatus, &r.cmdJob, &r.cmdUser, &r.cmdIssued}
	return r
}

// scan reads the current row (eventColumns) as an event.
func (r *eventRow) scan(rows *sql.Rows) (gatehouse.Event, error) {
	r.ev = gatehouse.Event{}
	if err := rows.Scan(r.dest...); err != nil {
		return gatehouse.Event{}, err
	}
	ev := r.ev
	ev.OccurredAt, ev.ReceivedAt = gatehouse.Time(fromMillis(r.occurred)), gatehouse.Time(fromMillis(r.received))
	if r.allowed.Valid {
		o := gatehouse.Outcome(r.allowed.String)
		ev.Allowed = &o
	}
	if r.scope.Valid {
		s := gatehouse.CommandScope(r.scope.String)
		ev.Scope = &s
	}
	ev.Reason, ev.PlatformUserID, ev.ServerJobID = fromOptString(r.reason), fromOptString(r.user), fromOptString(r.job)
	ev.PlatformUserName = fromOptString(r.userName)
	if r.reqID.Valid {
		ev.RequestedBy = &gatehouse.Requester{ID: r.reqID.UUID, Email: r.reqEmail.String, Name: r.reqName.String}
	}
	if r.cmdID.Valid {
		ev.Command = &gatehouse.CommandSummary{
			ID:             r.cmdID.UUID,
			Scope:          gatehouse.CommandScope(r.cmdScope.String),
			Status:         gatehouse.CommandStatus(r.cmdStatus.String),
			ServerJobID:    fromOptString(r.cmdJob),
			PlatformUserID: fromOptString(r.cmdUser),
			IssuedAt:       gatehouse.Time(fromMillis(r.cmdIssued.Int64)),
		}
	}
	return ev, nil
}

// CountEvents counts the organization's events matching f (whose From and
// To must be set) in buckets of step from f.From, by outcome.
func (db *DB) CountEvents(ctx context.Context, orgID uuid.UUID, f gatehouse.EventFilter, step time.Duration) (_ []gatehouse.EventCount, err error) {
	defer sqlstore.Label(&err, "Store.CountEvents", orgID)
	counts := gatehouse.NewEventCounts(*f.From, *f.To, step)
	org, err := db.orgSeq(ctx, db.read, orgID)
	if errors.Is(err, gatehouse.ErrNotFound) {
		return counts, nil
	}
	if err != nil {
		return nil, err
	}
	f.After = nil
	q := eventQuery(org, f, queryPlan{count: step.Milliseconds()})
	rows, err := db.read.QueryContext(ctx, q.sql, q.args...)
	if err != nil {
		return nil, wrap(err)
	}
	defer rows.Close()
	for rows.Next() {
		var (
			bucket  int64
			allowed sql.NullString
			n       int
		)
		if err := rows.Scan(&bucket, &allowed, &n); err != nil {
			return nil, wrap(err)
		}
		sqlstore.AddCount(counts, bucket, allowed.String, n)
	}
	return counts, wrap(rows.Err())
}
