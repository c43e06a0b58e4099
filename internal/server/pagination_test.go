package server_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/gatehouse/gatehouse"
)

// TestPaginationWalksEveryEventOnce pages through events that share
// timestamps while new events keep arriving, and checks that every event
// present at the start is seen exactly once, in order.
func TestPaginationWalksEveryEventOnce(t *testing.T) {
	e := newEnv(t)
	o := e.newOrg("Acme")
	var evs []gatehouse.NewEvent
	for i := range 60 {
		ev := e.ev(o.accessPoints[i%4], gatehouse.EventAccessDenied, i/10) // ten events per minute: ties
		evs = append(evs, ev)
	}
	e.ingest(o, evs...)
	start := map[string]bool{}
	for _, ev := range evs {
		start[ev.ID.String()] = true
	}

	seen := map[string]int{}
	var prev *struct{ at, id string }
	query := "type=ACCESS_DENIED&limit=7"
	for page := 0; ; page++ {
		l := e.events(o.readKey, query)
		for _, d := range l.Data {
			seen[d.ID]++
			if prev != nil && (d.OccurredAt > prev.at || d.OccurredAt == prev.at && d.ID >= prev.id) {
				t.Fatalf("page %d: %s %s is not after %s %s in the event order", page, d.OccurredAt, d.ID, prev.at, prev.id)
			}
			prev = &struct{ at, id string }{d.OccurredAt, d.ID}
		}
		// New events arrive between pages: newer ones, and one in the past
		// that a client has already paged beyond.
		newer := e.ev(o.accessPoints[0], gatehouse.EventAccessDenied, 0)
		newer.OccurredAt = e.clock.Now().Add(time.Duration(page+1) * time.Second)
		e.ingest(o, newer)
		if l.NextCursor == nil {
			break
		}
		query = "type=ACCESS_DENIED&limit=7&cursor=" + url.QueryEscape(*l.NextCursor)
	}
	for id := range start {
		if seen[id] != 1 {
			t.Errorf("event %s seen %d times", id, seen[id])
		}
	}
	if len(seen) != len(start) {
		t.Errorf("walk saw %d events, %d existed at the start", len(seen), len(start))
	}
}

func TestCursorIsBoundToItsFilters(t *testing.T) {
	e := newEnv(t)
	o := e.newOrg("Acme")
	for i := range 5 {
		e.ingest(o, e.ev(o.accessPoints[0], gatehouse.EventAccessDenied, i))
	}
	l := e.events(o.readKey, "allowed=denied&limit=2")
	c := url.QueryEscape(*l.NextCursor)
	for _, tc := range []struct{ query, want string }{
		{"allowed=granted&cursor=" + c, "different filters"},
		{"cursor=" + c, "different filters"},
		{"allowed=denied&q=x&cursor=" + c, "different filters"},
		{"allowed=denied&cursor=" + c[:len(c)-2] + "AA", "not a valid cursor"},
	} {
		r := e.get("/api/consumer/v1/events?"+tc.query, o.readKey)
		if r.status != http.StatusBadRequest {
			t.Errorf("?%s: %d", tc.query, r.status)
			continue
		}
		if msg := strings.Join(r.apiError(t).Issues["cursor"], " "); !strings.Contains(msg, tc.want) {
			t.Errorf("?%s: cursor issue %q, want %q", tc.query, msg, tc.want)
		}
	}
	// The same filters with another page size continue the walk.
	if got := e.events(o.readKey, "allowed=denied&limit=3&cursor="+c); len(got.Data) != 3 || got.NextCursor != nil {
		t.Errorf("limit changed between pages: %d events", len(got.Data))
	}
	// Another organization's key cannot use it either.
	other := e.newOrg("Other")
	if r := e.get("/api/consumer/v1/events?allowed=denied&cursor="+c, other.readKey); r.status != 400 {
		t.Errorf("cursor of another organization: %d", r.status)
	}
}
