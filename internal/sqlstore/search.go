package sqlstore

import (
	"context"

	"github.com/gatehouse/gatehouse"
)

// EventSearch is one store's way of running the steps of a search for q
// on one filter; SearchEvents decides which steps run.
type EventSearch interface {
	// Terms returns the organization's search terms whose value contains
	// q (both folded by gatehouse.FoldCase), at most max+1 of them.
	Terms(ctx context.Context, max int) ([]Term, error)
	// Keys returns the first page of the events matching every other
	// filter that show one of terms or whose id starts with q
	// (gatehouse.IDPrefix). It reads at most a page of events per term,
	// through the index of the term's field; in a store without an index
	// of server jobs (SpanSearch), a job id reads the events of its span in
	// spans through the time index until it has a page.
	Keys(ctx context.Context, terms []Term, spans map[string]Span) (gatehouse.EventPage, error)
	// Scan matches q on the first budget candidates (the events matching
	// every other filter) in keyset order and returns the first page of
	// matches. exhausted reports that the candidates were fewer than
	// budget, so that the page is the whole answer; a store that cannot
	// tell cheaply returns false.
	Scan(ctx context.Context, budget int) (page gatehouse.EventPage, exhausted bool, err error)
	// Bound returns the key of the budget-th candidate in keyset order,
	// or nil when there are fewer candidates.
	Bound(ctx context.Context, budget int) (*gatehouse.EventKey, error)
}

// SpanSearch is the EventSearch of a store that keeps no index of server
// jobs (SQLite): a job's events are read within its span.
type SpanSearch interface {
	// Spans returns the span of each of jobs (server job ids among the
	// terms) that the store keeps; a job without one is on no event.
	Spans(ctx context.Context, jobs []string) (map[string]Span, error)
	// Within counts the candidates (the events matching every other
	// filter) that occurred in span, up to max+1.
	Within(ctx context.Context, span Span, max int) (int, error)
}

// SearchEvents answers a filter with q (f.Q set) within the budgets b
// (see gatehouse.SearchBudgets).
//
// It first looks q up among the organization's search terms. No term and
// no id prefix: nothing matches, known at once. Up to b.Terms terms: each
// one's events are read through its field's index and merged, so the
// answer costs a page per term however long the log. Several terms are
// first scanned for, over as many candidates in keyset order as reading
// every term's page would (b.First at most): a q in several terms is
// often a common one (a word of many names), which fills its page there
// reading far fewer events, and a rare one pays at most twice. Where
// server job ids have no index of their own (SQLite, SpanSearch: one cost a
// third of the events table's insert rate), a server still lives hours: a
// job id's events are read within its span (Span) through the time
// index, as long as the spans of the q's job ids hold at most b.Max
// candidates in all. More terms than
// b.Terms (a q of a character or two, or one in most values), or job ids
// whose spans hold more (a server that ran for months): the scan reads on
// to b.Max candidates and stops there, so that such a term costs what a
// common one does instead of a scan of the whole log; a page still not
// full ends at the last candidate read, Partial.
//
// Errors: those of s.
func SearchEvents(ctx context.Context, f gatehouse.EventFilter, b gatehouse.SearchBudgets, s EventSearch) (gatehouse.EventPage, error) {
	terms, err := s.Terms(ctx, b.Terms)
	if err != nil {
		return gatehouse.EventPage{}, err
	}
	if len(terms) <= b.Terms {
		spans, narrow, err := jobSpans(ctx, terms, b.Max, s)
		if err != nil {
			return gatehouse.EventPage{}, err
		}
		if narrow {
			if _, _, prefix := gatehouse.IDPrefix(f.Q); len(terms) == 0 && !prefix {
				return gatehouse.EventPage{Events: []gatehouse.Event{}}, nil
			}
			if len(terms) > 1 {
				page, exhausted, err := s.Scan(ctx, min(b.First, (len(terms)+1)*(f.Limit+1)))
				if err != nil || exhausted || page.Next != nil {
					return page, err
				}
			}
			return s.Keys(ctx, terms, spans)
		}
	}
	page, exhausted, err := s.Scan(ctx, b.First)
	if err != nil || exhausted || page.Next != nil {
		return page, err
	}
	budget := b.First
	if b.Max > budget {
		budget = b.Max
		if page, exhausted, err = s.Scan(ctx, budget); err != nil || exhausted || page.Next != nil {
			return page, err
		}
	}
	bound, err := s.Bound(ctx, budget)
	if err != nil || bound == nil {
		return page, err // fewer candidates than the budget: the page is the answer
	}
	page.Next, page.Partial = bound, true
	return page, nil
}

// jobSpans returns the spans of the server job ids among terms, and
// whether they hold at most budget candidates in all, so that reading
// them is bounded as a scan is.
func jobSpans(ctx context.Context, terms []Term, budget int, search EventSearch) (map[string]Span, bool, error) {
	s, spanned := search.(SpanSearch)
	if !spanned {
		return nil, true, nil // read through their index
	}
	var jobs []string
	for _, t := range terms {
		if t.Field == TermServerJob {
			jobs = append(jobs, t.Value)
		}
	}
	if len(jobs) == 0 {
		return nil, true, nil
	}
	spans, err := s.Spans(ctx, jobs)
	if err != nil {
		return nil, false, err
	}
	n := 0
	for _, job := range jobs {
		span, ok := spans[job]
		if !ok {
			continue
		}
		c, err := s.Within(ctx, span, budget-n)
		if err != nil {
			return nil, false, err
		}
		if n += c; n > budget {
			return nil, false, nil
		}
	}
	return spans, true, nil
}

// TypeCondition is the condition that an event (alias e) has type t, ph
// being the placeholder of t's value. For the types that the partial
// index events_by_type holds, it also states the index's predicate, a
// constant, so that the planner knows it may read that index (it cannot
// tell from a placeholder); granted attempts, most of the log, are read
// through events_by_time.
func TypeCondition(t gatehouse.EventType, ph string) string {
	if t == gatehouse.EventAccessGranted {
		return "e.type = " + ph
	}
	return "e.type = " + ph + " AND e.type <> 'ACCESS_GRANTED'"
}
