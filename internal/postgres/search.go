package postgres

import (
	"bytes"
	"context"
	"errors"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/gatehouse/gatehouse"
	"github.com/gatehouse/gatehouse/internal/sqlstore"
	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
)

// qScanBudget is how many events, in keyset order, a search for q reads
// before it reads term by term (see gatehouse.SearchBudgets): common
// terms fill their page within it.
const qScanBudget = 5000

// qScanMax bounds the longer scan of a q found in more than qMaxTerms
// terms, which has no cheaper way: 10,000 events in keyset order take
// about 20 ms.
const qScanMax = 100_000

// qMaxTerms is the most terms whose events a search reads term by term,
// a page's worth through an index each.
const qMaxTerms = 200

// SetSearchBudgets changes when a search for q changes strategy; see
// gatehouse.SearchBudgets. Call it before serving.
func (db *DB) SetSearchBudgets(b gatehouse.SearchBudgets) { db.search = b }

// qPrefixKeys is the most events of an id prefix that Keys looks up
// through the index of ids; a prefix of more is read in keyset order.
const qPrefixKeys = 5000

// qPlanSettings are the settings of a search's transaction beside generic
// plans. A generic plan cannot know the values it serves, and guessed
// wrong where a walk of an index in keyset order was right: it took a
// LIMIT placeholder for a tenth of the rows, and joined a page of keys
// back to its events by hashing every event (0.7 s); and it took an
// organization's share of each month for an average one's, so that a
// frequent player's page, expected to be 2 events a month, sorted all
// 6,952 (3 ms) instead of reading the months newest first until the page
// was full (0.2 ms). Every statement of a search on events reads an
// index in keyset order and stops at its limit; none needs to sort more
// than the pages of its branches, which nothing else can order. So sorts
// are planned only where nothing else orders (enable_sort off), and JIT
// is off, which the cost of a sort so penalised would start (1.4 s of
// compiling for a 1 ms query).
const qPlanSettings = "; SET LOCAL enable_sort = off; SET LOCAL jit = off"

// eventSearch runs the steps of a search for q (see sqlstore.SearchEvents)
// on q, a connection in withGenericPlans with qPlanSettings: the
// statements on events are planned once per connection, for every value,
// and pruned to their months as they run, instead of planning every
// month's partition and indexes at each request (docs/performance.md,
// "Partitioned events"). An id prefix, whose width a generic plan cannot
// know (a narrow one is best found through the index of ids, a wide one
// in keyset order), is looked up through the index of ids on its own
// first (prefixKeys). The statements on the terms go by the simple
// protocol, planned for their values, as they were before.
type eventSearch struct {
	db  *DB
	q   querier
	org int64
	f   gatehouse.EventFilter
}

// Scan matches q on the first budget candidates in one query; it cannot
// tell whether they ran out.
func (s eventSearch) Scan(ctx context.Context, budget int) (gatehouse.EventPage, bool, error) {
	page, err := s.db.queryEvents(ctx, s.q, s.f, s.org, budget)
	return page, false, err
}

// Bound returns the key of the budget-th candidate, or nil when there are
// fewer. The filter indexes end with the time (0032_narrow_event_indexes),
// so its time is found on an index, and its id among the candidates of
// that instant alone: the candidate is the one that many places down
// them, by id descending, that the candidates after the instant leave.
func (s eventSearch) Bound(ctx context.Context, budget int) (*gatehouse.EventKey, error) {
	where, args := s.candidates()
	var bound gatehouse.EventKey
	err := s.q.QueryRow(ctx, `SELECT e.occurred_at FROM events e WHERE `+where+
		` ORDER BY e.occurred_at DESC OFFSET `+strconv.Itoa(budget-1)+` LIMIT 1`, args...).Scan(&bound.OccurredAt)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, wrap(err)
	}
	at := "$" + strconv.Itoa(len(args)+1)
	err = s.q.QueryRow(ctx, `SELECT e.id FROM events e WHERE `+where+` AND e.occurred_at = `+at+
		` ORDER BY e.id DESC OFFSET `+strconv.Itoa(budget-1)+` - (SELECT count(*) FROM events e WHERE `+where+
		` AND e.occurred_at > `+at+`) LIMIT 1`, append(args, bound.OccurredAt)...).Scan(&bound.ID)
	if err != nil {
		return nil, wrap(err)
	}
	bound.OccurredAt = bound.OccurredAt.UTC()
	return &bound, nil
}

// Terms returns up to max+1 of the organization's terms containing q,
// through the trigram index of search_terms (for q of three characters or
// more; shorter ones read the organization's terms).
func (s eventSearch) Terms(ctx context.Context, max int) ([]sqlstore.Term, error) {
	rows, _ := s.q.Query(ctx, `SELECT field, ref, value FROM search_terms
		WHERE org = $1 AND folded LIKE $2 ESCAPE '\' LIMIT $3`, pgx.QueryExecModeSimpleProtocol, s.org, qPattern(s.f.Q), max+1)
	var t sqlstore.Term
	terms, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (sqlstore.Term, error) {
		err := row.Scan(&t.Field, &t.Ref, &t.Value)
		return t, err
	})
	return terms, wrap(err)
}

// Keys reads a page of events per term, and of ids starting with q,
// through the index of each field (one lateral subquery per field, run for
// each of its terms), and merges them into the first page.
func (s eventSearch) Keys(ctx context.Context, terms []sqlstore.Term, _ map[string]sqlstore.Span) (gatehouse.EventPage, error) {
	query, args, err := s.keysQuery(ctx, terms)
	if err != nil || query == "" { // no event shows the prefix
		return gatehouse.EventPage{Events: []gatehouse.Event{}}, err
	}
	return s.db.collectEvents(ctx, s.q, s.org, s.f, query, args)
}

// keysQuery is Keys' query of terms and its arguments; "" when nothing
// can match.
func (s eventSearch) keysQuery(ctx context.Context, terms []sqlstore.Term) (string, []any, error) {
	args := []any{s.org}
	arg := func(v any) string {
		args = append(args, v)
		return "$" + strconv.Itoa(len(args))
	}
	others := s.f
	others.Q = ""
	limit := arg(s.f.Limit + 1)
	filter := "" // the other filters, placed by the first branch that reads events
	page := func(match string) string {
		if filter == "" {
			conds, _ := filterConditions(others, arg)
			filter = strings.Join(append([]string{"e.org = $1"}, conds...), " AND ")
		}
		return `SELECT e.occurred_at, e.id FROM events e WHERE ` + filter + ` AND ` + match +
			` ORDER BY e.occurred_at DESC, e.id DESC LIMIT ` + limit
	}
	var branches []string
	for _, field := range termFields {
		var refs []uuid.UUID
		var values []string
		for _, t := range terms {
			if t.Field == field.field {
				refs, values = append(refs, t.Ref), append(values, t.Value)
			}
		}
		if len(values) == 0 {
			continue
		}
		from := "unnest(" + arg(refs) + "::uuid[], " + arg(values) + "::text[]) k (ref, v)"
		branches = append(branches, `(SELECT h.* FROM `+from+` CROSS JOIN LATERAL (`+page(field.match("k.ref", "k.v"))+`) h)`)
	}
	if lo, hi, ok := gatehouse.IDPrefix(s.f.Q); ok {
		switch keys, complete, err := s.prefixKeys(ctx, lo, hi); {
		case err != nil:
			return "", nil, err
		case !complete: // a wide prefix: read in keyset order, as a term is
			branches = append(branches, "("+page(idPrefixCondition(s.f.Q, arg))+")")
		case len(keys) > 0:
			ats, ids := make([]time.Time, len(keys)), make([]uuid.UUID, len(keys))
			for i, k := range keys {
				ats[i], ids[i] = k.OccurredAt, k.ID
			}
			branches = append(branches, "(SELECT * FROM unnest("+arg(ats)+"::timestamptz[], "+arg(ids)+"::uuid[]) p (occurred_at, id))")
		}
	}
	if len(branches) == 0 {
		return "", nil, nil
	}
	query := `SELECT ` + eventColumns + ` FROM (SELECT * FROM (` + strings.Join(branches, " UNION ") + `) u
		ORDER BY occurred_at DESC, id DESC LIMIT ` + limit + `) h
		CROSS JOIN LATERAL (SELECT * FROM events e WHERE e.org = $1 AND e.id = h.id AND e.occurred_at = h.occurred_at) e
		LEFT JOIN users u ON u.id = e.requested_by
		LEFT JOIN commands c ON c.org = e.org AND c.id = e.command_id
		ORDER BY e.occurred_at DESC, e.id DESC`
	return query, args, nil
}

// prefixKeys returns the keys of the first page, in keyset order, of the
// organization's events that match every other filter and whose id is
// from lo (inclusive) to hi (exclusive; nil for no end). It reads them
// through the index of ids, the filters checked on each, unless more
// than qPrefixKeys (DB.prefixKeys when a test sets it) have such an id:
// then complete is false, and the prefix is read in keyset order.
func (s eventSearch) prefixKeys(ctx context.Context, lo uuid.UUID, hi *uuid.UUID) (keys []gatehouse.EventKey, complete bool, err error) {
	args := []any{s.org}
	arg := func(v any) string {
		args = append(args, v)
		return "$" + strconv.Itoa(len(args))
	}
	others := s.f
	others.Q = ""
	conds, _ := filterConditions(others, arg)
	keep := "true"
	if len(conds) > 0 {
		keep = "(" + strings.Join(conds, " AND ") + ") IS TRUE"
	}
	max := qPrefixKeys
	if s.db.prefixKeys > 0 {
		max = s.db.prefixKeys
	}
	query := `SELECT e.occurred_at, e.id, ` + keep + ` FROM events e WHERE e.org = $1 AND ` + idRange(lo, hi, arg) +
		` LIMIT ` + strconv.Itoa(max+1)
	rows, _ := s.q.Query(ctx, query, args...)
	var (
		k     gatehouse.EventKey
		match bool
		n     int
	)
	_, err = pgx.ForEachRow(rows, []any{&k.OccurredAt, &k.ID, &match}, func() error {
		if n++; match {
			keys = append(keys, gatehouse.EventKey{OccurredAt: k.OccurredAt.UTC(), ID: k.ID})
		}
		return nil
	})
	if err != nil {
		return nil, false, wrap(err)
	}
	slices.SortFunc(keys, func(a, b gatehouse.EventKey) int {
		if c := b.OccurredAt.Compare(a.OccurredAt); c != 0 {
			return c
		}
		return bytes.Compare(b.ID[:], a.ID[:])
	})
	return keys[:min(len(keys), s.f.Limit+1)], n <= max, nil
}

// candidates returns the condition that an event matches every filter of
// the search but q (the organization is $1), and its arguments.
func (s eventSearch) candidates() (where string, args []any) {
	args, f := []any{s.org}, s.f
	f.Q = ""
	conds, _ := filterConditions(f, func(v any) string {
		args = append(args, v)
		return "$" + strconv.Itoa(len(args))
	})
	return strings.Join(append([]string{"e.org = $1"}, conds...), " AND "), args
}

// termField is how the events of a field's terms are found.
type termField struct {
	field sqlstore.TermField
	// column is the event column of the field: the term's value as it is,
	// or, with a kind, the key of the value of that kind in event_values.
	// A door's or location's term (with a name) is found by its ref's key
	// in column, and by the key of a pair of names (kind 'n', e.names)
	// whose name (value or value2) is the term's.
	column string
	kind   valueKind
	name   string
}

var termFields = []termField{
	{field: sqlstore.TermPlatformUser, column: "e.platform_user_id"},
	{field: sqlstore.TermAccessPoint, column: "e.access_point", kind: kindAccessPoint, name: "value"},
	{field: sqlstore.TermLocation, column: "e.location", kind: kindLocation, name: "value2"},
	{field: sqlstore.TermReason, column: "e.reason"},
	{field: sqlstore.TermServerJob, column: "e.server_job_id", kind: kindServerJob},
}

// match is the condition that an event shows the term whose ref (a uuid)
// and value are the expressions given.
func (tf termField) match(ref, value string) string {
	switch {
	case tf.kind == 0:
		return tf.column + " = " + value
	case tf.name == "":
		return tf.column + " = " + valueKey(tf.kind, value)
	}
	return tf.column + " = " + valueKey(tf.kind, ref+"::text") + " AND e.names IN (SELECT n.key FROM event_values n WHERE n.org = $1 AND n.kind = " +
		kindNames.literal() + " AND n." + tf.name + " = " + value + ")"
}

// qPattern is the LIKE pattern of a term containing q.
func qPattern(q string) string { return "%" + escapeLike(gatehouse.FoldCase(q)) + "%" }

// qCondition is the condition that an event matches q: it shows one of
// the organization's terms containing q, or its id starts with q. The
// terms are looked up once per query (a hashed subplan per field), so
// scanning events costs a hash probe per field. The organization is $1.
func qCondition(q string, arg func(any) string) string {
	pattern := arg(qPattern(q))
	var conds []string
	for _, tf := range termFields {
		terms := " FROM search_terms t"
		cols, sel := tf.column, "t.value"
		switch {
		case tf.kind == 0:
		case tf.name == "": // the key of the term's value
			sel = "v.key"
			terms += " JOIN event_values v ON v.org = t.org AND v.kind = " + tf.kind.literal() + " AND v.value = t.value AND v.value2 = ''"
		default: // the keys of the term's ref and of the pairs holding its name
			cols, sel = "("+tf.column+", e.names)", "a.key, n.key"
			terms += " JOIN event_values a ON a.org = t.org AND a.kind = " + tf.kind.literal() + " AND a.value = t.ref::text AND a.value2 = ''" +
				" JOIN event_values n ON n.org = t.org AND n.kind = " + kindNames.literal() + " AND n." + tf.name + " = t.value"
		}
		conds = append(conds, cols+" IN (SELECT "+sel+terms+" WHERE t.org = $1 AND t.field = "+
			strconv.Itoa(int(tf.field))+" AND t.folded LIKE "+pattern+` ESCAPE '\')`)
	}
	if prefix := idPrefixCondition(q, arg); prefix != "" {
		conds = append(conds, prefix)
	}
	return "(" + strings.Join(conds, " OR ") + ")"
}

// idPrefixCondition is the condition that an event's id starts with q, or
// "" when q is no id prefix (gatehouse.IDPrefix).
func idPrefixCondition(q string, arg func(any) string) string {
	lo, hi, ok := gatehouse.IDPrefix(q)
	if !ok {
		return ""
	}
	return idRange(lo, hi, arg)
}

// idRange is the condition that an event's id is from lo (inclusive) to
// hi (exclusive; nil for no end).
func idRange(lo uuid.UUID, hi *uuid.UUID, arg func(any) string) string {
	if hi == nil {
		return "e.id >= " + arg(lo)
	}
	return "e.id >= " + arg(lo) + " AND e.id < " + arg(*hi)
}

// escapeLike makes %, _ and \ literal in a LIKE pattern.
func escapeLike(s string) string {
	return strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`).Replace(s)
}
