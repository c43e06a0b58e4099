package storetest

import (
	"slices"
	"testing"
	"time"

	"github.com/gatehouse/gatehouse"
	"github.com/google/uuid"
)

// batchedTakes runs a test of TakeCommands with every take going through
// TakeCommandsBatch, one request a call: a batch of one answers as
// TakeCommands does.
func batchedTakes(fn func(*testing.T, *fixture)) func(*testing.T, *fixture) {
	return func(t *testing.T, f *fixture) {
		f.batched = true
		fn(t, f)
	}
}

// testTakeCommandsBatch: one batch answers each server as TakeCommands
// would, in one call: targets, a server that joined, one that never
// synced, a job id asked twice, and another organization's servers.
func testTakeCommandsBatch(t *testing.T, f *fixture) {
	p, q := f.unlockPlace("acme"), f.unlockPlace("beta")
	for _, job := range []string{"s1", "s2", "s3", "s4"} {
		f.heartbeat(p.org.ID, job)
	}
	f.heartbeat(q.org.ID, "s1")
	server := f.create(f.command(p, gatehouse.ScopeServer, "s1"))
	f.now = f.now.Add(time.Millisecond)
	all := f.create(f.command(p, gatehouse.ScopeUniverse, "s1", "s2", "s3"))
	f.now = f.now.Add(time.Second)

	batch := func(org uuid.UUID, reqs ...gatehouse.TakeRequest) []gatehouse.Taken {
		t.Helper()
		taken, err := f.s.TakeCommandsBatch(ctx, org, universe, reqs, f.now)
		must(t, err)
		if len(taken) != len(reqs) {
			t.Fatalf("%d requests, %d answers", len(reqs), len(taken))
		}
		return taken
	}
	taken := batch(p.org.ID,
		gatehouse.TakeRequest{JobID: "s1"}, gatehouse.TakeRequest{JobID: "s2"}, gatehouse.TakeRequest{JobID: "ghost", Cursor: 5},
		gatehouse.TakeRequest{JobID: "s4"}, gatehouse.TakeRequest{JobID: "s1"}, gatehouse.TakeRequest{JobID: "s3", Cursor: 7})
	want := []struct {
		ids    []uuid.UUID
		cursor int64
	}{
		{[]uuid.UUID{server.ID, all.ID}, 1},
		{[]uuid.UUID{all.ID}, 1},
		{[]uuid.UUID{}, 0}, // never synced
		{[]uuid.UUID{all.ID}, 1},
		// The same server again with the same cursor: its answer was
		// lost, it gets both again under the next generation.
		{[]uuid.UUID{server.ID, all.ID}, 2},
		{[]uuid.UUID{all.ID}, 8}, // above its cursor
	}
	for i, w := range want {
		if got := commandIDs(taken[i].Commands); !slices.Equal(got, w.ids) || taken[i].Cursor != w.cursor {
			t.Errorf("request %d: %v, cursor %d; want %v, cursor %d", i, got, taken[i].Cursor, w.ids, w.cursor)
		}
		for _, c := range taken[i].Commands {
			if c.Status != gatehouse.CommandDelivered || c.RemainingSeconds == nil || *c.RemainingSeconds != 30 || c.OrgID != p.org.ID {
				t.Errorf("request %d took %+v (remaining %v)", i, c, c.RemainingSeconds)
			}
		}
	}
	got := f.find(p.org.ID, all.ID)
	if got.Targets != (gatehouse.CommandTargets{Live: 3, Delivered: 3, Joined: 1}) {
		t.Errorf("targets = %+v, want 3 of 3 delivered and s4 joined", got.Targets)
	}
	wantDeliveries(t, got, "s1", "s2", "s3", "s4")
	if got := f.find(p.org.ID, server.ID); got.Targets != (gatehouse.CommandTargets{Live: 1, Delivered: 1}) ||
		got.StartedAt == nil || !time.Time(*got.StartedAt).Equal(f.now) {
		t.Errorf("SERVER command after the batch: %+v", got)
	}

	// Confirmed: nothing more, cursors kept.
	f.now = f.now.Add(time.Second)
	taken = batch(p.org.ID, gatehouse.TakeRequest{JobID: "s1", Cursor: 2}, gatehouse.TakeRequest{JobID: "s4", Cursor: 1},
		gatehouse.TakeRequest{JobID: "s3", Cursor: 8})
	for i, cur := range []int64{2, 1, 8} {
		if len(taken[i].Commands) != 0 || taken[i].Cursor != cur {
			t.Errorf("confirmed request %d: %v, cursor %d", i, commandIDs(taken[i].Commands), taken[i].Cursor)
		}
	}
	// Another organization's servers of the same names: nothing of acme's.
	if taken := batch(q.org.ID, gatehouse.TakeRequest{JobID: "s1"}, gatehouse.TakeRequest{JobID: "s2"}); len(taken[0].Commands)+len(taken[1].Commands) != 0 {
		t.Errorf("beta's servers took %v %v", commandIDs(taken[0].Commands), commandIDs(taken[1].Commands))
	}
	if taken := batch(p.org.ID); len(taken) != 0 {
		t.Errorf("an empty batch answered %d", len(taken))
	}
}
