package cli_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/gatehouse/gatehouse"
	"github.com/gatehouse/gatehouse/internal/app"
	"github.com/google/uuid"
)

// unlockSetup is an organization with an admin, an operator and a viewer,
// a door in a location of universe 4242 and one in a location that names
// no universe.
type unlockSetup struct {
	*gh
	org, hq, shed, door, shedDoor record
}

func newUnlockSetup(t *testing.T) *unlockSetup {
	t.Helper()
	g := newBackendGH(t)
	g.env["GATEHOUSE_PASSWORD"] = "correct horse battery staple"
	s := &unlockSetup{gh: g}
	g.json(&s.org, "org", "create", "--name", "Acme")
	var u userRecord
	g.json(&u, "user", "create", "--org", s.org.ID, "--email", "admin@acme.test")
	g.json(&u, "user", "create", "--org", s.org.ID, "--email", "ops@acme.test", "--name", "Ops", "--role", "operator")
	g.json(&u, "user", "create", "--org", s.org.ID, "--email", "look@acme.test", "--role", "viewer")
	g.json(&s.hq, "location", "create", "--org", s.org.ID, "--name", "HQ", "--universe-id", "4242")
	g.json(&s.door, "access-point", "create", "--location", s.hq.ID, "--name", "Front door")
	g.json(&s.shed, "location", "create", "--org", s.org.ID, "--name", "Shed")
	g.json(&s.shedDoor, "access-point", "create", "--location", s.shed.ID, "--name", "Shed door")
	return s
}

// gameServer is a game server of universe 4242 that syncs through the
// service, as the API's sync route does, on the CLI's database.
type gameServer struct {
	g       *gh
	org     string
	job     string
	players []string
	cursor  *string
}

// sync runs one sync with acks and no wait, and returns the commands due.
func (s *gameServer) sync(acks ...gatehouse.Ack) []gatehouse.Command {
	s.g.t.Helper()
	ctx := context.Background()
	db, err := app.Open(ctx, s.g.db)
	if err != nil {
		s.g.t.Fatal(err)
	}
	defer db.Close()
	wait := 0
	res, err := db.Service(time.Now).Sync(ctx, uuid.MustParse(s.org), gatehouse.SyncRequest{ServerJobID: s.job, UniverseID: "4242",
		Players: s.players, Acks: acks, Cursor: s.cursor, WaitSeconds: &wait})
	if err != nil {
		s.g.t.Fatalf("sync of %s: %v", s.job, err)
	}
	s.cursor = &res.Cursor
	return res.Commands
}

func ack(id string, result gatehouse.AckResult, detail string) gatehouse.Ack {
	a := gatehouse.Ack{CommandID: uuid.MustParse(id), Result: result}
	if detail != "" {
		a.Detail = &detail
	}
	return a
}

// commandJSON is a command as the CLI prints it with --json.
type commandJSON struct {
	ID, Type, Status, Scope, UniverseID string
	FailureReason, ServerJobID          *string
	PlatformUserID, Note                *string
	DurationSeconds                     int
	IssuedAt, ExpiresAt                 time.Time
	AccessPoint, Location               struct{ ID, Name string }
	RequestedBy                         *struct{ ID, Email, Name string }
	IssuedByKey                         *struct{ ID string }
	Targets                             struct{ Live, Delivered, Executed, Failed, Joined int }
	Deliveries                          []struct {
		ServerJobID string
		Target      bool
		DeliveredAt *time.Time
		Result      *string
		Detail      *string
	}
}

func (s *unlockSetup) unlock(args ...string) commandJSON {
	s.t.Helper()
	var c commandJSON
	s.json(&c, append([]string{"command", "unlock", "--org", s.org.ID, "--access-point", s.door.ID, "--as", "ops@acme.test"}, args...)...)
	return c
}

// TestCommandUnlockScopes: unlock issues a command of each scope for the
// user named by --as; its targets are the live servers of the location's
// universe, and a SERVER or PLAYER command whose target is not live is
// FAILED at once with the reason.
func TestCommandUnlockScopes(t *testing.T) {
	s := newUnlockSetup(t)
	a := &gameServer{g: s.gh, org: s.org.ID, job: "job-a", players: []string{"111"}}
	b := &gameServer{g: s.gh, org: s.org.ID, job: "job-b", players: []string{"222"}}
	a.sync()
	b.sync()

	u := s.unlock("--scope", "universe", "--duration", "30s", "--ttl", "2m", "--note", "fire drill")
	if u.Type != "UNLOCK" || u.Status != "PENDING" || u.Scope != "UNIVERSE" || u.UniverseID != "4242" || u.DurationSeconds != 30 ||
		u.ExpiresAt.Sub(u.IssuedAt) != 2*time.Minute || u.Targets.Live != 2 || u.Note == nil || *u.Note != "fire drill" ||
		u.AccessPoint.ID != s.door.ID || u.AccessPoint.Name != "Front door" || u.Location.ID != s.hq.ID ||
		u.RequestedBy == nil || u.RequestedBy.Email != "ops@acme.test" || u.IssuedByKey != nil || u.FailureReason != nil {
		t.Errorf("a UNIVERSE unlock: %+v", u)
	}
	if d := s.unlock("--scope", "UNIVERSE"); d.DurationSeconds != gatehouse.DefaultUnlockSeconds ||
		d.ExpiresAt.Sub(d.IssuedAt) != gatehouse.DefaultCommandTTL*time.Second {
		t.Errorf("the defaults: %+v", d)
	}
	if c := s.unlock("--scope", "SERVER", "--server-job-id", "job-a", "--duration", "1m"); c.Status != "PENDING" ||
		c.Targets.Live != 1 || c.ServerJobID == nil || *c.ServerJobID != "job-a" || c.DurationSeconds != 60 {
		t.Errorf("a SERVER unlock of a live server: %+v", c)
	}
	if c := s.unlock("--scope", "SERVER", "--server-job-id", "job-gone"); c.Status != "FAILED" || c.FailureReason == nil ||
		*c.FailureReason != gatehouse.FailServerNotLive || c.Targets.Live != 0 {
		t.Errorf("a SERVER unlock of a server that is not live: %+v", c)
	}
	player := s.unlock("--scope", "PLAYER", "--platform-user-id", "222")
	if player.Status != "PENDING" || player.Targets.Live != 1 || player.PlatformUserID == nil || *player.PlatformUserID != "222" {
		t.Errorf("a PLAYER unlock of a player online: %+v", player)
	}
	if got := b.sync(); len(got) != 3 || got[2].ID.String() != player.ID {
		t.Errorf("job-b, which hosts the player, was sent %+v", got)
	}
	if got := a.sync(); len(got) != 3 {
		t.Errorf("job-a was sent %d commands, want the two UNIVERSE ones and its SERVER one", len(got))
	}
	if c := s.unlock("--scope", "PLAYER", "--platform-user-id", "999"); c.Status != "FAILED" || c.FailureReason == nil ||
		*c.FailureReason != gatehouse.FailPlayerNotOnline {
		t.Errorf("a PLAYER unlock of a player offline: %+v", c)
	}

	out, _, err := s.run(nil, "command", "unlock", "--org", s.org.ID, "--access-point", s.door.ID, "--as", "ops@acme.test",
		"--scope", "SERVER", "--server-job-id", "job-gone")
	if err != nil || !strings.Contains(out, "FAILED") || !strings.Contains(out, "SERVER_NOT_LIVE") {
		t.Errorf("the human line of a failed unlock: %q %v", out, err)
	}
	out, _, err = s.run(nil, "command", "unlock", "--org", s.org.ID, "--access-point", s.door.ID, "--as", "OPS@acme.test", "--scope", "UNIVERSE")
	if err != nil || !strings.Contains(out, "issued command") || !strings.Contains(out, "2 live servers") {
		t.Errorf("the human line of an unlock: %q %v", out, err)
	}
}

// TestCommandUnlockRefusals: every issue of an unlock is printed at once,
// named by its flag; --as must name a user of the organization who may
// issue commands; the location must name a universe.
func TestCommandUnlockRefusals(t *testing.T) {
	s := newUnlockSetup(t)
	base := []string{"command", "unlock", "--org", s.org.ID, "--access-point", s.door.ID}

	_, _, err := s.run(nil, append(base, "--as", "nobody@acme.test", "--scope", "SERVER", "--duration", "2h", "--ttl", "1s",
		"--note", strings.Repeat("n", gatehouse.MaxCommandNote+1))...)
	if !errors.Is(err, gatehouse.ErrInvalid) {
		t.Fatalf("a bad unlock: %v", err)
	}
	for _, want := range []string{"--as: nobody@acme.test is not a dashboard user", "--server-job-id: is required",
		"--duration: must be, in seconds, between 1 and 3600", "--ttl: must be, in seconds, between 5 and 3600", "--note"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("the issues %q do not say %q", err, want)
		}
	}
	if _, _, err := s.run(nil, append(base, "--as", "ops@acme.test", "--scope", "UNIVERSE", "--duration", "1500ms")...); !errors.Is(err, gatehouse.ErrInvalid) ||
		!strings.Contains(err.Error(), "whole number of seconds") {
		t.Errorf("a fraction of a second: %v", err)
	}
	if _, _, err := s.run(nil, append(base, "--as", "ops@acme.test", "--scope", "EVERYWHERE", "--platform-user-id", "12")...); !errors.Is(err, gatehouse.ErrInvalid) ||
		!strings.Contains(err.Error(), "--scope: must be one of UNIVERSE, SERVER, PLAYER") {
		t.Errorf("an unknown scope: %v", err)
	}
	if _, _, err := s.run(nil, append(base, "--scope", "UNIVERSE")...); !isUsage(err) || !strings.Contains(err.Error(), "--as") {
		t.Errorf("no --as: %v", err)
	}
	_, _, err = s.run(nil, append(base, "--as", "look@acme.test", "--scope", "UNIVERSE")...)
	if !errors.Is(err, gatehouse.ErrForbidden) || !strings.Contains(err.Error(), "look@acme.test may not issue commands") {
		t.Errorf("a viewer's unlock: %v", err)
	}
	_, _, err = s.run(nil, "command", "unlock", "--org", s.org.ID, "--access-point", s.shedDoor.ID, "--as", "ops@acme.test", "--scope", "UNIVERSE")
	if !errors.Is(err, gatehouse.ErrInvalid) || !strings.Contains(err.Error(), "--access-point") || !strings.Contains(err.Error(), "names no universe") {
		t.Errorf("a door whose location names no universe: %v", err)
	}
	var other record
	s.json(&other, "org", "create", "--name", "Rival")
	_, _, err = s.run(nil, "command", "unlock", "--org", other.ID, "--access-point", s.door.ID, "--as", "ops@acme.test", "--scope", "UNIVERSE")
	if !errors.Is(err, gatehouse.ErrInvalid) || !strings.Contains(err.Error(), "--as") {
		t.Errorf("another organization's user: %v", err)
	}
	var list []commandJSON
	s.json(&list, "command", "list", "--org", s.org.ID)
	if len(list) != 0 {
		t.Errorf("refused unlocks issued %+v", list)
	}
}

// TestCommandUnlockIdempotency: the same --idempotency-key with the same
// unlock answers the command first issued; with another unlock, a
// conflict.
func TestCommandUnlockIdempotency(t *testing.T) {
	s := newUnlockSetup(t)
	first := s.unlock("--scope", "UNIVERSE", "--idempotency-key", "drill-1")
	again := s.unlock("--scope", "UNIVERSE", "--ttl", "60s", "--idempotency-key", "drill-1")
	if again.ID != first.ID {
		t.Errorf("a retry issued %s, want the first command %s", again.ID, first.ID)
	}
	_, stderr, err := s.run(nil, "command", "unlock", "--org", s.org.ID, "--access-point", s.door.ID, "--as", "ops@acme.test",
		"--scope", "UNIVERSE", "--idempotency-key", "drill-1")
	if err != nil || !strings.Contains(stderr, "used before") {
		t.Errorf("a human retry: %v %q", err, stderr)
	}
	_, _, err = s.run(nil, "command", "unlock", "--org", s.org.ID, "--access-point", s.door.ID, "--as", "ops@acme.test",
		"--scope", "UNIVERSE", "--duration", "20s", "--idempotency-key", "drill-1")
	if !errors.Is(err, gatehouse.ErrConflict) {
		t.Errorf("the key with another unlock: %v", err)
	}
}

// TestCommandListShowCancel: list prints the k-of-N of each command and
// filters like GET /commands; show adds each server's delivery and
// answer after the servers synced; cancel moves an unsettled command and
// refuses a settled one with a non-zero exit.
func TestCommandListShowCancel(t *testing.T) {
	s := newUnlockSetup(t)
	a := &gameServer{g: s.gh, org: s.org.ID, job: "job-a", players: []string{"111"}}
	b := &gameServer{g: s.gh, org: s.org.ID, job: "job-b", players: []string{"222"}}
	c := &gameServer{g: s.gh, org: s.org.ID, job: "job-c"}
	a.sync()
	b.sync()
	c.sync()
	drill := s.unlock("--scope", "UNIVERSE")
	vip := s.unlock("--scope", "UNIVERSE", "--note", "vip")
	server := s.unlock("--scope", "SERVER", "--server-job-id", "job-a")
	failed := s.unlock("--scope", "PLAYER", "--platform-user-id", "999")

	if got := len(a.sync()); got != 3 {
		t.Errorf("job-a was sent %d commands, want 3", got)
	}
	b.sync()
	c.sync()
	a.sync(ack(drill.ID, gatehouse.AckExecuted, ""), ack(vip.ID, gatehouse.AckExecuted, ""))
	b.sync(ack(drill.ID, gatehouse.AckExecuted, ""), ack(vip.ID, gatehouse.AckExecuted, ""))
	c.sync(ack(drill.ID, gatehouse.AckFailed, "door jammed"), ack(vip.ID, gatehouse.AckExecuted, ""))

	var list []commandJSON
	s.json(&list, "command", "list", "--org", s.org.ID)
	if len(list) != 4 || list[0].ID != failed.ID || list[3].ID != drill.ID || list[0].Deliveries != nil {
		t.Fatalf("command list: %+v", list)
	}
	for _, f := range []struct {
		args []string
		want []string
	}{
		{[]string{"--status", "failed"}, []string{failed.ID, drill.ID}},
		{[]string{"--status", "DELIVERED"}, []string{server.ID}},
		{[]string{"--status", "executed"}, []string{vip.ID}},
		{[]string{"--scope", "SERVER"}, []string{server.ID}},
		{[]string{"--access-point", s.shedDoor.ID}, nil},
		{[]string{"--access-point", s.door.ID, "--scope", "PLAYER"}, []string{failed.ID}},
		{[]string{"--location", s.hq.ID, "--limit", "2"}, []string{failed.ID, server.ID}},
		{[]string{"--location", s.shed.ID}, nil},
	} {
		s.json(&list, append([]string{"command", "list", "--org", s.org.ID}, f.args...)...)
		var got []string
		for _, c := range list {
			got = append(got, c.ID)
		}
		if strings.Join(got, ",") != strings.Join(f.want, ",") {
			t.Errorf("command list %s = %v, want %v", strings.Join(f.args, " "), got, f.want)
		}
	}
	out, _, err := s.run(nil, "command", "list", "--org", s.org.ID)
	for _, want := range []string{drill.ID + "  ", "2/3 executed, 1 failed", "(1 of 3 servers failed)", "3/3 executed", "PLAYER 999", "0/0 executed",
		"Front door @ HQ", "(PLAYER_NOT_ONLINE)", "SERVER job-a"} {
		if err != nil || !strings.Contains(out, want) {
			t.Errorf("command list for people %q (%v), want %q in it", out, err, want)
		}
	}
	if _, stderr, _ := s.run(nil, "command", "list", "--org", s.org.ID, "--limit", "1"); !strings.Contains(stderr, "more commands") {
		t.Errorf("a page with more after it says nothing: %q", stderr)
	}
	_, _, err = s.run(nil, "command", "list", "--org", s.org.ID, "--status", "LOST", "--scope", "ROOM", "--limit", "0", "--location", "hq")
	for _, want := range []string{"--limit: must be between 1 and 500", "--status: must be one of PENDING,", "--scope", "--location: must be a UUID"} {
		if !errors.Is(err, gatehouse.ErrInvalid) || !strings.Contains(err.Error(), want) {
			t.Errorf("bad filters: %v, want %q in it", err, want)
		}
	}

	var shown commandJSON
	s.json(&shown, "command", "show", drill.ID)
	if shown.Status != "FAILED" || shown.FailureReason == nil || *shown.FailureReason != "1 of 3 servers failed" ||
		shown.Targets != (struct{ Live, Delivered, Executed, Failed, Joined int }{3, 3, 2, 1, 0}) || len(shown.Deliveries) != 3 {
		t.Fatalf("command show of the drill: %+v", shown)
	}
	for i, want := range []struct{ job, result, detail string }{{"job-a", "EXECUTED", ""}, {"job-b", "EXECUTED", ""}, {"job-c", "FAILED", "door jammed"}} {
		d := shown.Deliveries[i]
		if d.ServerJobID != want.job || !d.Target || d.DeliveredAt == nil || d.Result == nil || *d.Result != want.result ||
			(want.detail != "") != (d.Detail != nil) || (d.Detail != nil && *d.Detail != want.detail) {
			t.Errorf("delivery %d: %+v, want %+v", i, d, want)
		}
	}
	out, _, err = s.run(nil, "command", "show", drill.ID)
	for _, want := range []string{"FAILED", "1 of 3 servers failed", "job-c", "door jammed", "requested by: ops@acme.test", "2/3 executed"} {
		if err != nil || !strings.Contains(out, want) {
			t.Errorf("command show for people %q (%v), want %q in it", out, err, want)
		}
	}
	if _, _, err := s.run(nil, "command", "show", uuid.NewString()); !errors.Is(err, gatehouse.ErrNotFound) {
		t.Errorf("show of an unknown command: %v", err)
	}

	// Cancel.
	if _, _, err := s.run(nil, "command", "cancel", server.ID, "--as", "look@acme.test"); !errors.Is(err, gatehouse.ErrForbidden) {
		t.Errorf("a viewer's cancel: %v", err)
	}
	var cancelled commandJSON
	s.json(&cancelled, "command", "cancel", server.ID, "--as", "ops@acme.test")
	if cancelled.ID != server.ID || cancelled.Status != "CANCELLED" {
		t.Errorf("cancel: %+v", cancelled)
	}
	if again := a.sync(); len(again) != 1 || again[0].ID.String() != server.ID || again[0].Status != gatehouse.CommandCancelled {
		t.Errorf("job-a is not told of the cancellation: %+v", again)
	}
	for id, status := range map[string]string{server.ID: "CANCELLED", vip.ID: "EXECUTED", drill.ID: "FAILED"} {
		_, stderr, err := s.run(nil, "command", "cancel", id)
		if !errors.Is(err, gatehouse.ErrConflict) || !strings.Contains(err.Error(), "cannot be cancelled") ||
			!strings.Contains(err.Error(), "it is "+status) {
			t.Errorf("cancel of a %s command: %v %q", status, err, stderr)
		}
	}
	if _, _, err := s.run(nil, "command", "cancel", uuid.NewString()); !errors.Is(err, gatehouse.ErrNotFound) {
		t.Errorf("cancel of an unknown command: %v", err)
	}

	// The audit log names the user of --as, for the issue and the cancel.
	var entries []struct {
		Action string
		Actor  struct{ Type, ID, Email string }
	}
	s.json(&entries, "audit", "list", "--org", s.org.ID, "--action", "command.cancelled")
	if len(entries) != 1 || entries[0].Actor.Type != "user" || entries[0].Actor.Email != "ops@acme.test" || entries[0].Actor.ID == "" {
		t.Errorf("the audit of the cancel: %+v", entries)
	}
	s.json(&entries, "audit", "list", "--org", s.org.ID, "--action", "command.issued")
	if len(entries) != 4 || entries[0].Actor.Email != "ops@acme.test" {
		t.Errorf("the audit of the issues: %+v", entries)
	}
}
