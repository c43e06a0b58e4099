package luasdk

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/gatehouse/gatehouse/client"
)

// The door script of the docs works as written: it lets a player on the
// allow list through and records both attempts, and a remote unlock opens
// the door until it ends.
func TestDoorsExample(t *testing.T) {
	src, err := os.ReadFile("../../docs/examples/Doors.server.luau")
	if err != nil {
		t.Fatal(err)
	}
	g := newGame(t, gameOptions{})
	g.setPolicy(client.Policy{Mode: "RULES", Allow: []client.AllowRule{{PlatformUserID: "7"}}})
	code := strings.NewReplacer(
		"https://gatehouse.example.com", g.api.URL,
		"0193a0c4-5f6e-7d8c-9b0a-1c2d3e4f5a6b", g.api.AccessPointID.String(),
	).Replace(string(src))
	if code == string(src) {
		t.Fatal("the example's URL or door id changed: update this test")
	}
	g.env.AddPart("VipDoor")
	ps := g.join(7, 8)
	g.run(code)
	g.env.Advance(time.Second)
	door := g.env.Part("VipDoor")

	g.env.Touch("VipDoor", ps[0])
	if door.RawGetString("CanCollide").String() != "false" {
		t.Fatal("the door did not open for player 7")
	}
	g.env.Touch("VipDoor", ps[0]) // the same touch again: not another attempt
	g.env.Advance(3 * time.Second)
	if door.RawGetString("CanCollide").String() != "true" {
		t.Fatal("the door did not close")
	}
	g.env.Touch("VipDoor", ps[1])
	if door.RawGetString("CanCollide").String() != "true" {
		t.Fatal("the door opened for player 8")
	}
	g.env.Advance(10 * time.Second)
	if n := len(g.stored()); n != 2 {
		t.Fatalf("%d attempts stored, want 2", n)
	}

	if _, _, err := g.admin.IssueCommand(context.Background(), client.CommandRequest{
		AccessPointID: g.api.AccessPointID.String(), Scope: "UNIVERSE", DurationSeconds: 60}); err != nil {
		t.Fatal(err)
	}
	g.env.Advance(30 * time.Second)
	if door.RawGetString("CanCollide").String() != "false" {
		t.Fatal("the remote unlock did not open the door")
	}
	g.env.Advance(60 * time.Second)
	if door.RawGetString("CanCollide").String() != "true" {
		t.Fatal("the door did not lock again after the unlock")
	}
}
