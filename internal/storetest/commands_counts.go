package storetest

import (
	"testing"

	"github.com/gatehouse/gatehouse"
)

// testCommandCounts: a command's counts move once per delivery row and
// answer, whatever is sent again. A lost answer taken again does not
// count delivered (or joined) twice; a joined server's answer counts
// neither executed nor failed; a rejected ack counts nothing; the take
// answer, FindCommand and ListCommands show the same counts.
func testCommandCounts(t *testing.T, f *fixture) {
	p := f.unlockPlace("acme")
	f.heartbeat(p.org.ID, "s1")
	f.heartbeat(p.org.ID, "s2")
	c := f.create(f.command(p, gatehouse.ScopeUniverse, "s1", "s2"))
	want := func(what string, targets gatehouse.CommandTargets) {
		t.Helper()
		if got := f.find(p.org.ID, c.ID); got.Targets != targets {
			t.Errorf("%s: FindCommand targets = %+v, want %+v", what, got.Targets, targets)
		}
		page := f.listCommands(p.org.ID, gatehouse.CommandFilter{}, 10)
		if len(page) != 1 || page[0].Targets != targets {
			t.Errorf("%s: ListCommands = %+v, want targets %+v", what, page, targets)
		}
	}
	want("issued", gatehouse.CommandTargets{Live: 2})

	cmds, _ := f.take(p.org.ID, "s1", 0)
	if len(cmds) != 1 || cmds[0].Targets != (gatehouse.CommandTargets{Live: 2, Delivered: 1}) {
		t.Fatalf("take answer = %+v, want the command delivered to 1 of 2", cmds)
	}
	// The answer was lost: s1 syncs again with its old cursor.
	cmds, cur := f.take(p.org.ID, "s1", 0)
	if len(cmds) != 1 || cmds[0].Targets != (gatehouse.CommandTargets{Live: 2, Delivered: 1}) {
		t.Fatalf("answer sent again = %+v, want still 1 of 2 delivered", cmds)
	}
	want("lost answer sent again", gatehouse.CommandTargets{Live: 2, Delivered: 1})

	f.heartbeat(p.org.ID, "s3")
	f.take(p.org.ID, "s3", 0)
	f.take(p.org.ID, "s3", 0)
	want("joined, answer sent again", gatehouse.CommandTargets{Live: 2, Delivered: 1, Joined: 1})
	f.ack(p.org.ID, "s3", gatehouse.Ack{CommandID: c.ID, Result: gatehouse.AckExecuted})
	want("joined server's ack", gatehouse.CommandTargets{Live: 2, Delivered: 1, Joined: 1})

	f.ack(p.org.ID, "s1", gatehouse.Ack{CommandID: c.ID, Result: gatehouse.AckFailed, Detail: ptr("jammed")})
	if rejected := f.ack(p.org.ID, "s1", gatehouse.Ack{CommandID: c.ID, Result: gatehouse.AckExecuted}); len(rejected) != 1 {
		t.Errorf("second ack of s1 not rejected: %v", rejected)
	}
	// s2 never took it: its ack is rejected and counts nothing.
	if rejected := f.ack(p.org.ID, "s2", gatehouse.Ack{CommandID: c.ID, Result: gatehouse.AckExecuted}); len(rejected) != 1 {
		t.Errorf("ack of an undelivered command not rejected: %v", rejected)
	}
	want("one target failed", gatehouse.CommandTargets{Live: 2, Delivered: 1, Failed: 1, Joined: 1})
	if cmds, _ := f.take(p.org.ID, "s1", cur); len(cmds) != 0 {
		t.Errorf("answered command taken again: %+v", cmds)
	}

	f.take(p.org.ID, "s2", 0)
	f.ack(p.org.ID, "s2", gatehouse.Ack{CommandID: c.ID, Result: gatehouse.AckExecuted})
	want("every target answered", gatehouse.CommandTargets{Live: 2, Delivered: 2, Executed: 1, Failed: 1, Joined: 1})
	if got := f.find(p.org.ID, c.ID); got.Status != gatehouse.CommandFailed || got.FailureReason == nil ||
		*got.FailureReason != "1 of 2 servers failed" {
		t.Errorf("settled as %s (%v), want FAILED, 1 of 2 servers failed", got.Status, got.FailureReason)
	}
}
