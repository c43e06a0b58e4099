package sqlstore

import "github.com/gatehouse/gatehouse"

// TrimPage cuts rows, read one beyond the page as every keyset query
// does, to limit, and returns the last row kept when another page follows
// (nil when rows were the whole rest).
func TrimPage[T any](rows []T, limit int) ([]T, *T) {
	if len(rows) <= limit {
		return rows, nil
	}
	rows = rows[:limit]
	return rows, &rows[limit-1]
}

// AddCount adds n events of an outcome (allowed, "" for none) to the
// bucket-th of counts; a bucket outside them (an event at the range's very
// edge, rounded over) is not counted.
func AddCount(counts []gatehouse.EventCount, bucket int64, allowed string, n int) {
	if bucket >= 0 && bucket < int64(len(counts)) {
		counts[bucket].Add(gatehouse.Outcome(allowed), n)
	}
}

// EventPage is the page of events, read one beyond limit in keyset order:
// at most limit events (never nil), and the key of the next page when
// another follows.
func EventPage(events []gatehouse.Event, limit int) gatehouse.EventPage {
	if events == nil {
		events = []gatehouse.Event{}
	}
	page := gatehouse.EventPage{}
	var last *gatehouse.Event
	if page.Events, last = TrimPage(events, limit); last != nil {
		next := last.Key()
		page.Next = &next
	}
	return page
}
