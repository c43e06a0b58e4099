package client_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/gatehouse/gatehouse"
	"github.com/gatehouse/gatehouse/client"
	"github.com/gatehouse/gatehouse/internal/apitest"
)

// TestLockdownRoundTrip: a game server waits in its long poll; an
// operator's program starts an ORGANIZATION lockdown through the client;
// the server receives its LOCKDOWN command within a second of the start
// and acknowledges it, which counts in the lockdown's targets; the
// lockdown lists as active, and is released (twice: the same answer).
func TestLockdownRoundTrip(t *testing.T) {
	a := apitest.Start(t, generous)
	ctx := context.Background()
	ops := newClient(t, a)
	server, err := client.New(a.URL, a.NewKey(t, gatehouse.ScopeGameServer), client.WithHTTPClient(a.Client))
	must(t, err)
	zero, wait := 0, 20
	first, err := server.Sync(ctx, "job-1", client.SyncRequest{UniverseID: "42", WaitSeconds: &zero})
	must(t, err)
	var (
		wg       sync.WaitGroup
		polled   *client.SyncResult
		pollErr  error
		received time.Time
	)
	wg.Go(func() {
		polled, pollErr = server.Sync(ctx, "job-1", client.SyncRequest{UniverseID: "42", Cursor: first.Cursor, WaitSeconds: &wait})
		received = time.Now()
	})
	time.Sleep(100 * time.Millisecond) // the poll is waiting
	started := time.Now()
	l, err := ops.StartLockdown(ctx, client.LockdownRequest{Scope: "ORGANIZATION", Reason: "Drill"})
	must(t, err)
	if !l.Active || l.Scope != "ORGANIZATION" || l.Targets.Live != 1 || l.IssuedByKey == nil {
		t.Fatalf("started %+v", l)
	}
	wg.Wait()
	must(t, pollErr)
	if len(polled.Commands) != 1 || polled.Commands[0].Type != "LOCKDOWN" || polled.Commands[0].Lockdown == nil ||
		polled.Commands[0].Lockdown.ID != l.ID || polled.Commands[0].Lockdown.ReleasedAt != nil {
		t.Fatalf("long poll: %+v", polled.Commands)
	}
	// Not a timed assertion of speed: the poll waits 20 s, and a command
	// that only came with its end would be missed.
	if received.Sub(started) > 10*time.Second {
		t.Errorf("the LOCKDOWN command came %v after the start, with the poll's end", received.Sub(started))
	}
	_, err = server.Sync(ctx, "job-1", client.SyncRequest{UniverseID: "42", Cursor: polled.Cursor, WaitSeconds: &zero,
		Acks: []client.Ack{{CommandID: polled.Commands[0].ID, Result: "EXECUTED"}}})
	must(t, err)
	got, err := ops.Lockdown(ctx, l.ID)
	must(t, err)
	if got.Targets.Executed != 1 {
		t.Errorf("targets after the ack %+v", got.Targets)
	}
	n := 0
	for ld, err := range ops.Lockdowns(ctx, true) {
		must(t, err)
		if ld.ID == l.ID {
			n++
		}
	}
	if n != 1 {
		t.Errorf("the active list has it %d times", n)
	}
	released, err := ops.ReleaseLockdown(ctx, l.ID)
	must(t, err)
	again, err := ops.ReleaseLockdown(ctx, l.ID)
	must(t, err)
	if released.Active || released.ReleasedAt == nil || !again.ReleasedAt.Equal(*released.ReleasedAt) || released.ReleasedBy.Type != "key" {
		t.Errorf("released %+v, again %+v", released, again)
	}
}
