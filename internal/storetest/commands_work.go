package storetest

import (
	"context"
	"errors"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/gatehouse/gatehouse"
)

// testSweepCommands: every unsettled command past its deadline moves by
// Expire once, even when two sweeps run at once; settled and running
// ones stay; stale idempotency keys and servers are forgotten.
func testSweepCommands(t *testing.T, f *fixture) {
	p, q := f.unlockPlace("acme"), f.unlockPlace("beta")
	f.heartbeat(p.org.ID, "s1")
	f.heartbeat(p.org.ID, "s2")
	in := f.command(p, gatehouse.ScopeUniverse)
	in.Idempotency = &gatehouse.IdempotencyKey{Key: "k", Digest: [32]byte{1}, At: f.now}
	pending := f.create(in)
	split := f.create(f.command(p, gatehouse.ScopeUniverse, "s1", "s2"))
	done := f.create(f.command(p, gatehouse.ScopeServer, "s1"))
	foreign := f.create(f.command(q, gatehouse.ScopeUniverse))
	f.take(p.org.ID, "s1", 0)
	f.ack(p.org.ID, "s1", gatehouse.Ack{CommandID: split.ID, Result: gatehouse.AckFailed},
		gatehouse.Ack{CommandID: done.ID, Result: gatehouse.AckExecuted})
	f.now = f.now.Add(30 * time.Second)
	later := f.create(f.command(p, gatehouse.ScopeUniverse))

	if n, err := f.s.SweepCommands(ctx, f.now); err != nil || n != 0 {
		t.Errorf("sweep before any deadline: %d, %v", n, err)
	}
	f.now = time.Time(pending.ExpiresAt)
	var (
		wg    sync.WaitGroup
		mu    sync.Mutex
		total int
	)
	for range 2 {
		wg.Go(func() {
			n, err := f.s.SweepCommands(ctx, f.now)
			if err != nil {
				t.Errorf("sweep: %v", err)
			}
			mu.Lock()
			total += n
			mu.Unlock()
		})
	}
	wg.Wait()
	if total != 3 {
		t.Errorf("two sweeps at once expired %d commands, want 3 (each once)", total)
	}
	if got := f.find(p.org.ID, pending.ID); got.Status != gatehouse.CommandExpired || got.FailureReason != nil ||
		!time.Time(got.StatusAt).Equal(f.now) {
		t.Errorf("pending command after its deadline = %s at %v", got.Status, got.StatusAt)
	}
	if got := f.find(p.org.ID, split.ID); got.Status != gatehouse.CommandFailed || got.FailureReason == nil ||
		*got.FailureReason != "1 of 2 servers failed" {
		t.Errorf("command with a failed target after its deadline = %s (%v)", got.Status, got.FailureReason)
	}
	if got := f.find(q.org.ID, foreign.ID); got.Status != gatehouse.CommandExpired {
		t.Errorf("another organization's command = %s, want EXPIRED: the sweep is for every organization", got.Status)
	}
	if got := f.find(p.org.ID, done.ID); got.Status != gatehouse.CommandExecuted {
		t.Errorf("executed command swept to %s", got.Status)
	}
	if got := f.find(p.org.ID, later.ID); got.Status != gatehouse.CommandPending {
		t.Errorf("command before its deadline swept to %s", got.Status)
	}
	if n, err := f.s.SweepCommands(ctx, f.now); err != nil || n != 0 {
		t.Errorf("a third sweep: %d, %v", n, err)
	}
	if _, _, err := f.s.FindIdempotencyKey(ctx, p.org.ID, "k", time.Time{}); err != nil {
		t.Errorf("a fresh key was forgotten: %v", err)
	}

	// A day later: the key and the servers unseen since are forgotten.
	f.now = f.now.Add(gatehouse.IdempotencyWindow)
	f.heartbeat(p.org.ID, "s3")
	if n, err := f.s.SweepCommands(ctx, f.now); err != nil || n != 1 {
		t.Errorf("sweep a day later: %d, %v; want the later command", n, err)
	}
	_, _, err := f.s.FindIdempotencyKey(ctx, p.org.ID, "k", time.Time{})
	wantErr(t, "a stale key after the sweep", err, gatehouse.ErrNotFound)
	live, err := f.s.LiveServers(ctx, p.org.ID, universe, time.Time{}, nil)
	must(t, err)
	if got := jobIDs(live); !slices.Equal(got, []string{"s3"}) {
		t.Errorf("servers after the sweep: %v, want only the one seen lately", got)
	}
	// A forgotten server that comes back starts anew.
	f.heartbeat(p.org.ID, "s1", "7")
	live, err = f.s.LiveServers(ctx, p.org.ID, universe, f.now, ptr("7"))
	must(t, err)
	if len(live) != 1 || !live[0].StartedAt.Equal(f.now) {
		t.Errorf("returning server = %+v", live)
	}
}

// wake is a wake as a watcher receives it.
type wake = gatehouse.Wake

// testWatchCommands: the wakes that CreateCommand and CancelCommand
// leave reach a watcher within a second; the watcher ends with its
// context.
func testWatchCommands(t *testing.T, f *fixture) {
	p := f.unlockPlace("acme")
	wakes, stop := watch(t, f.s)
	c := f.create(f.command(p, gatehouse.ScopeUniverse))
	WaitWake(t, wakes, wake{OrgID: p.org.ID, UniverseID: universe}, time.Second, "CreateCommand")
	_, err := f.s.CancelCommand(ctx, cancelledEntry(), p.org.ID, c.ID, f.now)
	must(t, err)
	WaitWake(t, wakes, wake{OrgID: p.org.ID, UniverseID: universe}, time.Second, "CancelCommand")
	// A SERVER unlock wakes its server only.
	f.create(f.command(p, gatehouse.ScopeServer, "s1"))
	WaitWake(t, wakes, wake{OrgID: p.org.ID, UniverseID: universe, JobID: "s1"}, time.Second, "CreateCommand of a SERVER unlock")
	if err := stop(); !errors.Is(err, context.Canceled) {
		t.Errorf("WatchCommands returned %v, want context.Canceled", err)
	}
}

// watch runs WatchCommands on s until stop, which returns its error.
// It gives the watcher up to half a second to start listening: until
// its first wake of anything, or that time.
func watch(t *testing.T, s gatehouse.Store) (<-chan wake, func() error) {
	t.Helper()
	wctx, cancel := context.WithCancel(ctx)
	wakes := make(chan wake, 1000)
	done := make(chan error, 1)
	go func() {
		done <- s.WatchCommands(wctx, func(w wake) {
			select {
			case wakes <- w:
			default:
			}
		})
	}()
	select {
	case <-wakes:
	case <-time.After(500 * time.Millisecond):
	}
	stopped := false
	stop := func() error {
		if stopped {
			return nil
		}
		stopped = true
		cancel()
		select {
		case err := <-done:
			return err
		case <-time.After(5 * time.Second):
			return errors.New("WatchCommands did not end with its context")
		}
	}
	t.Cleanup(func() { stop() })
	return wakes, stop
}

// WaitWake waits up to within for want among the wakes, dropping the
// others. When none comes it marks t failed (what names the step) and
// returns false, for the caller to stop or go on.
func WaitWake(t testing.TB, wakes <-chan gatehouse.Wake, want gatehouse.Wake, within time.Duration, what string) bool {
	t.Helper()
	deadline := time.After(within)
	for {
		select {
		case w := <-wakes:
			if w == want {
				return true
			}
		case <-deadline:
			t.Errorf("%s: no wake of %v within %v", what, want, within)
			return false
		}
	}
}

// testTryLease: a lease is held until it expires, renewed by its holder,
// and taken by another holder only after it expired; names are apart.
func testTryLease(t *testing.T, f *fixture) {
	start := f.now
	ttl := 5 * time.Second
	for _, step := range []struct {
		holder string
		after  time.Duration
		want   bool
	}{
		{"a", 0, true},
		{"b", time.Second, false},
		{"a", 2 * time.Second, true}, // renewed until 7 s
		{"b", 6 * time.Second, false},
		{"b", 7 * time.Second, true}, // a's lease ended
		{"a", 8 * time.Second, false},
		{"b", 9 * time.Second, true},
	} {
		ok, err := f.s.TryLease(ctx, "sweep", step.holder, start.Add(step.after), ttl)
		if err != nil || ok != step.want {
			t.Errorf("%s at %v: %v, %v; want %v", step.holder, step.after, ok, err, step.want)
		}
	}
	if ok, err := f.s.TryLease(ctx, "other", "a", start.Add(9*time.Second), ttl); err != nil || !ok {
		t.Errorf("another lease name: %v, %v", ok, err)
	}
}
