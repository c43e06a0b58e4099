package storetest

import (
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/gatehouse/gatehouse"
	"github.com/google/uuid"
)

// testTakeCommands: every rule of what is due to a server, oldest first,
// at most MaxSyncCommands, under a new generation.
func testTakeCommands(t *testing.T, f *fixture) {
	p, q := f.unlockPlace("acme"), f.unlockPlace("beta")
	f.heartbeat(p.org.ID, "s1")
	f.heartbeat(p.org.ID, "s2")
	issued := f.now

	// Nothing due: the cursor is the server's current generation.
	if cmds, cur := f.take(p.org.ID, "s1", 0); len(cmds) != 0 || cur != 0 {
		t.Fatalf("nothing due: %v, cursor %d", commandIDs(cmds), cur)
	}
	first := f.create(f.command(p, gatehouse.ScopeServer, "s1"))
	f.now = f.now.Add(time.Millisecond)
	second := f.create(f.command(p, gatehouse.ScopeUniverse, "s1", "s2"))
	other := f.create(f.command(p, gatehouse.ScopeServer, "s2"))
	f.now = issued.Add(2 * time.Second)

	cmds, cur := f.take(p.org.ID, "s1", 0)
	if !slices.Equal(commandIDs(cmds), []uuid.UUID{first.ID, second.ID}) || cur != 1 {
		t.Fatalf("first take: %v, cursor %d; want the two commands of s1, oldest first, cursor 1", commandIDs(cmds), cur)
	}
	for _, c := range cmds {
		if c.Status != gatehouse.CommandDelivered || c.StartedAt == nil || !time.Time(*c.StartedAt).Equal(f.now) ||
			!time.Time(c.StatusAt).Equal(f.now) || c.RemainingSeconds == nil || *c.RemainingSeconds != 30 {
			t.Errorf("taken %+v (remaining %v)", c, c.RemainingSeconds)
		}
	}
	if got := f.find(p.org.ID, other.ID); got.Status != gatehouse.CommandPending {
		t.Errorf("s2's command moved when s1 took: %+v", got)
	}
	if cmds, again := f.take(p.org.ID, "s1", cur); len(cmds) != 0 || again != cur {
		t.Errorf("confirmed: %v, cursor %d; want nothing, cursor %d", commandIDs(cmds), again, cur)
	}
	if cmds, _ := f.take(q.org.ID, "s1", 0); len(cmds) != 0 {
		t.Errorf("another organization's s1 took %v", commandIDs(cmds))
	}

	// The answer was lost: the server sends the old cursor.
	f.now = f.now.Add(time.Second)
	cmds, cur2 := f.take(p.org.ID, "s1", 0)
	if !slices.Equal(commandIDs(cmds), []uuid.UUID{first.ID, second.ID}) || cur2 != 2 {
		t.Fatalf("lost answer: %v, cursor %d; want both again, cursor 2", commandIDs(cmds), cur2)
	}
	if c := cmds[0]; !time.Time(*c.StartedAt).Equal(issued.Add(2*time.Second)) || *c.RemainingSeconds != 29 {
		t.Errorf("resent %+v: startedAt and remaining follow the first delivery", c)
	}
	if d := f.find(p.org.ID, first.ID).Deliveries[0]; !time.Time(*d.DeliveredAt).Equal(issued.Add(2 * time.Second)) {
		t.Errorf("deliveredAt %v, want the first delivery", d.DeliveredAt)
	}
	// Answered: never again, whatever the cursor.
	f.ack(p.org.ID, "s1", gatehouse.Ack{CommandID: first.ID, Result: gatehouse.AckExecuted})
	if cmds, _ := f.take(p.org.ID, "s1", 0); !slices.Equal(commandIDs(cmds), []uuid.UUID{second.ID}) {
		t.Errorf("after an ack: %v, want only the unanswered command", commandIDs(cmds))
	}

	// A cancelled command goes once more to the servers that have it.
	_, err := f.s.CancelCommand(ctx, cancelledEntry(), p.org.ID, second.ID, f.now)
	must(t, err)
	cmds, cur = f.take(p.org.ID, "s1", 3)
	if !slices.Equal(commandIDs(cmds), []uuid.UUID{second.ID}) || cmds[0].Status != gatehouse.CommandCancelled || cur != 4 {
		t.Fatalf("after a cancel: %+v, cursor %d", cmds, cur)
	}
	if cmds, _ := f.take(p.org.ID, "s1", cur); len(cmds) != 0 {
		t.Errorf("a confirmed cancel is sent once: %v", commandIDs(cmds))
	}
	// The cancel's answer was lost: it is sent again, or the server would
	// stay unlocked.
	cmds, cur = f.take(p.org.ID, "s1", 3)
	if !slices.Equal(commandIDs(cmds), []uuid.UUID{second.ID}) || cmds[0].Status != gatehouse.CommandCancelled || cur != 5 {
		t.Fatalf("a lost cancel: %+v, cursor %d; want it again, cursor 5", commandIDs(cmds), cur)
	}
	// s2 never received it: nothing to lock again.
	if cmds, _ := f.take(p.org.ID, "s2", 0); !slices.Equal(commandIDs(cmds), []uuid.UUID{other.ID}) {
		t.Errorf("s2 took %v, want only its SERVER command", commandIDs(cmds))
	}

	// An unsettled command past its deadline is not sent, swept or not.
	late := f.create(f.command(p, gatehouse.ScopeServer, "s1"))
	f.now = time.Time(late.ExpiresAt)
	if cmds, _ := f.take(p.org.ID, "s1", cur); len(cmds) != 0 {
		t.Errorf("an expired command was sent: %v", commandIDs(cmds))
	}
}

// testTakeAfterForgotten: a server the sweep forgot comes back with the
// cursor it holds; its generations continue above it, so an answer lost
// after its return is still sent again.
func testTakeAfterForgotten(t *testing.T, f *fixture) {
	p := f.unlockPlace("acme")
	f.heartbeat(p.org.ID, "s1")
	f.create(f.command(p, gatehouse.ScopeServer, "s1"))
	_, held := f.take(p.org.ID, "s1", 0)
	for range 3 { // the server's cursor grows with its answers
		f.create(f.command(p, gatehouse.ScopeServer, "s1"))
		_, held = f.take(p.org.ID, "s1", held)
	}
	f.now = f.now.Add(gatehouse.ServerForgetAfter + time.Minute)
	_, err := f.s.SweepCommands(ctx, f.now)
	must(t, err)
	f.heartbeat(p.org.ID, "s1")
	c := f.create(f.command(p, gatehouse.ScopeServer, "s1"))
	cmds, cur := f.take(p.org.ID, "s1", held)
	if !slices.Equal(commandIDs(cmds), []uuid.UUID{c.ID}) || cur <= held {
		t.Fatalf("back with cursor %d: %v, cursor %d; want the new command under a larger cursor", held, commandIDs(cmds), cur)
	}
	if cmds, _ := f.take(p.org.ID, "s1", held); !slices.Equal(commandIDs(cmds), []uuid.UUID{c.ID}) {
		t.Errorf("the answer was lost (cursor %d sent again): %v, want the command again", held, commandIDs(cmds))
	}
}

// testTakeJoined: a server that joins its universe during an unlock
// receives it with the time that remains, as a non-target row; not one
// that ended, was cancelled or expired, nor another universe's.
func testTakeJoined(t *testing.T, f *fixture) {
	p := f.unlockPlace("acme")
	f.heartbeat(p.org.ID, "s1")
	running := f.create(f.command(p, gatehouse.ScopeUniverse, "s1"))
	cancelled := f.create(f.command(p, gatehouse.ScopeUniverse, "s1"))
	serverOnly := f.create(f.command(p, gatehouse.ScopeServer, "s1"))
	_, err := f.s.CancelCommand(ctx, cancelledEntry(), p.org.ID, cancelled.ID, f.now)
	must(t, err)
	start := f.now
	f.take(p.org.ID, "s1", 0)
	// Issued with no live server: a newcomer is its first delivery.
	f.now = start.Add(time.Millisecond)
	noTarget := f.create(f.command(p, gatehouse.ScopeUniverse))

	f.now = start.Add(10 * time.Second)
	f.heartbeat(p.org.ID, "s3")
	cmds, cur := f.take(p.org.ID, "s3", 0)
	if !slices.Equal(commandIDs(cmds), []uuid.UUID{running.ID, noTarget.ID}) || cur != 1 {
		t.Fatalf("newcomer took %v, cursor %d; want the running unlock and the one without targets", commandIDs(cmds), cur)
	}
	if r := cmds[0].RemainingSeconds; r == nil || *r != 20 {
		t.Errorf("remaining %v, want 20 of 30 s", r)
	}
	if r := cmds[1].RemainingSeconds; r == nil || *r != 30 || cmds[1].Status != gatehouse.CommandDelivered ||
		!time.Time(*cmds[1].StartedAt).Equal(f.now) {
		t.Errorf("first delivery of the command without targets: %+v", cmds[1])
	}
	got := f.find(p.org.ID, running.ID)
	if got.Targets != (gatehouse.CommandTargets{Live: 1, Delivered: 1, Joined: 1}) {
		t.Errorf("targets = %+v", got.Targets)
	}
	wantDeliveries(t, got, "s1", "s3")
	if d := got.Deliveries[1]; d.Target || d.DeliveredAt == nil || !time.Time(*d.DeliveredAt).Equal(f.now) {
		t.Errorf("joined delivery = %+v", d)
	}
	if cmds, _ := f.take(p.org.ID, "s3", cur); len(cmds) != 0 {
		t.Errorf("newcomer took again: %v", commandIDs(cmds))
	}
	if got := f.find(p.org.ID, serverOnly.ID); len(got.Deliveries) != 1 {
		t.Errorf("a SERVER command went to a newcomer: %+v", got.Deliveries)
	}

	// After the unlocks ended: nothing for a newcomer, though unsettled.
	f.now = start.Add(41 * time.Second)
	f.heartbeat(p.org.ID, "s4")
	if cmds, _ := f.take(p.org.ID, "s4", 0); len(cmds) != 0 {
		t.Errorf("newcomer after the unlock took %v", commandIDs(cmds))
	}
	// Another universe's newcomer: nothing.
	fresh := f.create(f.command(p, gatehouse.ScopeUniverse))
	if cmds, _, err := f.s.TakeCommands(ctx, p.org.ID, "s5", "43", 0, f.now); err != nil || len(cmds) != 0 {
		t.Errorf("a server of universe 43 took %v, %v", commandIDs(cmds), err)
	}
	// Expired (by the sweep) and not started: nothing.
	f.now = time.Time(fresh.ExpiresAt)
	_, err = f.s.SweepCommands(ctx, f.now)
	must(t, err)
	if got := f.find(p.org.ID, fresh.ID); got.Status != gatehouse.CommandExpired {
		t.Fatalf("status %s after the sweep, want EXPIRED", got.Status)
	}
	if cmds, _ := f.take(p.org.ID, "s6", 0); len(cmds) != 0 {
		t.Errorf("newcomer took an expired unlock: %v", commandIDs(cmds))
	}
}

// testTakeBounded: at most MaxSyncCommands per answer, oldest first; the
// rest come with the next.
func testTakeBounded(t *testing.T, f *fixture) {
	p := f.unlockPlace("acme")
	f.heartbeat(p.org.ID, "s1")
	var want []uuid.UUID
	for range gatehouse.MaxSyncCommands + 3 {
		want = append(want, f.create(f.command(p, gatehouse.ScopeServer, "s1")).ID)
		f.now = f.now.Add(time.Millisecond)
	}
	cmds, cur := f.take(p.org.ID, "s1", 0)
	if !slices.Equal(commandIDs(cmds), want[:gatehouse.MaxSyncCommands]) || cur != 1 {
		t.Fatalf("first answer: %d commands, cursor %d", len(cmds), cur)
	}
	cmds, cur = f.take(p.org.ID, "s1", cur)
	if !slices.Equal(commandIDs(cmds), want[gatehouse.MaxSyncCommands:]) || cur != 2 {
		t.Fatalf("second answer: %d commands, cursor %d", len(cmds), cur)
	}
}

// testTakeRelock: a server that applied a universe's unlock and answered
// EXECUTED is told once more when the unlock is cancelled while it runs,
// until it confirms the CANCELLED answer; a server that failed it, or an
// unlock already over, is not.
func testTakeRelock(t *testing.T, f *fixture) {
	p := f.unlockPlace("acme")
	for _, job := range []string{"s1", "s2", "s3"} {
		f.heartbeat(p.org.ID, job)
	}
	c := f.create(f.command(p, gatehouse.ScopeUniverse, "s1", "s2", "s3"))
	cursors := map[string]int64{}
	for _, job := range []string{"s1", "s2", "s3"} {
		_, cursors[job] = f.take(p.org.ID, job, 0)
	}
	f.ack(p.org.ID, "s1", gatehouse.Ack{CommandID: c.ID, Result: gatehouse.AckExecuted})
	f.ack(p.org.ID, "s2", gatehouse.Ack{CommandID: c.ID, Result: gatehouse.AckFailed})
	if cmds, _ := f.take(p.org.ID, "s1", cursors["s1"]); len(cmds) != 0 {
		t.Fatalf("answered, not cancelled: %v", commandIDs(cmds))
	}
	_, err := f.s.CancelCommand(ctx, cancelledEntry(), p.org.ID, c.ID, f.now)
	must(t, err)
	f.now = f.now.Add(time.Second)
	cmds, cur := f.take(p.org.ID, "s1", cursors["s1"])
	if !slices.Equal(commandIDs(cmds), []uuid.UUID{c.ID}) || cmds[0].Status != gatehouse.CommandCancelled {
		t.Fatalf("the server that executed it, after the cancel: %+v", cmds)
	}
	if again, _ := f.take(p.org.ID, "s1", cursors["s1"]); !slices.Equal(commandIDs(again), []uuid.UUID{c.ID}) {
		t.Errorf("the CANCELLED answer was lost: %v, want it again", commandIDs(again))
	}
	if cmds, _ := f.take(p.org.ID, "s1", cur+1); len(cmds) != 0 {
		t.Errorf("confirmed: %v", commandIDs(cmds))
	}
	if cmds, _ := f.take(p.org.ID, "s2", cursors["s2"]); len(cmds) != 0 {
		t.Errorf("the server that failed it: %v", commandIDs(cmds))
	}
	if cmds, _ := f.take(p.org.ID, "s3", cursors["s3"]); !slices.Equal(commandIDs(cmds), []uuid.UUID{c.ID}) || cmds[0].Status != gatehouse.CommandCancelled {
		t.Errorf("the server that had not answered: %+v", cmds)
	}

	// An unlock that has ended needs no cancel.
	d := f.create(f.command(p, gatehouse.ScopeUniverse, "s1", "s2", "s3"))
	_, cur = f.take(p.org.ID, "s1", 0)
	f.ack(p.org.ID, "s1", gatehouse.Ack{CommandID: d.ID, Result: gatehouse.AckExecuted})
	f.now = f.now.Add(time.Duration(d.DurationSeconds+1) * time.Second)
	if _, err := f.s.CancelCommand(ctx, cancelledEntry(), p.org.ID, d.ID, f.now); err != nil && !errors.Is(err, gatehouse.ErrConflict) {
		t.Fatal(err)
	}
	if cmds, _ := f.take(p.org.ID, "s1", cur); len(cmds) != 0 {
		t.Errorf("an unlock over when cancelled: %v", commandIDs(cmds))
	}
}
