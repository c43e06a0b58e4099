package sqlstore

import (
	"context"
	"unicode/utf8"

	"github.com/gatehouse/gatehouse"
)

// EventSearch is one store's way of running the steps of a search for q
// on one filter; SearchEvents decides which steps run.
type EventSearch interface {
	// Scan matches q on the first budget candidates (the events matching
	// every other filter) in keyset order and returns the first page of
	// matches. exhausted reports that the candidates were fewer than
	// budget, so that the page is the whole answer; a store that cannot
	// tell cheaply returns false.
	Scan(ctx context.Context, budget int) (page gatehouse.EventPage, exhausted bool, err error)
	// Bound returns the key of the budget-th candidate in keyset order,
	// or nil when there are fewer candidates.
	Bound(ctx context.Context, budget int) (*gatehouse.EventKey, error)
	// Index matches q through the store's trigram index.
	Index(ctx context.Context) (gatehouse.EventPage, error)
}

// SearchEvents answers a filter with q (f.Q set) within the budgets b
// (see gatehouse.SearchBudgets). It scans the first b.First candidates:
// a full page there holds the first matches in order. A q of one or two
// characters has no trigram, so no index: it reads on to b.Max
// candidates and stops there, so that a rare or absent short term costs
// what a common one does instead of a scan of the whole log; a page still
// not full ends at the last candidate read, Partial. A longer q that
// matched n times in the first budget reads on for about the budget that
// fills the page at that density, if that is within b.Max, and otherwise
// turns to the index, whose cost follows the number of matches rather
// than of events.
//
// Errors: those of s.
func SearchEvents(ctx context.Context, f gatehouse.EventFilter, b gatehouse.SearchBudgets, s EventSearch) (gatehouse.EventPage, error) {
	page, exhausted, err := s.Scan(ctx, b.First)
	if err != nil || exhausted || page.Next != nil {
		return page, err
	}
	if utf8.RuneCountInString(f.Q) < 3 {
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
	if n := len(page.Events); n > 0 {
		if budget := 2 * b.First * (f.Limit + 1) / n; budget <= b.Max {
			if page, exhausted, err = s.Scan(ctx, budget); err != nil || exhausted || page.Next != nil {
				return page, err
			}
		}
	}
	return s.Index(ctx)
}
