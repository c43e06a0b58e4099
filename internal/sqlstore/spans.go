package sqlstore

import (
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/gatehouse/gatehouse"
)

// Span is the time a server job's events occupy, by occurredAt: every
// event of the job occurred in [From, To). Server job ids have no index
// (one cost a third of the events table's insert rate), but a server
// lives hours: a q found in a job id reads that span of the log through
// its time index, and only it.
//
// The stores keep spans in whole hours (SpanGrain), so that a live
// server's events widen its span once an hour, not with every batch. A
// span may be wider than its events (a batch that failed, events erased
// or expired): it then costs a search a few more events read, never a
// missed one.
type Span struct {
	From, To time.Time
}

// SpanGrain is what a span is widened to: its ends fall on whole hours.
const SpanGrain = time.Hour

// Covers reports whether s holds every instant of o.
func (s Span) Covers(o Span) bool {
	return !o.From.Before(s.From) && !o.To.After(s.To)
}

// Union is the least span that holds s and o.
func (s Span) Union(o Span) Span {
	if o.From.Before(s.From) {
		s.From = o.From
	}
	if o.To.After(s.To) {
		s.To = o.To
	}
	return s
}

// SpanOf is the span of one instant: the whole hour it falls in.
func SpanOf(at time.Time) Span {
	from := at.Truncate(SpanGrain)
	return Span{From: from, To: from.Add(SpanGrain)}
}

// JobSpan is the span of one server job id.
type JobSpan struct {
	Job string
	Span
}

// JobSpans returns the span of each server job id among events, in the
// batch alone, sorted by job id: every transaction writes spans in this
// one order, so that two writing the same jobs never wait for each other
// in a cycle.
func JobSpans(events []gatehouse.NewEvent) []JobSpan {
	var spans []JobSpan
	at := map[string]int{}
	for _, ev := range events {
		if ev.ServerJobID == nil || *ev.ServerJobID == "" {
			continue
		}
		s := SpanOf(ev.OccurredAt)
		if i, ok := at[*ev.ServerJobID]; ok {
			spans[i].Span = spans[i].Union(s)
			continue
		}
		at[*ev.ServerJobID] = len(spans)
		spans = append(spans, JobSpan{*ev.ServerJobID, s})
	}
	slices.SortFunc(spans, func(a, b JobSpan) int { return strings.Compare(a.Job, b.Job) })
	return spans
}

// SpanCache remembers the spans this instance knows to be stored, so that
// ingest writes a job's span only when a batch's events fall outside it:
// a live server's span grows once an hour, and each of its batches
// otherwise costs a map lookup. Its memory is bounded in size and age as
// TermCache's (see generations): retention deletes spans, of which other
// instances know nothing. Safe for concurrent use; the zero value is
// ready.
type SpanCache struct {
	mu    sync.Mutex
	spans generations[orgJob, Span]
}

type orgJob struct {
	org int64
	job string
}

// Wider returns those of spans that the cache does not know to be
// stored whole, in their order.
func (c *SpanCache) Wider(org int64, spans []JobSpan) []JobSpan {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.spans.age()
	var wider []JobSpan
	for _, s := range spans {
		if known, ok := c.spans.get(orgJob{org, s.Job}); !ok || !known.Covers(s.Span) {
			wider = append(wider, s)
		}
	}
	return wider
}

// Add records spans that a committed transaction stored: the store's
// span is at least their union with what the cache knew.
func (c *SpanCache) Add(org int64, spans []JobSpan) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, s := range spans {
		k := orgJob{org, s.Job}
		if known, ok := c.spans.get(k); ok {
			s.Span = s.Union(known)
		}
		c.spans.put(k, s.Span)
	}
}

// Forget drops the span of a job this instance deleted (retention).
func (c *SpanCache) Forget(org int64, job string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.spans.forget(orgJob{org, job})
}
