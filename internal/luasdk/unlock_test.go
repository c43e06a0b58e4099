package luasdk

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/gatehouse/gatehouse/client"
)

// An unlock issued through the API reaches the game through sync, runs
// the callback, shows EXECUTED, lets players through (REMOTE_UNLOCK) for
// its duration, and the door locks again at its end.
func TestUnlockRunsTheCallbackAndShowsExecuted(t *testing.T) {
	g := newGame(t, gameOptions{})
	g.setPolicy(client.Policy{Mode: "LOCKED"})
	g.run(`
		_G.Gatehouse = require(script.Parent.Gatehouse)
		_G.log = {}
		Gatehouse.onUnlock("` + g.api.AccessPointID.String() + `", function(command)
			table.insert(_G.log, "open " .. command.scope .. " " .. command.seconds)
			return function()
				table.insert(_G.log, "close")
			end
		end)
	`)
	g.start(``)
	g.join(7, 7)
	g.env.Advance(time.Second)
	door := g.api.AccessPointID.String()
	if got := g.eval(`select(2, Gatehouse.check(game:GetService("Players"):GetPlayers()[1], "` + door + `"))`).String(); got != "ACCESS_POINT_DISABLED" {
		t.Fatalf("before the unlock: %s", got)
	}
	cmd, _, err := g.admin.IssueCommand(context.Background(), client.CommandRequest{
		AccessPointID: door, Scope: "SERVER", ServerJobID: jobID, DurationSeconds: 30})
	if err != nil {
		t.Fatal(err)
	}
	g.env.Advance(30 * time.Second) // the next sync takes it (within a long poll), the one after answers
	if got := g.eval(`table.concat(_G.log, "|")`).String(); got != "open SERVER 30" {
		t.Fatalf("callbacks %q", got)
	}
	c, err := g.admin.Command(context.Background(), cmd.ID)
	if err != nil {
		t.Fatal(err)
	}
	if c.Status != "EXECUTED" {
		t.Fatalf("command %s, want EXECUTED", c.Status)
	}
	if got := g.eval(`select(2, Gatehouse.check(game:GetService("Players"):GetPlayers()[1], "` + door + `"))`).String(); got != "REMOTE_UNLOCK" {
		t.Fatalf("during the unlock: %s", got)
	}
	g.env.Advance(30 * time.Second)
	if got := g.eval(`table.concat(_G.log, "|")`).String(); got != "open SERVER 30|close" {
		t.Fatalf("callbacks %q", got)
	}
	if got := g.eval(`select(2, Gatehouse.check(game:GetService("Players"):GetPlayers()[1], "` + door + `"))`).String(); got != "ACCESS_POINT_DISABLED" {
		t.Fatalf("after the unlock: %s", got)
	}
	if n := g.statInt("unlocksExecuted"); n != 1 {
		t.Fatalf("unlocksExecuted %d", n)
	}
}

// A callback's error answers FAILED with its message as the reason.
func TestUnlockCallbackErrorShowsFailed(t *testing.T) {
	g := newGame(t, gameOptions{})
	g.run(`
		_G.Gatehouse = require(script.Parent.Gatehouse)
		Gatehouse.onUnlock("*", function(command)
			error("DOOR_JAMMED", 0)
		end)
	`)
	g.start(``)
	g.env.Advance(time.Second)
	cmd, _, err := g.admin.IssueCommand(context.Background(), client.CommandRequest{
		AccessPointID: g.api.AccessPointID.String(), Scope: "SERVER", ServerJobID: jobID, DurationSeconds: 10})
	if err != nil {
		t.Fatal(err)
	}
	g.env.Advance(60 * time.Second)
	c, err := g.admin.Command(context.Background(), cmd.ID)
	if err != nil {
		t.Fatal(err)
	}
	if c.Status != "FAILED" || c.FailureReason == nil || *c.FailureReason != "DOOR_JAMMED" {
		t.Fatalf("command %s %q, want FAILED DOOR_JAMMED", c.Status, *c.FailureReason)
	}
}

// A command published on MessagingService runs at once, once, although
// sync delivers it again; sync carries its answer.
func TestUnlockThroughMessagingRunsOnce(t *testing.T) {
	g := newGame(t, gameOptions{})
	g.run(`
		_G.Gatehouse = require(script.Parent.Gatehouse)
		_G.runs = 0
		Gatehouse.onUnlock("*", function() _G.runs = _G.runs + 1 end)
	`)
	g.start(`messaging = true`)
	g.env.Advance(time.Second) // the first sync is now holding
	cmd, _, err := g.admin.IssueCommand(context.Background(), client.CommandRequest{
		AccessPointID: g.api.AccessPointID.String(), Scope: "UNIVERSE", DurationSeconds: 10})
	if err != nil {
		t.Fatal(err)
	}
	// What Gatehouse publishes (internal/opencloud's message).
	g.env.Publish("gatehouse", fmt.Sprintf(`{"id":%q,"type":"UNLOCK","accessPointId":%q,"scope":"UNIVERSE","serverJobId":null,"platformUserId":null,"durationSeconds":10,"expiresAt":%q}`,
		cmd.ID, g.api.AccessPointID, cmd.ExpiresAt.UTC().Format("2006-01-02T15:04:05.000Z")))
	if n := g.num("_G.runs"); n != 1 {
		t.Fatalf("ran %d times on the message, want 1 at once", n)
	}
	// A message for another server, or one that expired, opens nothing.
	g.env.Publish("gatehouse", fmt.Sprintf(`{"id":"0193a0c4-5f6e-7d8c-9b0a-1c2d3e4f5a6b","type":"UNLOCK","accessPointId":%q,"scope":"SERVER","serverJobId":"another-job","platformUserId":null,"durationSeconds":10,"expiresAt":%q}`,
		g.api.AccessPointID, cmd.ExpiresAt.UTC().Format("2006-01-02T15:04:05.000Z")))
	g.env.Publish("gatehouse", fmt.Sprintf(`{"id":"0193a0c4-5f6e-7d8c-9b0a-1c2d3e4f5a6c","type":"UNLOCK","accessPointId":%q,"scope":"UNIVERSE","serverJobId":null,"platformUserId":null,"durationSeconds":10,"expiresAt":%q}`,
		g.api.AccessPointID, g.env.Wall().Add(-time.Second).UTC().Format("2006-01-02T15:04:05.000Z")))
	if n := g.num("_G.runs"); n != 1 {
		t.Fatalf("ran %d times: a message not for this server, or expired, was applied", n)
	}
	g.env.Advance(60 * time.Second)
	c, err := g.admin.Command(context.Background(), cmd.ID)
	if err != nil {
		t.Fatal(err)
	}
	if n := g.num("_G.runs"); n != 1 || c.Status != "EXECUTED" {
		t.Fatalf("ran %d times, command %s; want once and EXECUTED", n, c.Status)
	}
}
