package postgres_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/gatehouse/gatehouse"
	"github.com/google/uuid"
)

// TestSearchAcrossMonths: searches whose events span several monthly
// partitions page through them in keyset order, with cursors that cross
// month boundaries: by term, by id prefix (its events looked up apart,
// or read in keyset order when there are more than the lookup takes), by
// a whole id, and within a time range; another organization's events
// with the same prefix stay out.
func TestSearchAcrossMonths(t *testing.T) {
	ctx := context.Background()
	p := newPartitioned(t, time.Date(2031, 6, 15, 12, 0, 0, 0, time.UTC))
	type stored struct {
		key      gatehouse.EventKey
		prefixed bool
	}
	var events []stored
	// Two events a month from March to June, the first of each at the
	// month's first instant and the second at the last millisecond of
	// the month before, and two at one instant in May (the id decides).
	at := []time.Time{
		time.Date(2031, 3, 1, 0, 0, 0, 0, time.UTC),
		time.Date(2031, 3, 31, 23, 59, 59, 999e6, time.UTC),
		time.Date(2031, 4, 1, 0, 0, 0, 0, time.UTC),
		time.Date(2031, 4, 30, 23, 59, 59, 999e6, time.UTC),
		time.Date(2031, 5, 1, 0, 0, 0, 0, time.UTC),
		time.Date(2031, 5, 9, 8, 0, 0, 0, time.UTC),
		time.Date(2031, 5, 9, 8, 0, 0, 0, time.UTC),
		time.Date(2031, 5, 31, 23, 59, 59, 999e6, time.UTC),
		time.Date(2031, 6, 1, 0, 0, 0, 0, time.UTC),
		time.Date(2031, 6, 14, 9, 30, 0, 0, time.UTC),
	}
	for i, when := range at {
		id := gatehouse.NewID()
		if i%3 != 1 {
			id[0], id[1] = 0xab, 0xcd
		}
		if !p.ingest(t, p.org, p.door, id, when) {
			t.Fatalf("event %d not stored", i)
		}
		events = append(events, stored{gatehouse.EventKey{OccurredAt: when, ID: id}, i%3 != 1})
	}
	other, door := p.place(t, "Other")
	foreign := gatehouse.NewID()
	foreign[0], foreign[1] = 0xab, 0xcd
	p.ingest(t, other, door, foreign, time.Date(2031, 5, 9, 8, 0, 0, 0, time.UTC))
	slices.SortFunc(events, func(a, b stored) int {
		if c := b.key.OccurredAt.Compare(a.key.OccurredAt); c != 0 {
			return c
		}
		return slices.Compare(b.key.ID[:], a.key.ID[:])
	})
	want := func(keep func(stored) bool) []uuid.UUID {
		var ids []uuid.UUID
		for _, ev := range events {
			if keep(ev) {
				ids = append(ids, ev.key.ID)
			}
		}
		return ids
	}
	// walk reads every page of f, limit events each, and returns the ids.
	walk := func(f gatehouse.EventFilter, limit int) []uuid.UUID {
		t.Helper()
		f.Limit = limit
		var ids []uuid.UUID
		for range 20 {
			page, err := p.db.ListEvents(ctx, p.org.ID, f)
			if err != nil {
				t.Fatal(err)
			}
			if page.Partial {
				t.Fatalf("q %q: a partial page", f.Q)
			}
			for _, ev := range page.Events {
				ids = append(ids, ev.ID)
			}
			if page.Next == nil {
				return ids
			}
			f.After = page.Next
		}
		t.Fatalf("q %q: more than 20 pages", f.Q)
		return nil
	}
	all := func(stored) bool { return true }
	prefixed := func(ev stored) bool { return ev.prefixed }
	may := func(ev stored) bool {
		return ev.prefixed && !ev.key.OccurredAt.Before(at[4]) && ev.key.OccurredAt.Before(at[8])
	}
	mayFrom, mayTo := at[4], at[8]
	for _, lookup := range []int{0, 2} { // the default, then fewer than the prefix's events
		p.db.SetPrefixKeysForTest(lookup)
		for _, c := range []struct {
			f     gatehouse.EventFilter
			limit int
			want  []uuid.UUID
		}{
			{gatehouse.EventFilter{Q: "schedule"}, 3, want(all)},
			{gatehouse.EventFilter{Q: "abcd"}, 2, want(prefixed)},
			{gatehouse.EventFilter{Q: "ABCD"}, 50, want(prefixed)},
			{gatehouse.EventFilter{Q: "abcd", From: &mayFrom, To: &mayTo}, 1, want(may)},
			{gatehouse.EventFilter{Q: events[3].key.ID.String()}, 2, []uuid.UUID{events[3].key.ID}},
			{gatehouse.EventFilter{Q: foreign.String()}, 2, nil},
		} {
			if got := walk(c.f, c.limit); !slices.Equal(got, c.want) {
				t.Errorf("lookup %d, q %q from %v to %v, %d a page:\n got %v\nwant %v", lookup, c.f.Q, c.f.From, c.f.To, c.limit, got, c.want)
			}
		}
	}
}
