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
// before it reads term by term (see gatehouse.SearchBudgets). A term on
// at least one event in qScanBudget/(limit+1) fills its page within the
// budget, and the scan stops as soon as it does.
const qScanBudget = 2000

// qScanMax bounds the longer scan of a q found in more than qMaxTerms
// terms, which has no cheaper way.
const qScanMax = 50_000

// qMaxTerms is the most terms whose events a search reads term by term, a
// page's worth through an index each; it keeps the compound query well
// under SQLite's 500 terms.
const qMaxTerms = 200

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
		return db.queryEvents(ctx, f, eventQuery(org, f, queryPlan{}))
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
	page, err := s.db.queryEvents(ctx, s.f, eventQuery(s.org, s.f, queryPlan{notBefore: bound}))
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
	candidates := s.f
	candidates.Q = ""
	q := eventQuery(s.org, candidates, queryPlan{keysOnly: true, offset: budget - 1})
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

// Terms returns up to max+1 of the organization's terms containing q.
func (s *eventSearch) Terms(ctx context.Context, max int) ([]sqlstore.Term, error) {
	match, arg := termMatch(s.f.Q)
	rows, err := s.db.read.QueryContext(ctx, `SELECT field, ref, value FROM search_terms t WHERE t.org = ? AND `+match+` LIMIT ?`,
		s.org, arg, max+1)
	if err != nil {
		return nil, wrap(err)
	}
	defer rows.Close()
	var terms []sqlstore.Term
	for rows.Next() {
		var t sqlstore.Term
		if err := rows.Scan(&t.Field, &t.Ref, &t.Value); err != nil {
			return nil, wrap(err)
		}
		terms = append(terms, t)
	}
	return terms, wrap(rows.Err())
}

// Keys reads a page of events per term, and of ids starting with q,
// through the index of each field (a compound of limited subqueries), and
// merges them into the first page: the keys are ordered and cut to a page
// before any event is read whole.
func (s *eventSearch) Keys(ctx context.Context, terms []sqlstore.Term) (gatehouse.EventPage, error) {
	others := s.f
	others.Q = ""
	conds, condArgs := filterConditions(s.org, others)
	var (
		branches []string
		args     []any
	)
	page := func(match string, matchArgs ...any) {
		branches = append(branches, `SELECT * FROM (SELECT e.seq, e.occurred_at, e.id FROM events e WHERE e.org = ?`+conds+
			` AND `+match+` ORDER BY e.occurred_at DESC, e.id DESC LIMIT ?)`)
		args = append(append(append(append(args, s.org), condArgs...), matchArgs...), s.f.Limit+1)
	}
	for _, t := range terms {
		tf := termFields[t.Field]
		if tf.ref == "" {
			page(tf.value+" = ?", t.Value)
		} else {
			page(tf.ref+" = ? AND "+tf.value+" = ?", t.Ref[:], t.Value)
		}
	}
	if prefix, prefixArgs := idPrefixCondition(s.f.Q); prefix != "" {
		page(prefix, prefixArgs...)
	}
	query := `SELECT ` + eventColumns + ` FROM (SELECT seq FROM (` + strings.Join(branches, " UNION ") + `)
			ORDER BY occurred_at DESC, id DESC LIMIT ?) k
		JOIN events e ON e.seq = k.seq
		LEFT JOIN users u ON u.id = e.requested_by
		LEFT JOIN commands c ON c.org = e.org AND c.id = e.command_id
		ORDER BY e.occurred_at DESC, e.id DESC`
	return s.db.queryEvents(ctx, s.f, builtQuery{query, append(args, s.f.Limit+1)})
}

// termField is how the events of a field's terms are found: the event
// columns a term's ref and value must equal.
type termField struct {
	ref, value string // ref empty when the field has none
}

var termFields = map[sqlstore.TermField]termField{
	sqlstore.TermPlatformUser: {"", "e.platform_user_id"},
	sqlstore.TermAccessPoint:  {"e.access_point_id", "e.access_point_name"},
	sqlstore.TermLocation:     {"e.location_id", "e.location_name"},
	sqlstore.TermReason:       {"", "e.reason"},
	sqlstore.TermServerJob:    {"", "e.server_job_id"},
}

// termMatch is the condition that a term (alias t) contains q: through the
// trigram index for three characters or more, which it needs, by reading
// the organization's terms otherwise.
func termMatch(q string) (string, any) {
	if utf8.RuneCountInString(q) >= 3 {
		return "t.rowid IN (SELECT rowid FROM search_terms_text WHERE search_terms_text MATCH ?)", ftsPhrase(q)
	}
	return "instr(t.folded, ?) > 0", gatehouse.FoldCase(q)
}

// qCondition is the condition that an event matches q: it shows one of
// the organization's terms containing q, or its id starts with q. Each
// field's terms are looked up once per query, into a temporary index.
func qCondition(org int64, q string) (string, []any) {
	match, arg := termMatch(q)
	var (
		conds []string
		args  []any
	)
	for field := sqlstore.TermPlatformUser; field <= sqlstore.TermServerJob; field++ {
		tf := termFields[field]
		cols, sel := tf.value, "value"
		if tf.ref != "" {
			cols, sel = "("+tf.ref+", "+tf.value+")", "ref, value"
		}
		conds = append(conds, cols+" IN (SELECT "+sel+" FROM search_terms t WHERE t.org = ? AND t.field = ? AND "+match+")")
		args = append(args, org, int(field), arg)
	}
	if prefix, prefixArgs := idPrefixCondition(q); prefix != "" {
		conds, args = append(conds, prefix), append(args, prefixArgs...)
	}
	return "(" + strings.Join(conds, " OR ") + ")", args
}

// idPrefixCondition is the condition that an event's id starts with q, or
// "" when q is no id prefix (gatehouse.IDPrefix).
func idPrefixCondition(q string) (string, []any) {
	lo, hi, ok := gatehouse.IDPrefix(q)
	switch {
	case !ok:
		return "", nil
	case hi == nil:
		return "e.id >= ?", []any{lo[:]}
	}
	return "e.id >= ? AND e.id < ?", []any{lo[:], hi[:]}
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

// ftsPhrase quotes q, case-folded, as one FTS5 phrase: with the trigram
// tokenizer over folded search terms it matches q as a substring by
// gatehouse.FoldCase's rule, every character literal. The tokenizer is
// case-sensitive because its own folding differs from that rule (it keeps
// İ apart from i).
func ftsPhrase(q string) string {
	return `"` + strings.ReplaceAll(gatehouse.FoldCase(q), `"`, `""`) + `"`
}

func init() {
	// gatehouse_search_text(id, user, access point, location, reason, job)
	// is the folded text the former search index of events held, for
	// migration 0004, which rebuilt it (0011 dropped it).
	sqlitedrv.MustRegisterDeterministicScalarFunction("gatehouse_search_text", 6,
		func(_ *sqlitedrv.FunctionContext, args []driver.Value) (driver.Value, error) {
			var id uuid.UUID
			if b, ok := args[0].([]byte); ok {
				copy(id[:], b)
			}
			ap, _ := args[2].(string)
			loc, _ := args[3].(string)
			return gatehouse.FoldCase(id.String() + "\x1f" + gatehouse.SearchText(optArg(args[1]), ap, loc, optArg(args[4]), optArg(args[5]))), nil
		})
	// gatehouse_fold(text) is gatehouse.FoldCase, for the migration that
	// writes the search terms of the events stored before it.
	sqlitedrv.MustRegisterDeterministicScalarFunction("gatehouse_fold", 1,
		func(_ *sqlitedrv.FunctionContext, args []driver.Value) (driver.Value, error) {
			s, _ := args[0].(string)
			return gatehouse.FoldCase(s), nil
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
