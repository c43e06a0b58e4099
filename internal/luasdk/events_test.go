package luasdk

import (
	"testing"
	"time"
)

// Every recorded attempt is stored once: batches of at most 1,000, ids
// made by the SDK, and a batch whose answer was lost on the way back
// (stored, but the SDK saw a network error) sent again as duplicates.
func TestEventsArriveOnceEach(t *testing.T) {
	g := newGame(t, gameOptions{})
	g.start(`flushSeconds = 5`)
	g.env.LoseAnswers["POST /api/consumer/v1/events"] = 1
	g.record(2500, 7, "OUTSIDE_SCHEDULE") // the 1,000th starts a batch at once
	g.env.Advance(40 * time.Second)
	got := g.stored()
	if len(got) != 2500 {
		t.Fatalf("stored %d events, want 2500", len(got))
	}
	for _, ev := range got {
		if ev.ServerJobID == nil || *ev.ServerJobID != jobID || ev.Reason == nil || *ev.Reason != "OUTSIDE_SCHEDULE" || ev.Type != "ACCESS_DENIED" {
			t.Fatalf("event %+v", ev)
		}
	}
	if sent, dups, queued := g.statInt("sent"), g.statInt("duplicates"), g.statInt("queued"); sent != 2500 || dups != 1000 || queued != 0 {
		t.Fatalf("stats sent %d duplicates %d queued %d, want 2500, 1000 (the batch whose answer was lost), 0", sent, dups, queued)
	}
	if n := g.env.Paths["POST /api/consumer/v1/events"]; n != 4 {
		t.Fatalf("%d POST /events, want 4 (three batches, one again)", n)
	}
}

// A 400 naming one event removes that event only; the rest of its batch
// is sent again at once.
func TestBadEventDoesNotSinkItsBatch(t *testing.T) {
	g := newGame(t, gameOptions{})
	g.start(``)
	g.record(3, 7, "")
	g.record(1, 7, "not a reason") // events[3].reason
	g.record(5, 7, "NOT_ON_ALLOWLIST")
	g.env.Advance(10 * time.Second)
	if got := g.stored(); len(got) != 8 {
		t.Fatalf("stored %d events, want 8", len(got))
	}
	if r, s := g.statInt("rejected"), g.statInt("sent"); r != 1 || s != 8 {
		t.Fatalf("rejected %d sent %d, want 1 and 8", r, s)
	}
	if g.warnings("events[3].reason") != 1 {
		t.Fatalf("warnings %q", g.env.Warnings)
	}
}
