package sqlite

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/gatehouse/gatehouse"
	"github.com/gatehouse/gatehouse/internal/sqlstore"
	"github.com/google/uuid"
	sqlitedrv "modernc.org/sqlite"
)

const eventColumns = `e.id, e.type, e.occurred_at, e.received_at, e.allowed, e.reason, e.platform_user_id,
	e.server_job_id, e.scope, e.location_id, e.location_name, e.access_point_id, e.access_point_name,
	u.id, u.email, u.name,
	c.id, c.scope, c.status, c.server_job_id, c.platform_user_id, c.issued_at`

// qScanBudget is how many events, in keyset order, a search for q reads
// before it turns to the trigram index. A term on at least one event in
// qScanBudget/(limit+1) fills its page within the budget, and the scan
// stops as soon as it does; rarer terms are cheaper through the index,
// whose cost grows with the number of matches, not of events.
const qScanBudget = 2000

// qScanMax bounds the second, longer scan for terms that matched in the
// first budget but too rarely to fill the page: such terms (a frequent
// platform user id, say) are made of the log's commonest trigrams, whose
// posting lists cost more to walk than reading on in keyset order.
const qScanMax = 50_000

// ListEvents returns a page of an organization's events matching f.
func (db *DB) ListEvents(ctx context.Context, orgID uuid.UUID, f gatehouse.EventFilter) (gatehouse.EventPage, error) {
	org, err := db.orgSeq(ctx, db.read, orgID)
	if errors.Is(err, gatehouse.ErrNotFound) {
		return gatehouse.EventPage{Events: []gatehouse.Event{}}, nil
	}
	if err != nil {
		return gatehouse.EventPage{}, err
	}
	if f.Q == "" {
		return db.queryEvents(ctx, f, eventQuery(org, f, queryPlan{q: qScan}))
	}
	return sqlstore.SearchEvents(ctx, f, db.search, &eventSearch{db: db, org: org, f: f})
}

// eventSearch runs the steps of a search for q (see sqlstore.SearchEvents).
type eventSearch struct {
	db  *DB
	org int64
	f   gatehouse.EventFilter

	// The last bound looked up, which Bound returns again for the same
	// budget rather than look it up twice.
	looked bool
	budget int
	bound  *gatehouse.EventKey
}

// Scan finds the budget's last candidate on an index alone, then matches
// q on the candidates up to it: when there is no such candidate, the scan
// covers every candidate and the page is the whole answer.
func (s *eventSearch) Scan(ctx context.Context, budget int) (gatehouse.EventPage, bool, error) {
	bound, err := s.Bound(ctx, budget)
	if err != nil {
		return gatehouse.EventPage{}, false, err
	}
	page, err := s.db.queryEvents(ctx, s.f, eventQuery(s.org, s.f, queryPlan{q: qScan, notBefore: bound}))
	return page, bound == nil, err
}

// Bound returns the key of the budget-th candidate, or nil when there are fewer.
func (s *eventSearch) Bound(ctx context.Context, budget int) (*gatehouse.EventKey, error) {
	if s.looked && s.budget == budget {
		return s.bound, nil
	}
	var (
		last gatehouse.EventKey
		at   int64
	)
	q := eventQuery(s.org, s.f, queryPlan{q: qIgnore, keysOnly: true, offset: budget - 1})
	err := s.db.read.QueryRowContext(ctx, q.sql, q.args...).Scan(&at, &last.ID)
	if errors.Is(err, sql.ErrNoRows) {
		s.looked, s.budget, s.bound = true, budget, nil
		return nil, nil
	}
	if err != nil {
		return nil, wrap(err)
	}
	last.OccurredAt = fromMillis(at)
	s.looked, s.budget, s.bound = true, budget, &last
	return &last, nil
}

// Index matches q through the trigram index.
func (s *eventSearch) Index(ctx context.Context) (gatehouse.EventPage, error) {
	return s.db.queryEvents(ctx, s.f, eventQuery(s.org, s.f, queryPlan{q: qIndex}))
}

// queryPlan says how eventQuery matches q and what it returns.
type queryPlan struct {
	q         int                 // qIgnore, qScan or qIndex
	keysOnly  bool                // select (occurred_at, id) only
	count     int64               // > 0: count matches in buckets of this many ms, from f.From
	offset    int                 // rows to skip
	notBefore *gatehouse.EventKey // stop the scan at this position (inclusive)
}

// How q is matched.
const (
	qIgnore = iota // not at all
	qScan          // row by row in keyset order, with the reference function
	qIndex         // through the trigram index
)

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
	defer rows.Close()
	row := newEventRow()
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
	return sqlstore.EventPage(page.Events, f.Limit), nil
}

// eventQuery builds the page query: the organization first, then every
// filter, then the keyset position, in the event order, one row more than
// the page so the caller knows whether another page follows.
func eventQuery(org int64, f gatehouse.EventFilter, plan queryPlan) builtQuery {
	var b strings.Builder
	args := []any{org}
	where := func(cond string, a ...any) {
		b.WriteString(" AND ")
		b.WriteString(cond)
		args = append(args, a...)
	}
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
	if f.ID != nil {
		where("e.id = ?", f.ID[:])
	}
	if f.AccessPointID != nil {
		where("e.access_point_id = ?", f.AccessPointID[:])
	}
	if f.LocationID != nil {
		where("e.location_id = ?", f.LocationID[:])
	}
	switch len(f.Types) {
	case 0:
	case 1:
		where("e.type = ?", string(f.Types[0]))
	default:
		// Several types are most of the log: walking the time index and
		// skipping beats merging several type ranges and sorting, so the
		// unary + keeps the planner off events_by_type.
		where("+e.type IN (?"+strings.Repeat(", ?", len(f.Types)-1)+")", typeArgs(f.Types)...)
	}
	if f.Allowed != nil {
		where("e.allowed = ?", string(*f.Allowed))
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
		switch plan.q {
		case qIndex:
			where("e.seq IN (SELECT rowid FROM events_search WHERE events_search MATCH ?)", ftsPhrase(f.Q))
		case qScan:
			where(`gatehouse_match(?, e.id, e.platform_user_id, e.access_point_name, e.location_name,
				e.reason, e.server_job_id)`, f.Q)
		}
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
	if plan.notBefore != nil {
		where("(e.occurred_at, e.id) >= (?, ?)", millis(plan.notBefore.OccurredAt), plan.notBefore.ID[:])
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

func typeArgs(types []gatehouse.EventType) []any {
	a := make([]any, len(types))
	for i, t := range types {
		a[i] = string(t)
	}
	return a
}

// ftsPhrase quotes q, case-folded, as one FTS5 phrase: with the trigram
// tokenizer over the folded search text it matches q as a substring by
// gatehouse.FoldCase's rule, every character literal. The tokenizer is
// case-sensitive because its own folding differs from that rule (it keeps
// İ apart from i).
func ftsPhrase(q string) string {
	return `"` + strings.ReplaceAll(gatehouse.FoldCase(q), `"`, `""`) + `"`
}

func init() {
	// gatehouse_search_text(id, user, access point, location, reason, job)
	// is the folded text the search index holds, for the migration that
	// rebuilds it.
	sqlitedrv.MustRegisterDeterministicScalarFunction("gatehouse_search_text", 6,
		func(_ *sqlitedrv.FunctionContext, args []driver.Value) (driver.Value, error) {
			var id uuid.UUID
			if b, ok := args[0].([]byte); ok {
				copy(id[:], b)
			}
			ap, _ := args[2].(string)
			loc, _ := args[3].(string)
			return gatehouse.FoldCase(gatehouse.SearchText(id, optArg(args[1]), ap, loc, optArg(args[4]), optArg(args[5]))), nil
		})
	// gatehouse_match(q, id, user, access point, location, reason, job) is
	// the reference substring match, for terms too short for trigrams.
	sqlitedrv.MustRegisterDeterministicScalarFunction("gatehouse_match", 7,
		func(_ *sqlitedrv.FunctionContext, args []driver.Value) (driver.Value, error) {
			q, _ := args[0].(string)
			var id uuid.UUID
			if b, ok := args[1].([]byte); ok {
				copy(id[:], b)
			}
			ap, _ := args[3].(string)
			loc, _ := args[4].(string)
			text := gatehouse.SearchText(id, optArg(args[2]), ap, loc, optArg(args[5]), optArg(args[6]))
			if gatehouse.MatchesQ(text, q) {
				return int64(1), nil
			}
			return int64(0), nil
		})
}

// optArg reads a nullable text argument of an SQL function.
func optArg(v driver.Value) *string {
	if s, ok := v.(string); ok {
		return &s
	}
	return nil
}

// eventRow holds the scan destinations of one event row. One per query,
// reused for every row: handing Scan fresh variables would move some
// twenty of them to the heap per event.
type eventRow struct {
	ev                                   gatehouse.Event
	occurred, received                   int64
	allowed, scope                       sql.NullString
	reason, user, job                    sql.NullString
	reqID                                uuid.NullUUID
	reqEmail, reqName                    sql.NullString
	cmdID                                uuid.NullUUID
	cmdScope, cmdStatus, cmdJob, cmdUser sql.NullString
	cmdIssued                            sql.NullInt64
	dest                                 []any
}

func newEventRow() *eventRow {
	r := &eventRow{}
	r.dest = []any{&r.ev.ID, &r.ev.Type, &r.occurred, &r.received, &r.allowed, &r.reason, &r.user, &r.job, &r.scope,
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
func (db *DB) CountEvents(ctx context.Context, orgID uuid.UUID, f gatehouse.EventFilter, step time.Duration) ([]gatehouse.EventCount, error) {
	counts := gatehouse.NewEventCounts(*f.From, *f.To, step)
	org, err := db.orgSeq(ctx, db.read, orgID)
	if errors.Is(err, gatehouse.ErrNotFound) {
		return counts, nil
	}
	if err != nil {
		return nil, err
	}
	plan := queryPlan{q: qIndex, count: step.Milliseconds()}
	if utf8.RuneCountInString(f.Q) < 3 {
		plan.q = qScan // too short for trigrams
	}
	f.After = nil
	q := eventQuery(org, f, plan)
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
