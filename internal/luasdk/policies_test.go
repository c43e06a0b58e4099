package luasdk

import (
	"context"
	"testing"
	"time"

	"github.com/gatehouse/gatehouse/client"
)

// A policy changed in Gatehouse reaches the game's decisions with the next
// sync (its policyVersion), and the set is fetched once per change.
func TestPolicyChangeReachesCheck(t *testing.T) {
	g := newGame(t, gameOptions{})
	g.setPolicy(client.Policy{Mode: "LOCKED"})
	g.start(``)
	g.join(7, 7)
	g.env.Advance(time.Second)
	door := g.api.AccessPointID.String()
	reason := func() string {
		return g.eval(`select(2, Gatehouse.check(game:GetService("Players"):GetPlayers()[1], "` + door + `"))`).String()
	}
	if got := reason(); got != "ACCESS_POINT_DISABLED" {
		t.Fatalf("locked door: %s", got)
	}
	g.env.Advance(2 * time.Minute)
	if n := g.env.Paths["GET /api/consumer/v1/policies"]; n != 1 {
		t.Fatalf("%d GET /policies while nothing changed, want 1", n)
	}
	g.setPolicy(client.Policy{Mode: "OPEN"})
	g.env.Advance(30 * time.Second) // one sync ends, the next answers the new version
	if got := reason(); got != "OPEN" {
		t.Fatalf("after the change: %s", got)
	}
	if n := g.env.Paths["GET /api/consumer/v1/policies"]; n != 2 {
		t.Fatalf("%d GET /policies, want 2", n)
	}
	if v := g.stat("policyVersion").String(); v == "nil" {
		t.Fatal("stats have no policyVersion")
	}
}

// An unlock cancelled while the game opens the door (before its answer
// reached Gatehouse) locks again before its end.
func TestCancelledUnlockLocksAgain(t *testing.T) {
	g := newGame(t, gameOptions{})
	g.run(`
		_G.Gatehouse = require(script.Parent.Gatehouse)
		_G.log = {}
		Gatehouse.onUnlock("*", function(command)
			table.insert(_G.log, "open")
			task.wait(40) -- a slow door: the cancel comes with a sync meanwhile
			return function() table.insert(_G.log, "close") end
		end)
	`)
	g.join(7, 7) // before the first sync, which tells Gatehouse who is here
	g.start(``)
	g.env.Advance(time.Second)
	cmd, _, err := g.admin.IssueCommand(context.Background(), client.CommandRequest{
		AccessPointID: g.api.AccessPointID.String(), Scope: "PLAYER", PlatformUserID: "7", DurationSeconds: 600})
	if err != nil {
		t.Fatal(err)
	}
	g.env.Advance(25 * time.Second) // the next sync delivers it: the door starts opening
	if got := g.eval(`table.concat(_G.log, "|")`).String(); got != "open" {
		t.Fatalf("callbacks %q, want open", got)
	}
	if _, err := g.admin.CancelCommand(context.Background(), cmd.ID); err != nil {
		t.Fatal(err)
	}
	g.env.Advance(60 * time.Second)
	if got := g.eval(`table.concat(_G.log, "|")`).String(); got != "open|close" {
		t.Fatalf("callbacks %q, want open|close", got)
	}
	if got := g.eval(`select(2, Gatehouse.check(game:GetService("Players"):GetPlayers()[1], "` + g.api.AccessPointID.String() + `"))`).String(); got == "REMOTE_UNLOCK" {
		t.Fatal("still unlocked after the cancel")
	}
}
