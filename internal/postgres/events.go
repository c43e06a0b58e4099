package postgres

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"time"

	"github.com/gatehouse/gatehouse"
	"github.com/gatehouse/gatehouse/internal/sqlstore"
	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// eventColumns are the columns of an event (scanEventAnd): the codes
// decoded, the keys of its place and server job to map (placeEvents).
const eventColumns = `e.id, event_type_name(e.type), e.occurred_at, e.received_at, event_allowed(e.type), e.reason, e.platform_user_id,
	e.platform_user_name, e.server_job_id, event_scope_name(e.scope), e.access_point, e.location, e.names,
	u.id, u.email, u.name,
	c.id, c.scope, c.status, c.server_job_id, c.platform_user_id, c.issued_at`

// qCountWorkMem is the work_mem of a count of events: enough to hash the
// matching terms and group a long range without spilling to disk.
const qCountWorkMem = "64MB"

// ListEvents returns a page of an organization's events matching f.
func (db *DB) ListEvents(ctx context.Context, orgID uuid.UUID, f gatehouse.EventFilter) (_ gatehouse.EventPage, err error) {
	defer sqlstore.Label(&err, "Store.ListEvents", orgID)
	org, err := db.orgSeq(ctx, db.pool, orgID)
	if errors.Is(err, gatehouse.ErrNotFound) {
		return gatehouse.EventPage{Events: []gatehouse.Event{}}, nil
	}
	if err != nil {
		return gatehouse.EventPage{}, err
	}
	var page gatehouse.EventPage
	settings := ""
	if f.Q != "" {
		settings = qPlanSettings
	}
	err = withGenericPlans(ctx, db.replica, settings, func(q querier) (err error) {
		if f.Q != "" {
			page, err = sqlstore.SearchEvents(ctx, f, db.search, eventSearch{db: db, q: q, org: org, f: f})
		} else {
			page, err = db.queryEvents(ctx, q, f, org, 0)
		}
		return err
	})
	return page, err
}

// withGenericPlans runs fn on a connection of pool in a read-only
// transaction whose statements are planned once per connection, for
// every value (plan_cache_mode force_generic_plan), and pruned to their
// months as they run. A page of events planned for its values plans every
// month's partition and indexes each time (5–7 ms p50 at 25 months on
// the 2 M bench, 1.0 ms generic: docs/performance.md, "Partitioned
// events"); its plan is the same for every value, an ordered walk of the
// months' indexes. Searches (q) run here too, with settings of their own
// (qPlanSettings; settings are more SET LOCAL statements, each after
// "; "), and an id prefix, whose width a generic plan cannot know, is
// looked up on its own first (see eventSearch).
func withGenericPlans(ctx context.Context, pool *pgxpool.Pool, settings string, fn func(querier) error) error {
	conn, err := pool.Acquire(ctx)
	if err != nil {
		return wrap(err)
	}
	defer conn.Release() // a connection left in a transaction is closed, not pooled
	if _, err := conn.Exec(ctx, "BEGIN READ ONLY; SET LOCAL plan_cache_mode = force_generic_plan"+settings); err != nil {
		return wrap(err)
	}
	err = fn(conn)
	end := "COMMIT"
	if err != nil {
		end = "ROLLBACK"
	}
	if _, endErr := conn.Exec(context.WithoutCancel(ctx), end); err == nil {
		err = wrap(endErr)
	}
	return err
}

func (db *DB) queryEvents(ctx context.Context, q querier, f gatehouse.EventFilter, org int64, scanBudget int) (gatehouse.EventPage, error) {
	query, args := eventQuery(org, f, scanBudget)
	return db.collectEvents(ctx, q, org, f, query, args)
}

// collectEvents runs a query of eventColumns, one row more than f's page.
func (db *DB) collectEvents(ctx context.Context, q querier, org int64, f gatehouse.EventFilter, query string, args []any) (gatehouse.EventPage, error) {
	page := gatehouse.EventPage{Events: []gatehouse.Event{}}
	rows, err := q.Query(ctx, query, args...)
	if err != nil {
		return page, wrap(err)
	}
	keyed, err := pgx.CollectRows(rows, scanEvent)
	if err != nil {
		return page, wrap(err)
	}
	events, err := db.placeEvents(ctx, q, org, keyed)
	if err != nil {
		return page, err
	}
	return sqlstore.EventPage(events, f.Limit), nil
}

// eventQuery builds the page query: the organization first, then every
// filter, then the keyset position, in the event order, one row more than
// the page so the caller knows whether another follows. With a scan
// budget, q is matched on the first budget events in order.
func eventQuery(org int64, f gatehouse.EventFilter, scanBudget int) (string, []any) {
	var b strings.Builder
	if scanBudget > 0 {
		b.WriteString(`SELECT ` + eventColumns + ` FROM (SELECT * FROM events e WHERE e.org = $1`)
	} else {
		b.WriteString(`SELECT ` + eventColumns + ` FROM events e
		LEFT JOIN users u ON u.id = e.requested_by
		LEFT JOIN commands c ON c.org = e.org AND c.id = e.command_id
		WHERE e.org = $1`)
	}
	args := []any{org}
	arg := func(v any) string {
		args = append(args, v)
		return "$" + strconv.Itoa(len(args))
	}
	conds, match := filterConditions(f, arg)
	for _, c := range conds {
		b.WriteString(" AND " + c)
	}
	if match != "" && scanBudget == 0 {
		b.WriteString(" AND " + match)
	}
	if scanBudget > 0 {
		b.WriteString(` ORDER BY e.occurred_at DESC, e.id DESC LIMIT ` + arg(scanBudget) + `) e
		LEFT JOIN users u ON u.id = e.requested_by
		LEFT JOIN commands c ON c.org = e.org AND c.id = e.command_id
		WHERE ` + match)
	}
	b.WriteString(" ORDER BY e.occurred_at DESC, e.id DESC LIMIT " + arg(f.Limit+1))
	return b.String(), args
}

// filterConditions writes f's conditions (but the organization's) with
// arg making placeholders, in the order of the indexes; match is the q
// condition, which the caller places, since a scan applies it outside.
func filterConditions(f gatehouse.EventFilter, arg func(any) string) (conds []string, match string) {
	where := func(cond string) { conds = append(conds, cond) }
	if f.ID != nil {
		where("e.id = " + arg(*f.ID))
	}
	if f.AccessPointID != nil {
		where("e.access_point = " + valueKey(kindAccessPoint, arg(f.AccessPointID.String())))
	}
	if f.LocationID != nil {
		where("e.location = " + valueKey(kindLocation, arg(f.LocationID.String())))
	}
	if locations, narrow := sqlstore.EventsWithin(f); narrow {
		where(withinCondition(locations, arg))
	}
	switch len(f.Types) {
	case 0:
	case 1:
		where(typeCondition(f.Types[0]))
	default:
		types := make([]string, len(f.Types))
		for i, t := range f.Types {
			types[i] = string(t)
		}
		// Several types are most of the log: keep the planner on the time
		// index (the expression hides the column from events_by_type).
		where("event_type_name(e.type) = ANY(" + arg(types) + "::text[])")
	}
	if f.Allowed != nil {
		where(typeCondition(f.Allowed.Type())) // allowed follows from type
	}
	if f.PlatformUserID != nil {
		where("e.platform_user_id = " + arg(*f.PlatformUserID))
	}
	if f.Reason != nil {
		where("e.reason = " + arg(*f.Reason))
	}
	if f.Scope != nil {
		where("e.scope = event_scope_code(" + arg(string(*f.Scope)) + ")")
	}
	if f.Q != "" {
		match = qCondition(f.Q, arg)
	}
	if f.From != nil {
		where("e.occurred_at >= " + arg(*f.From))
	}
	if f.To != nil {
		where("e.occurred_at < " + arg(*f.To))
	}
	if f.After != nil {
		where("(e.occurred_at, e.id) < (" + arg(f.After.OccurredAt) + ", " + arg(f.After.ID) + ")")
	}
	return conds, match
}

// rollupConditions are the conditions of the filters a rollup keeps
// (sqlstore.RollupFilter) on its columns, which hold the events' ids and
// texts, not their keys and codes.
func rollupConditions(f gatehouse.EventFilter, arg func(any) string) []string {
	var conds []string
	if f.AccessPointID != nil {
		conds = append(conds, "e.access_point_id = "+arg(*f.AccessPointID))
	}
	if f.LocationID != nil {
		conds = append(conds, "e.location_id = "+arg(*f.LocationID))
	}
	if locations, narrow := sqlstore.EventsWithin(f); narrow {
		cond := "false" // an empty reach keeps nothing
		if len(locations) > 0 {
			cond = "e.location_id = ANY(" + arg(locations) + "::uuid[])"
		}
		conds = append(conds, cond)
	}
	if len(f.Types) > 0 {
		types := make([]string, len(f.Types))
		for i, t := range f.Types {
			types[i] = string(t)
		}
		conds = append(conds, "e.type = ANY("+arg(types)+"::text[])")
	}
	if f.Allowed != nil {
		conds = append(conds, "e.type = "+arg(string(f.Allowed.Type()))) // allowed follows from type
	}
	if f.Reason != nil {
		conds = append(conds, "e.reason = "+arg(*f.Reason))
	}
	if f.Scope != nil {
		conds = append(conds, "e.scope = "+arg(string(*f.Scope)))
	}
	return conds
}

// typeCodes are the codes of the types in events.type (event_type_code).
var typeCodes = map[gatehouse.EventType]byte{
	gatehouse.EventAccessGranted: 'g',
	gatehouse.EventAccessDenied:  'd',
	gatehouse.EventRemoteUnlock:  'u',
}

// typeCondition is the condition that an event is of type t, its code a
// literal: a type other than ACCESS_GRANTED is read from events_by_type,
// whose predicate the condition must imply. event_type_code of a
// placeholder, a CASE on it once inlined, would leave a generic plan on
// the time index, filtering every event (TestEventPagesReadTheirIndexInOrder).
func typeCondition(t gatehouse.EventType) string {
	code, ok := typeCodes[t]
	if !ok {
		return "false"
	}
	if t == gatehouse.EventAccessGranted {
		return "e.type = 'g'"
	}
	return "e.type = '" + string(rune(code)) + "' AND e.type <> 'g'"
}

// valueKey is the key of the organization's ($1) value of kind whose
// value is the placeholder ph: NULL, which no event has, when the
// organization has none.
func valueKey(kind valueKind, ph string) string {
	return "(SELECT v.key FROM event_values v WHERE v.org = $1 AND v.kind = " + kind.literal() + " AND v.value = " + ph + " AND v.value2 = '')"
}

// valueKeys is the array of the keys of the organization's ($1) values
// of kind whose value is among the placeholder ph (a text[]): those the
// organization has, an empty array when none.
func valueKeys(kind valueKind, ph string) string {
	return "ARRAY(SELECT v.key FROM event_values v WHERE v.org = $1 AND v.kind = " + kind.literal() + " AND v.value = ANY(" + ph + "::text[]) AND v.value2 = '')"
}

// withinCondition is the condition that an event is at one of locations
// (a reach, sqlstore.EventsWithin). One location is read as a location
// filter is, through its key, so that a page walks events_by_location in
// order; several through the array of their keys, which the statement
// computes once (an initplan) and the index takes as a condition; none
// match nothing.
func withinCondition(locations []uuid.UUID, arg func(any) string) string {
	switch len(locations) {
	case 0:
		return "false"
	case 1:
		return "e.location = " + valueKey(kindLocation, arg(locations[0].String()))
	}
	values := make([]string, len(locations))
	for i, id := range locations {
		values[i] = id.String()
	}
	return "e.location = ANY(" + valueKeys(kindLocation, arg(values)) + ")"
}

func scanEvent(row pgx.CollectableRow) (keyedEvent, error) {
	return scanEventAnd(row)
}

// scanEventAnd scans a row of eventColumns followed by the columns of
// extra.
func scanEventAnd(row pgx.CollectableRow, extra ...any) (keyedEvent, error) {
	var (
		ke                                  keyedEvent
		ev                                  = &ke.Event
		occurred, received                  time.Time
		allowed, scope                      *string
		reqID, cmdID                        *uuid.UUID
		reqEmail, reqName                   *string
		cmdScope, cmdStatus, cmdJob, cmdUsr *string
		cmdIssued                           *time.Time
	)
	err := row.Scan(append([]any{&ev.ID, &ev.Type, &occurred, &received, &allowed, &ev.Reason, &ev.PlatformUserID, &ev.PlatformUserName, &ke.job, &scope,
		&ke.place.accessPoint, &ke.place.location, &ke.place.names,
		&reqID, &reqEmail, &reqName,
		&cmdID, &cmdScope, &cmdStatus, &cmdJob, &cmdUsr, &cmdIssued}, extra...)...)
	if err != nil {
		return ke, err
	}
	ev.OccurredAt, ev.ReceivedAt = gatehouse.Time(occurred.UTC()), gatehouse.Time(received.UTC())
	if allowed != nil {
		ev.Allowed = (*gatehouse.Outcome)(allowed)
	}
	if scope != nil {
		ev.Scope = (*gatehouse.CommandScope)(scope)
	}
	if reqID != nil {
		ev.RequestedBy = &gatehouse.Requester{ID: *reqID, Email: *reqEmail, Name: *reqName}
	}
	if cmdID != nil {
		ev.Command = &gatehouse.CommandSummary{ID: *cmdID, Scope: gatehouse.CommandScope(*cmdScope),
			Status: gatehouse.CommandStatus(*cmdStatus), ServerJobID: cmdJob, PlatformUserID: cmdUsr,
			IssuedAt: gatehouse.Time(cmdIssued.UTC())}
	}
	return ke, nil
}

// CountEvents counts the organization's events matching f (whose From and
// To must be set) in buckets of step from f.From, by outcome.
func (db *DB) CountEvents(ctx context.Context, orgID uuid.UUID, f gatehouse.EventFilter, step time.Duration) (_ []gatehouse.EventCount, err error) {
	defer sqlstore.Label(&err, "Store.CountEvents", orgID)
	counts := gatehouse.NewEventCounts(*f.From, *f.To, step)
	org, err := db.orgSeq(ctx, db.pool, orgID)
	if errors.Is(err, gatehouse.ErrNotFound) {
		return counts, nil
	}
	if err != nil {
		return nil, err
	}
	f.After = nil
	args := []any{org}
	arg := func(v any) string {
		args = append(args, v)
		return "$" + strconv.Itoa(len(args))
	}
	from, width := arg(*f.From), arg(step.Seconds())
	conds, match := filterConditions(f, arg)
	if match != "" {
		conds = append(conds, match)
	}
	query := `SELECT floor(extract(epoch FROM e.occurred_at - ` + from + `) / ` + width + `)::int AS bucket, coalesce(event_allowed(e.type), ''), count(*)
		FROM events e WHERE e.org = $1`
	for _, c := range conds {
		query += " AND " + c
	}
	query += " GROUP BY 1, 2"
	var (
		bucket  int64
		allowed string
		n       int
	)
	err = pgx.BeginFunc(ctx, db.replica, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, "SET LOCAL work_mem = '"+qCountWorkMem+"'"); err != nil {
			return err
		}
		rows, _ := tx.Query(ctx, query, args...)
		_, err := pgx.ForEachRow(rows, []any{&bucket, &allowed, &n}, func() error {
			sqlstore.AddCount(counts, bucket, allowed, n)
			return nil
		})
		return err
	})
	return counts, wrap(err)
}
