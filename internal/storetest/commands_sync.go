package storetest

import (
	"slices"
	"testing"
	"time"

	"github.com/gatehouse/gatehouse"
	"github.com/google/uuid"
)

// heartbeat records a sync of the organization's server job in universe
// 42 now, hosting players.
func (f *fixture) heartbeat(org uuid.UUID, job string, players ...string) {
	f.t.Helper()
	if players == nil {
		players = []string{}
	}
	must(f.t, f.s.Heartbeat(ctx, org, gatehouse.GameServer{JobID: job, UniverseID: universe, Players: players, SeenAt: f.now, StartedAt: f.now}, gatehouse.OrgServerCaps))
}

// take takes what is due to the organization's server job of universe 42.
func (f *fixture) take(org uuid.UUID, job string, cursor int64) ([]gatehouse.Command, int64) {
	f.t.Helper()
	if f.batched {
		taken, err := f.s.TakeCommandsBatch(ctx, org, universe, []gatehouse.TakeRequest{{JobID: job, Cursor: cursor}}, f.now)
		must(f.t, err)
		if len(taken) != 1 {
			f.t.Fatalf("a batch of one request answered %d", len(taken))
		}
		return taken[0].Commands, taken[0].Cursor
	}
	cmds, next, err := f.s.TakeCommands(ctx, org, job, universe, cursor, f.now)
	must(f.t, err)
	return cmds, next
}

// ack applies acks of the organization's server job now and returns the
// rejected ids.
func (f *fixture) ack(org uuid.UUID, job string, acks ...gatehouse.Ack) []uuid.UUID {
	f.t.Helper()
	rejected, err := f.s.AckCommands(ctx, org, job, acks, f.now)
	must(f.t, err)
	return rejected
}

func commandIDs(cmds []gatehouse.Command) []uuid.UUID {
	out := make([]uuid.UUID, len(cmds))
	for i, c := range cmds {
		out[i] = c.ID
	}
	return out
}

func jobIDs(servers []gatehouse.GameServer) []string {
	out := make([]string, len(servers))
	for i, s := range servers {
		out[i] = s.JobID
	}
	return out
}

// testHeartbeat: a sync replaces the server's players, moves its seenAt
// and keeps the startedAt of its first sync; another organization's
// server of the same job id is another server.
func testHeartbeat(t *testing.T, f *fixture) {
	p, q := f.unlockPlace("acme"), f.unlockPlace("beta")
	first := f.now
	must(t, f.s.Heartbeat(ctx, p.org.ID, gatehouse.GameServer{JobID: "job-1", UniverseID: universe, PlaceID: ptr("99"),
		Players: []string{"1", "2"}, SeenAt: f.now, StartedAt: f.now}, gatehouse.OrgServerCaps))
	f.now = f.now.Add(10 * time.Second)
	must(t, f.s.Heartbeat(ctx, p.org.ID, gatehouse.GameServer{JobID: "job-1", UniverseID: universe, PlaceID: ptr("99"),
		Players: []string{"3"}, SeenAt: f.now, StartedAt: f.now}, gatehouse.OrgServerCaps))
	live, err := f.s.LiveServers(ctx, p.org.ID, universe, first, nil)
	must(t, err)
	if len(live) != 1 {
		t.Fatalf("live = %+v, want one server", live)
	}
	s := live[0]
	if s.JobID != "job-1" || s.UniverseID != universe || s.PlaceID == nil || *s.PlaceID != "99" ||
		!slices.Equal(s.Players, []string{"3"}) || !s.SeenAt.Equal(f.now) || !s.StartedAt.Equal(first) {
		t.Errorf("server = %+v", s)
	}
	for player, want := range map[string][]string{"1": {}, "2": {}, "3": {"job-1"}} {
		live, err := f.s.LiveServers(ctx, p.org.ID, universe, first, ptr(player))
		must(t, err)
		if got := jobIDs(live); !slices.Equal(got, want) {
			t.Errorf("servers hosting %s: %v, want %v", player, got, want)
		}
	}
	live, err = f.s.LiveServers(ctx, q.org.ID, universe, first, nil)
	must(t, err)
	if len(live) != 0 {
		t.Errorf("another organization sees %+v", live)
	}
	must(t, f.s.Heartbeat(ctx, q.org.ID, gatehouse.GameServer{JobID: "job-1", UniverseID: universe,
		Players: []string{"3"}, SeenAt: f.now, StartedAt: f.now}, gatehouse.OrgServerCaps))
	live, err = f.s.LiveServers(ctx, q.org.ID, universe, first, ptr("3"))
	must(t, err)
	if len(live) != 1 || live[0].PlaceID != nil || !live[0].StartedAt.Equal(f.now) {
		t.Errorf("the other organization's own server = %+v", live)
	}
	// An empty list empties it.
	f.heartbeat(p.org.ID, "job-1")
	if live, _ := f.s.LiveServers(ctx, p.org.ID, universe, first, ptr("3")); len(live) != 0 {
		t.Errorf("servers hosting 3 after it left: %+v", live)
	}
}

// testLiveServers: the universe's servers seen at or after since, most
// recently seen first, only those hosting the player when one is given.
func testLiveServers(t *testing.T, f *fixture) {
	p := f.unlockPlace("acme")
	start := f.now
	f.heartbeat(p.org.ID, "old", "7")
	f.now = f.now.Add(30 * time.Second)
	f.heartbeat(p.org.ID, "b", "7", "8")
	f.now = f.now.Add(500 * time.Millisecond)
	f.heartbeat(p.org.ID, "a", "8")
	must(t, f.s.Heartbeat(ctx, p.org.ID, gatehouse.GameServer{JobID: "elsewhere", UniverseID: "43",
		Players: []string{"7"}, SeenAt: f.now, StartedAt: f.now}, gatehouse.OrgServerCaps))
	f.now = f.now.Add(500 * time.Millisecond)
	f.heartbeat(p.org.ID, "c")
	for _, tc := range []struct {
		since  time.Time
		player *string
		want   []string
	}{
		{start, nil, []string{"c", "a", "b", "old"}},
		{start.Add(time.Second), nil, []string{"c", "a", "b"}},
		{start.Add(30 * time.Second), nil, []string{"c", "a", "b"}},
		{f.now, nil, []string{"c"}},
		{f.now.Add(time.Millisecond), nil, []string{}},
		{start, ptr("7"), []string{"b", "old"}},
		{start.Add(time.Second), ptr("7"), []string{"b"}},
		{start, ptr("8"), []string{"a", "b"}},
		{start, ptr("9"), []string{}},
	} {
		live, err := f.s.LiveServers(ctx, p.org.ID, universe, tc.since, tc.player)
		must(t, err)
		if got := jobIDs(live); !slices.Equal(got, tc.want) {
			t.Errorf("since %v, player %v: %v, want %v", tc.since.Sub(start), tc.player, jobIDs(live), tc.want)
		}
	}
	if live, _ := f.s.LiveServers(ctx, p.org.ID, "43", start, nil); !slices.Equal(jobIDs(live), []string{"elsewhere"}) {
		t.Errorf("universe 43: %v", jobIDs(live))
	}
}

// testAckCommands: an ack counts only for a command delivered to that
// server and not answered yet; its row takes the result, detail and
// time, and the command moves by Settle. Every other ack is returned.
func testAckCommands(t *testing.T, f *fixture) {
	p, q := f.unlockPlace("acme"), f.unlockPlace("beta")
	f.heartbeat(p.org.ID, "s1")
	f.heartbeat(p.org.ID, "s2")
	server := f.create(f.command(p, gatehouse.ScopeServer, "s1"))
	notYet := f.create(f.command(p, gatehouse.ScopeServer, "s2"))
	both := f.create(f.command(p, gatehouse.ScopeUniverse, "s1", "s2"))
	split := f.create(f.command(p, gatehouse.ScopeUniverse, "s1", "s2"))
	foreign := f.create(f.command(q, gatehouse.ScopeServer, "s1"))
	f.heartbeat(q.org.ID, "s1")
	f.take(q.org.ID, "s1", 0)
	f.take(p.org.ID, "s1", 0)
	f.now = f.now.Add(time.Second)

	executed := func(id uuid.UUID) gatehouse.Ack { return gatehouse.Ack{CommandID: id, Result: gatehouse.AckExecuted} }
	unknown := gatehouse.NewID()
	rejected := f.ack(p.org.ID, "s1", executed(server.ID), executed(notYet.ID), executed(both.ID),
		gatehouse.Ack{CommandID: split.ID, Result: gatehouse.AckFailed, Detail: ptr("door jammed")}, executed(foreign.ID), executed(unknown))
	if want := []uuid.UUID{notYet.ID, foreign.ID, unknown}; !slices.Equal(rejected, want) {
		t.Errorf("rejected %v, want %v", rejected, want)
	}
	got := f.find(p.org.ID, server.ID)
	if got.Status != gatehouse.CommandExecuted || !time.Time(got.StatusAt).Equal(f.now) ||
		got.Targets != (gatehouse.CommandTargets{Live: 1, Delivered: 1, Executed: 1}) {
		t.Errorf("SERVER command after its ack = %+v", got)
	}
	if d := got.Deliveries[0]; d.Result == nil || *d.Result != gatehouse.AckExecuted || d.Detail != nil ||
		d.AckedAt == nil || !time.Time(*d.AckedAt).Equal(f.now) {
		t.Errorf("delivery = %+v", d)
	}
	if got := f.find(p.org.ID, notYet.ID); got.Status != gatehouse.CommandPending || got.Deliveries[0].Result != nil {
		t.Errorf("an ack of another server's command changed it: %+v", got)
	}
	if got := f.find(q.org.ID, foreign.ID); got.Status != gatehouse.CommandDelivered || got.Targets.Executed != 0 {
		t.Errorf("an ack changed another organization's command: %+v", got)
	}
	// UNIVERSE: settled when every target answered.
	if got := f.find(p.org.ID, both.ID); got.Status != gatehouse.CommandDelivered ||
		got.Targets != (gatehouse.CommandTargets{Live: 2, Delivered: 1, Executed: 1}) {
		t.Errorf("UNIVERSE command with one of two acks = %+v", got)
	}
	if got := f.find(p.org.ID, split.ID); got.Status != gatehouse.CommandDelivered || got.Targets.Failed != 1 ||
		got.Deliveries[0].Detail == nil || *got.Deliveries[0].Detail != "door jammed" {
		t.Errorf("UNIVERSE command with one failure of two = %+v", got)
	}

	// An answered row does not count twice.
	if rejected := f.ack(p.org.ID, "s1", gatehouse.Ack{CommandID: server.ID, Result: gatehouse.AckFailed}); !slices.Equal(rejected, []uuid.UUID{server.ID}) {
		t.Errorf("a second answer: rejected %v", rejected)
	}
	if got := f.find(p.org.ID, server.ID); got.Status != gatehouse.CommandExecuted || got.Targets.Failed != 0 {
		t.Errorf("a second answer changed the command: %+v", got)
	}

	f.now = f.now.Add(time.Second)
	f.take(p.org.ID, "s2", 0)
	if rejected := f.ack(p.org.ID, "s2", executed(both.ID), executed(split.ID)); len(rejected) != 0 {
		t.Errorf("rejected %v", rejected)
	}
	if got := f.find(p.org.ID, both.ID); got.Status != gatehouse.CommandExecuted || got.FailureReason != nil ||
		got.Targets != (gatehouse.CommandTargets{Live: 2, Delivered: 2, Executed: 2}) || !time.Time(got.StatusAt).Equal(f.now) {
		t.Errorf("UNIVERSE command every target executed = %+v", got)
	}
	if got := f.find(p.org.ID, split.ID); got.Status != gatehouse.CommandFailed || got.FailureReason == nil ||
		*got.FailureReason != "1 of 2 servers failed" || got.Targets != (gatehouse.CommandTargets{Live: 2, Delivered: 2, Executed: 1, Failed: 1}) {
		t.Errorf("UNIVERSE command one target failed = %+v (%v)", got, got.FailureReason)
	}

	// A SERVER command fails with the server's message.
	jam := f.create(f.command(p, gatehouse.ScopeServer, "s2"))
	f.take(p.org.ID, "s2", 0)
	f.ack(p.org.ID, "s2", gatehouse.Ack{CommandID: jam.ID, Result: gatehouse.AckFailed, Detail: ptr("no such door")})
	if got := f.find(p.org.ID, jam.ID); got.Status != gatehouse.CommandFailed || *got.FailureReason != "no such door" {
		t.Errorf("SERVER command failed = %+v", got)
	}
	// A UNIVERSE command with no target settles on a joined server's answer.
	lone := f.create(f.command(p, gatehouse.ScopeUniverse))
	f.take(p.org.ID, "s2", 0)
	f.ack(p.org.ID, "s2", executed(lone.ID))
	if got := f.find(p.org.ID, lone.ID); got.Status != gatehouse.CommandExecuted || got.Targets != (gatehouse.CommandTargets{Joined: 1}) {
		t.Errorf("UNIVERSE command without targets, after a joined server's ack = %+v", got)
	}
}
