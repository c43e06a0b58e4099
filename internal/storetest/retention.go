package storetest

import (
	"fmt"
	"testing"
	"time"

	"github.com/gatehouse/gatehouse"
)

// testRetention: events that occurred before the cutoff are deleted in
// batches, of one organization only; the oldest kept is reported; the
// terms of players without events are pruned; the setting is recorded.
func testRetention(t *testing.T, f *fixture) {
	a, b := f.org("Acme"), f.org("Beta")
	gate := f.accessPoint(a.ID, f.location(a.ID, "HQ").ID, "Gate")
	theirs := f.accessPoint(b.ID, f.location(b.ID, "HQ").ID, "Gate")
	for i := range 25 {
		old := f.attempt(gate, gatehouse.EventAccessDenied, 60*24*500+i)
		old.PlatformUserID = ptr(fmt.Sprint("old-", i))
		f.ingest(a.ID, old)
		f.ingest(b.ID, f.attempt(theirs, gatehouse.EventAccessDenied, 60*24*500+i))
	}
	kept := f.attempt(gate, gatehouse.EventAccessGranted, 60*24*10)
	kept.PlatformUserID = ptr("new-1")
	f.ingest(a.ID, kept)
	cutoff := f.now.AddDate(0, 0, -400)
	total := 0
	for {
		n, err := f.s.DeleteEventsBefore(ctx, a.ID, cutoff, 10)
		must(t, err)
		total += n
		if n < 10 {
			break
		}
	}
	if total != 25 {
		t.Errorf("deleted %d, want 25", total)
	}
	if got := ids(f.all(a.ID, gatehouse.EventFilter{}, 50)); len(got) != 1 || got[0] != kept.ID {
		t.Errorf("Acme keeps %v", got)
	}
	if got := f.all(b.ID, gatehouse.EventFilter{}, 50); len(got) != 25 {
		t.Errorf("Beta keeps %d, want its 25", len(got))
	}
	oldest, ok, err := f.s.OldestEvent(ctx, a.ID)
	if err != nil || !ok || !oldest.Equal(kept.OccurredAt.Truncate(time.Millisecond)) {
		t.Errorf("OldestEvent = %v %t %v, want %v", oldest, ok, err, kept.OccurredAt)
	}
	pruned, err := f.s.PruneTerms(ctx, a.ID)
	if err != nil || pruned != 25 {
		t.Errorf("PruneTerms = %d, %v; want the 25 old players", pruned, err)
	}
	if page, _ := f.s.ListEvents(ctx, a.ID, gatehouse.EventFilter{Q: "new-1", Limit: 5}); len(page.Events) != 1 {
		t.Errorf("a kept player's term was pruned: %d events found", len(page.Events))
	}

	if a.RetentionDays != gatehouse.DefaultRetentionDays {
		t.Errorf("a new organization keeps %d days", a.RetentionDays)
	}
	o, err := f.s.SetRetention(ctx, gatehouse.SystemEntry(gatehouse.AuditRetentionChanged), a.ID, 730)
	if err != nil || o.RetentionDays != 730 {
		t.Errorf("SetRetention = %+v, %v", o, err)
	}
	if found, _ := f.s.FindOrganization(ctx, a.ID); found.RetentionDays != 730 {
		t.Errorf("stored retention %d", found.RetentionDays)
	}
	log := f.log(a.ID, gatehouse.AuditFilter{Action: gatehouse.AuditRetentionChanged})
	if len(log) != 1 || log[0].Changes["retentionDays"] != (gatehouse.AuditChange{From: "400", To: "730"}) {
		t.Errorf("retention entries %+v", log)
	}
	_, err = f.s.SetRetention(ctx, gatehouse.SystemEntry(gatehouse.AuditRetentionChanged), gatehouse.NewID(), 730)
	wantErr(t, "an unknown organization", err, gatehouse.ErrNotFound)
}

// testRetentionCommands: once the events of their time are gone, the
// commands issued before the cutoff go too, with what names their
// player (deliveries, the idempotency key) and the delivery log of that
// time; newer commands and other organizations' stay.
func testRetentionCommands(t *testing.T, f *fixture) {
	p := f.unlockPlace("acme")
	q := f.unlockPlace("beta")
	now := f.now
	f.now = now.AddDate(0, 0, -500)
	f.heartbeat(p.org.ID, "job-1", "42")
	old := f.command(p, gatehouse.ScopePlayer, "job-1")
	old.PlatformUserID, old.Note = ptr("42"), ptr("for 42")
	old.Idempotency = &gatehouse.IdempotencyKey{Key: "old", At: f.now}
	oldCmd := f.create(old)
	theirs := f.create(f.command(q, gatehouse.ScopeUniverse))
	f.now = now
	recent := f.create(f.command(p, gatehouse.ScopeUniverse))
	cutoff := now.AddDate(0, 0, -400)

	// While its event is kept, a command is kept.
	if n, err := f.s.DeleteCommandsBefore(ctx, p.org.ID, cutoff, 10); err != nil || n != 0 {
		t.Errorf("DeleteCommandsBefore with the events still there = %d, %v; want 0", n, err)
	}
	for {
		n, err := f.s.DeleteEventsBefore(ctx, p.org.ID, cutoff, 10)
		must(t, err)
		if n < 10 {
			break
		}
	}
	if n, err := f.s.DeleteCommandsBefore(ctx, p.org.ID, cutoff, 10); err != nil || n != 1 {
		t.Errorf("DeleteCommandsBefore = %d, %v; want the old command", n, err)
	}
	_, err := f.s.FindCommand(ctx, p.org.ID, oldCmd.ID)
	wantErr(t, "an expired command", err, gatehouse.ErrNotFound)
	_, _, err = f.s.FindIdempotencyKey(ctx, p.org.ID, "old", time.Time{})
	wantErr(t, "an expired command's idempotency key", err, gatehouse.ErrNotFound)
	f.find(p.org.ID, recent.ID)
	f.find(q.org.ID, theirs.ID)
	if n, err := f.s.DeleteCommandsBefore(ctx, p.org.ID, cutoff, 10); err != nil || n != 0 {
		t.Errorf("DeleteCommandsBefore again = %d, %v", n, err)
	}
}
