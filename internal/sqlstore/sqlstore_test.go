package sqlstore_test

import (
	"context"
	"errors"
	"fmt"
	"go/parser"
	"go/token"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/gatehouse/gatehouse"
	"github.com/gatehouse/gatehouse/internal/sqlstore"
	"github.com/google/uuid"
)

func TestTrimPage(t *testing.T) {
	rows, last := sqlstore.TrimPage([]int{1, 2, 3}, 2)
	if !slices.Equal(rows, []int{1, 2}) || last == nil || *last != 2 {
		t.Errorf("a row beyond the page: %v, %v; want [1 2] and the last kept, 2", rows, last)
	}
	rows, last = sqlstore.TrimPage([]int{1, 2}, 2)
	if !slices.Equal(rows, []int{1, 2}) || last != nil {
		t.Errorf("no row beyond the page: %v, %v; want [1 2] and no next page", rows, last)
	}
}

func TestMigrationsAreNumberedOnce(t *testing.T) {
	fsys := fstest.MapFS{
		"m/0002_b.sql": {Data: []byte("B")},
		"m/0001_a.sql": {Data: []byte("A")},
	}
	ms, err := sqlstore.Migrations(fsys, "m/*.sql")
	if err != nil || len(ms) != 2 || ms[0].Version != 1 || ms[0].SQL != "A" || ms[1].Version != 2 {
		t.Fatalf("Migrations: %+v, %v; want 0001 then 0002", ms, err)
	}
	fsys["m/0002_c.sql"] = &fstest.MapFile{Data: []byte("C")}
	if _, err := sqlstore.Migrations(fsys, "m/*.sql"); err == nil || !strings.Contains(err.Error(), "share the number 2") {
		t.Errorf("two files numbered 2: %v, want an error", err)
	}
	if _, err := sqlstore.Migrations(fstest.MapFS{"m/init.sql": {}}, "m/*.sql"); err == nil {
		t.Error("a file without a number: no error")
	}
}

func TestMigrateStopsAtTheFirstFailure(t *testing.T) {
	ms := []sqlstore.Migration{{Version: 1, Name: "m/0001_a.sql"}, {Version: 2, Name: "m/0002_b.sql"}, {Version: 3, Name: "m/0003_c.sql"}}
	var ran []int
	err := sqlstore.Migrate(context.Background(), ms, func(_ context.Context, m sqlstore.Migration) error {
		ran = append(ran, m.Version)
		if m.Version == 2 {
			return errors.New("syntax error")
		}
		return nil
	})
	if err == nil || err.Error() != "migration m/0002_b.sql: syntax error" || !slices.Equal(ran, []int{1, 2}) {
		t.Errorf("Migrate: %v after %v; want the second's error, named, and no third", err, ran)
	}
}

func TestOrgCacheLooksUpOnce(t *testing.T) {
	var c sqlstore.OrgCache
	id, lookups := uuid.New(), 0
	for range 2 {
		seq, err := c.Seq(id, errNoRows, func() (int64, error) { lookups++; return 7, nil })
		if err != nil || seq != 7 {
			t.Fatalf("Seq: %d, %v; want 7", seq, err)
		}
	}
	if lookups != 1 {
		t.Errorf("%d lookups, want 1: the key is remembered", lookups)
	}
	_, err := c.Seq(uuid.New(), errNoRows, func() (int64, error) { return 0, fmt.Errorf("scan: %w", errNoRows) })
	if !errors.Is(err, gatehouse.ErrNotFound) {
		t.Errorf("no such row: %v, want ErrNotFound", err)
	}
}

var errNoRows = errors.New("no rows")

func TestCheckReferencesNamesEveryBadEvent(t *testing.T) {
	ap, other, user := uuid.New(), uuid.New(), uuid.New()
	events := []gatehouse.NewEvent{{AccessPointID: ap}, {AccessPointID: other}, {AccessPointID: ap, RequestedBy: &user}}
	aps, users := sqlstore.References(events)
	if len(aps) != 2 || len(users) != 1 {
		t.Errorf("References: %v, %v; want each id once", aps, users)
	}
	err := sqlstore.CheckReferences(events, map[uuid.UUID]sqlstore.Place{ap: {}}, map[uuid.UUID]bool{})
	var v *gatehouse.ValidationError
	if !errors.As(err, &v) || !errors.Is(err, gatehouse.ErrInvalid) {
		t.Fatalf("CheckReferences: %v, want a ValidationError", err)
	}
	for _, field := range []string{"events[1].accessPointId", "events[2].requestedBy"} {
		if len(v.Issues[field]) != 1 {
			t.Errorf("%s not reported: %v", field, err)
		}
	}
	if len(v.Issues) != 2 {
		t.Errorf("issues %v, want exactly those two", v.Issues)
	}
}

// steps records what SearchEvents asks of a store: Terms answers with
// terms terms, and each scan with the matches it was given for its budget.
type steps struct {
	terms   int
	job     bool        // the first term is a server job id's
	within  int         // candidates in its span; -1: it has none
	matches map[int]int // budget → matches found in it
	limit   int
	bound   *gatehouse.EventKey
	log     []string
}

func (s *steps) Terms(_ context.Context, max int) ([]sqlstore.Term, error) {
	s.log = append(s.log, "terms")
	terms := make([]sqlstore.Term, min(s.terms, max+1))
	if s.job {
		terms[0].Field = sqlstore.TermServerJob
	}
	return terms, nil
}

func (s *steps) Spans(_ context.Context, jobs []string) (map[string]sqlstore.Span, error) {
	s.log = append(s.log, fmt.Sprint("spans ", len(jobs)))
	if s.within < 0 {
		return nil, nil
	}
	return map[string]sqlstore.Span{jobs[0]: {}}, nil
}

func (s *steps) Within(_ context.Context, _ sqlstore.Span, max int) (int, error) {
	s.log = append(s.log, fmt.Sprint("within ", max))
	return min(s.within, max+1), nil
}

func (s *steps) Keys(_ context.Context, terms []sqlstore.Term, spans map[string]sqlstore.Span) (gatehouse.EventPage, error) {
	if s.job {
		s.log = append(s.log, fmt.Sprint("keys ", len(terms), " spans ", len(spans)))
	} else {
		s.log = append(s.log, fmt.Sprint("keys ", len(terms)))
	}
	return gatehouse.EventPage{}, nil
}

func (s *steps) Scan(_ context.Context, budget int) (gatehouse.EventPage, bool, error) {
	s.log = append(s.log, fmt.Sprint("scan ", budget))
	page := gatehouse.EventPage{Events: make([]gatehouse.Event, min(s.matches[budget], s.limit))}
	if s.matches[budget] > s.limit {
		page.Next = &gatehouse.EventKey{}
	}
	return page, false, nil
}

func (s *steps) Bound(_ context.Context, budget int) (*gatehouse.EventKey, error) {
	s.log = append(s.log, fmt.Sprint("bound ", budget))
	return s.bound, nil
}

func TestSearchEventsSteps(t *testing.T) {
	budgets := gatehouse.SearchBudgets{First: 100, Max: 1000, Terms: 50}
	bound := &gatehouse.EventKey{OccurredAt: time.Unix(1, 0)}
	for _, tc := range []struct {
		name    string
		q       string
		terms   int
		job     bool
		within  int
		matches map[int]int
		want    string
		partial bool
	}{
		{"in no term: nothing, at once", "acme", 0, false, 0, nil, "terms", false},
		{"an id prefix in no term", "0193", 0, false, 0, nil, "terms, keys 0", false},
		{"one term: its events", "acme", 1, false, 0, nil, "terms, keys 1", false},
		{"a few terms: a scan as long as their pages, then their events", "acme", 3, false, 0, nil, "terms, scan 44, keys 3", false},
		{"a few terms, common: the scan fills the page", "acme", 3, false, 0, map[int]int{44: 11}, "terms, scan 44", false},
		{"more terms than the scan: the scan first", "acme", 9, false, 0, map[int]int{100: 11}, "terms, scan 100", false},
		{"the scan short: the terms' events", "acme", 9, false, 0, map[int]int{100: 2}, "terms, scan 100, keys 9", false},
		{"too many terms: read to Max, then stop", "ac", 80, false, 0, map[int]int{100: 1}, "terms, scan 100, scan 1000, bound 1000", true},
		{"too many terms, full within Max", "ac", 80, false, 0, map[int]int{1000: 11}, "terms, scan 100, scan 1000", false},
		{"a server job id: its span's events", "9b2f", 1, true, 30, nil, "terms, spans 1, within 1000, keys 1 spans 1", false},
		{"a server job id and another term", "9b2f", 2, true, 30, nil, "terms, spans 1, within 1000, scan 33, keys 2 spans 1", false},
		{"a server job id without a span: on no event", "9b2f", 1, true, -1, nil, "terms, spans 1, keys 1 spans 0", false},
		{"a server job id whose span holds more than Max: read to Max", "9b2f", 1, true, 5000, map[int]int{100: 1},
			"terms, spans 1, within 1000, scan 100, scan 1000, bound 1000", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := &steps{terms: tc.terms, job: tc.job, within: tc.within, matches: tc.matches, limit: 10, bound: bound}
			page, err := sqlstore.SearchEvents(context.Background(), gatehouse.EventFilter{Q: tc.q, Limit: 10}, budgets, s)
			if got := strings.Join(s.log, ", "); err != nil || got != tc.want {
				t.Errorf("steps %q, %v; want %q", got, err, tc.want)
			}
			if page.Partial != tc.partial {
				t.Errorf("Partial %v, want %v", page.Partial, tc.partial)
			}
		})
	}
}

func TestTermCache(t *testing.T) {
	var c sqlstore.TermCache
	a := sqlstore.Term{Field: sqlstore.TermReason, Value: "A"}
	b := sqlstore.Term{Field: sqlstore.TermPlatformUser, Value: "b"}
	missing := c.Missing(1, []sqlstore.Term{a, b, a})
	if want := []sqlstore.Term{b, a}; !slices.Equal(missing, want) {
		t.Errorf("Missing = %v, want each once in field order %v", missing, want)
	}
	c.Add(1, missing)
	if m := c.Missing(1, []sqlstore.Term{a, b}); len(m) != 0 {
		t.Errorf("after Add, Missing = %v", m)
	}
	if m := c.Missing(2, []sqlstore.Term{a}); len(m) != 1 {
		t.Errorf("another organization's term is not known: Missing = %v", m)
	}
	c.Forget(1, b)
	if m := c.Missing(1, []sqlstore.Term{a, b}); !slices.Equal(m, []sqlstore.Term{b}) {
		t.Errorf("after Forget(b), Missing = %v, want b", m)
	}
}

// A term deleted by another instance is written again within the cache's
// age: the cache trusts what it holds for five minutes at most.
func TestTermCacheAges(t *testing.T) {
	var c sqlstore.TermCache
	now := time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC)
	c.SetClockForTest(func() time.Time { return now })
	a := sqlstore.Term{Field: sqlstore.TermPlatformUser, Value: "a"}
	c.Add(1, c.Missing(1, []sqlstore.Term{a}))
	now = now.Add(4 * time.Minute)
	if m := c.Missing(1, []sqlstore.Term{a}); len(m) != 0 {
		t.Errorf("after 4 minutes, Missing = %v", m)
	}
	now = now.Add(2 * time.Minute)
	if m := c.Missing(1, []sqlstore.Term{a}); len(m) != 1 {
		t.Errorf("after 6 minutes, Missing = %v, want the term again", m)
	}
}

func TestSpanCache(t *testing.T) {
	var c sqlstore.SpanCache
	at := time.Date(2026, 11, 26, 12, 30, 0, 0, time.UTC)
	ev := func(job string, at time.Time) gatehouse.NewEvent {
		return gatehouse.NewEvent{ServerJobID: &job, OccurredAt: at}
	}
	spans := sqlstore.JobSpans([]gatehouse.NewEvent{ev("b", at), ev("a", at.Add(2*time.Hour)), ev("a", at), {OccurredAt: at}})
	hour := func(h int) time.Time { return time.Date(2026, 11, 26, h, 0, 0, 0, time.UTC) }
	want := []sqlstore.JobSpan{{Job: "a", Span: sqlstore.Span{From: hour(12), To: hour(15)}}, {Job: "b", Span: sqlstore.Span{From: hour(12), To: hour(13)}}}
	if !slices.Equal(spans, want) {
		t.Errorf("JobSpans = %v, want whole hours by job %v", spans, want)
	}
	if w := c.Wider(1, spans); !slices.Equal(w, spans) {
		t.Errorf("an empty cache: Wider = %v", w)
	}
	c.Add(1, spans)
	// Events within the known spans write nothing; one an hour later widens.
	later := sqlstore.JobSpans([]gatehouse.NewEvent{ev("a", at.Add(time.Hour)), ev("b", at.Add(time.Hour))})
	if w := c.Wider(1, later); len(w) != 1 || w[0].Job != "b" {
		t.Errorf("Wider = %v, want b's hour alone", w)
	}
	if w := c.Wider(2, later); len(w) != 2 {
		t.Errorf("another organization's spans are not known: Wider = %v", w)
	}
	c.Add(1, c.Wider(1, later))
	if w := c.Wider(1, sqlstore.JobSpans([]gatehouse.NewEvent{ev("b", at)})); len(w) != 0 {
		t.Errorf("b's first hour is forgotten once its span widened: %v", w)
	}
	c.Forget(1, "a")
	if w := c.Wider(1, later); len(w) != 1 || w[0].Job != "a" {
		t.Errorf("after Forget(a), Wider = %v, want a", w)
	}
}

// The shared code must stay free of any driver, so that neither store
// links the other's.
func TestImportsNoDriver(t *testing.T) {
	fset := token.NewFileSet()
	files, _ := filepath.Glob("*.go")
	for _, name := range files {
		f, err := parser.ParseFile(fset, name, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range f.Imports {
			path := strings.Trim(imp.Path.Value, `"`)
			if strings.Contains(path, "sqlite") || strings.Contains(path, "pgx") || strings.HasPrefix(path, "database/sql") ||
				strings.Contains(path, "internal/postgres") {
				t.Errorf("%s imports %s", name, path)
			}
		}
	}
}

func TestCheckApplied(t *testing.T) {
	ms := []sqlstore.Migration{{Version: 1, Name: "m/0001_a.sql"}, {Version: 2, Name: "m/0002_b.sql"}}
	if err := sqlstore.CheckApplied(ms, []int{2, 1}); err != nil {
		t.Errorf("every migration applied: %v", err)
	}
	for _, applied := range [][]int{nil, {1}} {
		if err := sqlstore.CheckApplied(ms, applied); !errors.Is(err, sqlstore.ErrNotMigrated) {
			t.Errorf("applied %v: %v, want ErrNotMigrated", applied, err)
		}
	}
}
