package sqlite

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"strings"
	"unicode/utf8"

	"github.com/gatehouse/gatehouse"
	"github.com/gatehouse/gatehouse/internal/sqlstore"
	"github.com/google/uuid"
	sqlitedrv "modernc.org/sqlite"
)

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
func (s *eventSearch) Keys(ctx context.Context, terms []sqlstore.Term, spans map[string]sqlstore.Span) (gatehouse.EventPage, error) {
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
		if t.Field == sqlstore.TermServerJob {
			// No index: the job's span, through events_by_time.
			if span, ok := spans[t.Value]; ok {
				page(tf.value+" = ? AND e.occurred_at >= ? AND e.occurred_at < ?", t.Value, millis(span.From), millis(span.To))
			}
		} else if tf.ref == "" {
			page(tf.value+" = ?", t.Value)
		} else {
			page(tf.ref+" = ? AND "+tf.value+" = ?", t.Ref[:], t.Value)
		}
	}
	if prefix, prefixArgs := idPrefixCondition(s.f.Q); prefix != "" {
		page(prefix, prefixArgs...)
	}
	if len(branches) == 0 { // job ids without a span: on no event
		return gatehouse.EventPage{Events: []gatehouse.Event{}}, nil
	}
	query := `SELECT ` + eventColumns + ` FROM (SELECT seq FROM (` + strings.Join(branches, " UNION ") + `)
			ORDER BY occurred_at DESC, id DESC LIMIT ?) k
		JOIN events e ON e.seq = k.seq
		LEFT JOIN users u ON u.id = e.requested_by
		LEFT JOIN commands c ON c.org = e.org AND c.id = e.command_id
		ORDER BY e.occurred_at DESC, e.id DESC`
	return s.db.queryEvents(ctx, s.f, builtQuery{query, append(args, s.f.Limit+1)})
}

// SQLite keeps no index of server jobs: a job's events are read within
// its span.
var _ sqlstore.SpanSearch = (*eventSearch)(nil)

// Spans returns the stored spans of jobs.
func (s *eventSearch) Spans(ctx context.Context, jobs []string) (map[string]sqlstore.Span, error) {
	spans := make(map[string]sqlstore.Span, len(jobs))
	for _, job := range jobs {
		var from, to int64
		err := s.db.read.QueryRowContext(ctx, "SELECT from_at, to_at FROM job_spans WHERE org = ? AND job = ?", s.org, job).Scan(&from, &to)
		if errors.Is(err, sql.ErrNoRows) {
			continue
		}
		if err != nil {
			return nil, wrap(err)
		}
		spans[job] = sqlstore.Span{From: fromMillis(from), To: fromMillis(to)}
	}
	return spans, nil
}

// Within counts the candidates in span, up to max+1, on an index alone
// when the filter allows.
func (s *eventSearch) Within(ctx context.Context, span sqlstore.Span, max int) (int, error) {
	candidates := s.f
	candidates.Q = ""
	conds, args := filterConditions(s.org, candidates)
	var n int
	err := s.db.read.QueryRowContext(ctx, `SELECT count(*) FROM (SELECT 1 FROM events e WHERE e.org = ?`+conds+
		` AND e.occurred_at >= ? AND e.occurred_at < ? LIMIT ?)`,
		append(append([]any{s.org}, args...), millis(span.From), millis(span.To), max+1)...).Scan(&n)
	return n, wrap(err)
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

// SetSearchBudgets changes when a search for q changes strategy; see
// gatehouse.SearchBudgets. Call it before serving.
func (db *DB) SetSearchBudgets(b gatehouse.SearchBudgets) { db.search = b }
