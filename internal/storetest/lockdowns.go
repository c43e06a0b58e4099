package storetest

import (
	"sync"
	"testing"
	"time"

	"github.com/gatehouse/gatehouse"
	"github.com/google/uuid"
)

// newLockdown is a lockdown as the service builds it: started now by p's
// user, with one start command to the servers jobs of universe 42.
func (f *fixture) newLockdown(p unlockPlace, scope gatehouse.LockdownScope, until *time.Time, jobs ...string) gatehouse.NewLockdown {
	uid := p.user.ID
	l := gatehouse.Lockdown{ID: gatehouse.NewID(), OrgID: p.org.ID, Scope: scope, Reason: "Intruder",
		StartedAt: gatehouse.Time(f.now), Active: true}
	switch scope {
	case gatehouse.LockdownUniverse:
		l.UniverseID = ptr(universe)
	case gatehouse.LockdownLocation:
		l.LocationID, l.Location = &p.loc.ID, &gatehouse.NamedRef{ID: p.loc.ID, Name: p.loc.Name}
	}
	if until != nil {
		u := gatehouse.Time(*until)
		l.Until = &u
	}
	return gatehouse.NewLockdown{Lockdown: l, RequestedByUser: &uid, Commands: f.lockdownCommands(l, &uid, jobs)}
}

func (f *fixture) lockdownCommands(l gatehouse.Lockdown, user *uuid.UUID, jobs []string) []gatehouse.IssuedCommand {
	snapshot := l
	c := gatehouse.IssuedCommand{Command: gatehouse.Command{ID: gatehouse.NewID(), OrgID: l.OrgID, Type: gatehouse.CommandLockdown,
		Status: gatehouse.CommandPending, Scope: gatehouse.ScopeUniverse, UniverseID: universe, IssuedAt: gatehouse.Time(f.now),
		ExpiresAt: gatehouse.Time(f.now.Add(gatehouse.LockdownCommandTTL)), StatusAt: gatehouse.Time(f.now), Lockdown: &snapshot},
		TargetJobIDs: jobs, RequestedByUser: user}
	if l.Location != nil {
		c.Location = *l.Location
	}
	return []gatehouse.IssuedCommand{c}
}

func (f *fixture) startLockdown(nl gatehouse.NewLockdown) gatehouse.Lockdown {
	f.t.Helper()
	l, err := f.s.CreateLockdown(ctx, gatehouse.SystemEntry(gatehouse.AuditLockdownStarted), nl)
	must(f.t, err)
	return l
}

// testLockdowns: a lockdown is stored with its start command, found,
// listed (active or all, newest first, in pages), covers what its scope
// says at the instants it runs, and is released once; another
// organization neither finds nor releases it.
func testLockdowns(t *testing.T, f *fixture) {
	p, q := f.unlockPlace("acme"), f.unlockPlace("beta")
	other := f.location(p.org.ID, "Annex") // no universe
	f.heartbeat(p.org.ID, "s1")
	start := f.now
	nl := f.newLockdown(p, gatehouse.LockdownLocation, nil, "s1")
	l := f.startLockdown(nl)
	if l.ID != nl.ID || l.Scope != gatehouse.LockdownLocation || l.Location == nil || l.Location.Name != "HQ" || !l.Active ||
		l.RequestedBy == nil || l.RequestedBy.ID != p.user.ID || l.Targets.Live != 1 || l.ReleasedAt != nil || l.Reason != "Intruder" {
		t.Fatalf("created %+v", l)
	}
	c := f.find(p.org.ID, nl.Commands[0].ID)
	if c.Type != gatehouse.CommandLockdown || c.Lockdown == nil || c.Lockdown.ID != l.ID || c.Location.ID != p.loc.ID || c.AccessPoint.ID != uuid.Nil {
		t.Errorf("its command %+v", c)
	}
	taken, _ := f.take(p.org.ID, "s1", 0)
	if len(taken) != 1 || taken[0].ID != c.ID || taken[0].Lockdown == nil {
		t.Fatalf("taken %+v", taken)
	}
	f.ack(p.org.ID, "s1", gatehouse.Ack{CommandID: c.ID, Result: gatehouse.AckExecuted})
	got, err := f.s.FindLockdown(ctx, p.org.ID, l.ID, f.now)
	must(t, err)
	if got.Targets != (gatehouse.CommandTargets{Live: 1, Delivered: 1, Executed: 1}) {
		t.Errorf("targets after the ack %+v", got.Targets)
	}

	covers := func(loc uuid.UUID, u string, at time.Time) int {
		ls, err := f.s.LockdownsOf(ctx, p.org.ID, loc, u, at)
		must(t, err)
		return len(ls)
	}
	if covers(p.loc.ID, universe, f.now) != 1 || covers(other.ID, "", f.now) != 0 || covers(p.loc.ID, universe, start.Add(-time.Second)) != 0 {
		t.Error("a LOCATION lockdown covers its location only, from its start")
	}
	f.now = f.now.Add(time.Minute)
	org := f.startLockdown(f.newLockdown(p, gatehouse.LockdownOrganization, nil))
	if covers(other.ID, "", f.now) != 1 {
		t.Error("an ORGANIZATION lockdown covers every location")
	}
	set, err := f.s.UniverseLockdowns(ctx, p.org.ID, universe, f.now)
	must(t, err)
	if len(set) != 2 || set[0].ID != l.ID || set[1].ID != org.ID {
		t.Errorf("the universe's lockdowns %+v", set)
	}
	if other, err := f.s.UniverseLockdowns(ctx, p.org.ID, "43", f.now); err != nil || len(other) != 1 {
		t.Errorf("universe 43 (the ORGANIZATION one only): %+v %v", other, err)
	}

	page, err := f.s.ListLockdowns(ctx, p.org.ID, gatehouse.LockdownFilter{Limit: 1, Now: f.now})
	must(t, err)
	if len(page.Lockdowns) != 1 || page.Lockdowns[0].ID != org.ID || page.Next == nil {
		t.Fatalf("first page %+v", page)
	}
	page, err = f.s.ListLockdowns(ctx, p.org.ID, gatehouse.LockdownFilter{Limit: 1, Now: f.now, After: page.Next})
	must(t, err)
	if len(page.Lockdowns) != 1 || page.Lockdowns[0].ID != l.ID || page.Next != nil {
		t.Errorf("second page %+v", page)
	}

	_, err = f.s.FindLockdown(ctx, q.org.ID, l.ID, f.now)
	wantErr(t, "FindLockdown of another organization's", err, gatehouse.ErrNotFound)
	_, _, err = f.s.ReleaseLockdown(ctx, gatehouse.SystemEntry(gatehouse.AuditLockdownReleased), q.org.ID, l.ID, gatehouse.LockdownRelease{At: f.now})
	wantErr(t, "ReleaseLockdown of another organization's", err, gatehouse.ErrNotFound)
	if page, err := f.s.ListLockdowns(ctx, q.org.ID, gatehouse.LockdownFilter{Limit: 10, Now: f.now}); err != nil || len(page.Lockdowns) != 0 {
		t.Errorf("another organization lists %+v %v", page, err)
	}

	f.now = f.now.Add(time.Second)
	by := gatehouse.LockdownActor{Type: gatehouse.ActorUser, ID: &p.user.ID}
	released, ok, err := f.s.ReleaseLockdown(ctx, gatehouse.SystemEntry(gatehouse.AuditLockdownReleased), p.org.ID, l.ID,
		gatehouse.LockdownRelease{At: f.now, By: by, Commands: f.lockdownCommands(l, &p.user.ID, []string{"s1"})})
	must(t, err)
	if !ok || released.Active || released.ReleasedAt == nil || !time.Time(*released.ReleasedAt).Equal(f.now) ||
		released.ReleasedBy == nil || released.ReleasedBy.Email != p.user.Email || released.Targets.Executed != 1 {
		t.Errorf("released %+v", released)
	}
	f.now = f.now.Add(time.Second)
	again, ok, err := f.s.ReleaseLockdown(ctx, gatehouse.SystemEntry(gatehouse.AuditLockdownReleased), p.org.ID, l.ID,
		gatehouse.LockdownRelease{At: f.now, By: by})
	must(t, err)
	if ok || !time.Time(*again.ReleasedAt).Equal(time.Time(*released.ReleasedAt)) {
		t.Errorf("released again: %v %+v", ok, again)
	}
	if n := len(f.log(p.org.ID, gatehouse.AuditFilter{Action: gatehouse.AuditLockdownReleased})); n != 1 {
		t.Errorf("%d lockdown.released entries, want 1", n)
	}
	if covers(p.loc.ID, universe, f.now) != 1 || covers(p.loc.ID, universe, start) != 1 {
		t.Error("after the release, the ORGANIZATION lockdown runs, and the released one ran at its start")
	}
	active, err := f.s.ListLockdowns(ctx, p.org.ID, gatehouse.LockdownFilter{Active: true, Limit: 10, Now: f.now})
	must(t, err)
	if len(active.Lockdowns) != 1 || active.Lockdowns[0].ID != org.ID {
		t.Errorf("active %+v", active.Lockdowns)
	}
}

// testLockdownEndsUnlocks: a lockdown's start cancels the unlocks of what
// it covers not delivered yet, and cuts the running ones at its start;
// unlocks of what it does not cover run on.
func testLockdownEndsUnlocks(t *testing.T, f *fixture) {
	p, q := f.unlockPlace("acme"), f.unlockPlace("beta")
	f.heartbeat(p.org.ID, "s1")
	f.heartbeat(q.org.ID, "s1")
	running := f.create(f.command(p, gatehouse.ScopeUniverse, "s1"))
	f.take(p.org.ID, "s1", 0)
	theirs := f.create(f.command(q, gatehouse.ScopeUniverse, "s1"))
	f.take(q.org.ID, "s1", 0)
	f.now = f.now.Add(2500 * time.Millisecond)
	pending := f.create(f.command(p, gatehouse.ScopeUniverse, "s1"))
	f.startLockdown(f.newLockdown(p, gatehouse.LockdownUniverse, nil))
	if got := f.find(p.org.ID, running.ID); got.DurationSeconds != 3 {
		t.Errorf("the running unlock lasts %d s, want 3", got.DurationSeconds)
	}
	if got := f.find(p.org.ID, pending.ID); got.Status != gatehouse.CommandCancelled {
		t.Errorf("the pending unlock is %s", got.Status)
	}
	if got := f.find(q.org.ID, theirs.ID); got.DurationSeconds != 30 {
		t.Errorf("another organization's unlock lasts %d s", got.DurationSeconds)
	}
}

// testExpireLockdowns: a lockdown whose until came is released by the
// system at its until, once, whoever runs the expiry; the change feed
// shows its start, then its release.
func testExpireLockdowns(t *testing.T, f *fixture) {
	p := f.unlockPlace("acme")
	until := f.now.Add(time.Minute)
	l := f.startLockdown(f.newLockdown(p, gatehouse.LockdownOrganization, &until))
	f.settle() // a transaction anywhere in the cluster holds the change feed back
	changes, err := f.s.ReadLockdownChanges(ctx, p.org.ID, gatehouse.FeedPosition{}, 10)
	must(t, err)
	if len(changes) != 1 || changes[0].ID != l.ID || changes[0].Released {
		t.Errorf("changes after the start %+v", changes)
	}
	f.now = until.Add(-time.Millisecond)
	if ended, err := f.s.ExpireLockdowns(ctx, gatehouse.SystemEntry(gatehouse.AuditLockdownReleased), f.now); err != nil || len(ended) != 0 {
		t.Errorf("before until: %+v %v", ended, err)
	}
	f.now = until.Add(time.Second)
	var (
		wg  sync.WaitGroup
		mu  sync.Mutex
		all []gatehouse.Lockdown
	)
	for range 2 {
		wg.Go(func() {
			ended, err := f.s.ExpireLockdowns(ctx, gatehouse.SystemEntry(gatehouse.AuditLockdownReleased), f.now)
			if err != nil {
				t.Error(err)
			}
			mu.Lock()
			all = append(all, ended...)
			mu.Unlock()
		})
	}
	wg.Wait()
	if len(all) != 1 || all[0].ID != l.ID {
		t.Fatalf("expired %+v", all)
	}
	got, err := f.s.FindLockdown(ctx, p.org.ID, l.ID, f.now)
	must(t, err)
	if got.Active || got.ReleasedAt == nil || !time.Time(*got.ReleasedAt).Equal(until) || got.ReleasedBy == nil || got.ReleasedBy.Type != gatehouse.ActorSystem {
		t.Errorf("after until %+v", got)
	}
	if n := len(f.log(p.org.ID, gatehouse.AuditFilter{Action: gatehouse.AuditLockdownReleased})); n != 1 {
		t.Errorf("%d lockdown.released entries, want 1", n)
	}
	f.settle()
	changes, err = f.s.ReadLockdownChanges(ctx, p.org.ID, gatehouse.FeedPosition{}, 10)
	must(t, err)
	if len(changes) != 2 || changes[0].Released || !changes[1].Released || changes[1].ID != l.ID {
		t.Errorf("changes after the release %+v", changes)
	}
}
