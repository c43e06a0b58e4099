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

// Events older than the organization's retention (recorded while the
// game server's clock was a year and more behind) are refused by name:
// the SDK leaves them out, counts them as rejected, says why in one
// warning, and sends the rest again at once, never those again.
func TestEventsPastRetentionAreRejectedOnce(t *testing.T) {
	g := newGame(t, gameOptions{})
	g.start(``)
	right := g.env.Wall()
	g.env.SetWall(right.AddDate(0, 0, -401))
	g.record(3, 7, "")
	g.env.SetWall(right)
	g.record(5, 7, "NOT_ON_ALLOWLIST")
	g.env.Advance(10 * time.Second)
	if got := g.stored(); len(got) != 5 {
		t.Fatalf("stored %d events, want the 5 within the retention", len(got))
	}
	if r, s, q := g.statInt("rejected"), g.statInt("sent"), g.statInt("queued"); r != 3 || s != 5 || q != 0 {
		t.Fatalf("rejected %d sent %d queued %d, want 3, 5 and 0", r, s, q)
	}
	if g.warnings("older than the retention of 400 days") != 1 {
		t.Fatalf("warnings %q", g.env.Warnings)
	}
	g.env.Advance(2 * time.Minute)
	if n := g.env.Paths["POST /api/consumer/v1/events"]; n != 2 {
		t.Fatalf("%d POST /events, want 2 (the batch, then the rest of it)", n)
	}
}
