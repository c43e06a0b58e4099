package storetest

import (
	"slices"
	"testing"
	"time"

	"github.com/gatehouse/gatehouse"
	"github.com/google/uuid"
)

// universe is the platform universe of the door of the command tests.
const universe = "42"

// unlockPlace is an organization with a door in universe 42, a user and a
// key to attribute commands to.
type unlockPlace struct {
	org  gatehouse.Organization
	loc  gatehouse.Location
	door gatehouse.AccessPoint
	user gatehouse.User
	key  gatehouse.APIKey
}

func (f *fixture) unlockPlace(name string) unlockPlace {
	f.t.Helper()
	var p unlockPlace
	p.org = f.org(name)
	p.loc = f.location(p.org.ID, "HQ")
	loc, err := f.s.SetLocationUniverse(ctx, gatehouse.SystemEntry(gatehouse.AuditLocationUniverseSet), p.org.ID, p.loc.ID, universe)
	must(f.t, err)
	p.loc = loc
	p.door = f.accessPoint(p.org.ID, p.loc.ID, "Front door")
	p.user, err = f.s.CreateUser(ctx, gatehouse.SystemEntry(gatehouse.AuditUserAdded), gatehouse.User{OrgID: p.org.ID, Email: "ops@" + name + ".test", Name: "Olivia", PasswordHash: "h"}, nil)

	must(f.t, err)
	_, prefix, hash := gatehouse.GenerateKey()
	p.key = gatehouse.APIKey{ID: gatehouse.NewID(), OrgID: p.org.ID, Name: "ops", Prefix: prefix, Hash: hash,
		Scopes: []gatehouse.Scope{gatehouse.ScopeCommandsWrite}, CreatedAt: f.now}
	must(f.t, f.s.CreateAPIKey(ctx, gatehouse.SystemEntry(gatehouse.AuditAPIKeyCreated), p.key))
	return p
}

// command is a command ready to store as the service builds it: issued
// now by p's user, unlocking p's door for 30 s, waiting at most 60 s.
func (f *fixture) command(p unlockPlace, scope gatehouse.CommandScope, targets ...string) gatehouse.IssuedCommand {
	uid := p.user.ID
	c := gatehouse.IssuedCommand{Command: gatehouse.Command{
		ID: gatehouse.NewID(), OrgID: p.org.ID, Type: gatehouse.CommandUnlock, Status: gatehouse.CommandPending,
		Scope: scope, UniverseID: universe,
		AccessPoint: gatehouse.NamedRef{ID: p.door.ID, Name: p.door.Name}, Location: gatehouse.NamedRef{ID: p.loc.ID, Name: p.loc.Name},
		DurationSeconds: 30, IssuedAt: gatehouse.Time(f.now), ExpiresAt: gatehouse.Time(f.now.Add(time.Minute)),
		StatusAt: gatehouse.Time(f.now),
	}, TargetJobIDs: targets, RequestedByUser: &uid}
	switch scope {
	case gatehouse.ScopeServer:
		if len(targets) > 0 {
			c.ServerJobID = ptr(targets[0])
		} else {
			c.ServerJobID = ptr("gone")
			c.Status, c.FailureReason = gatehouse.CommandFailed, ptr(gatehouse.FailServerNotLive)
		}
	case gatehouse.ScopePlayer:
		c.PlatformUserID = ptr("7")
		if len(targets) == 0 {
			c.Status, c.FailureReason = gatehouse.CommandFailed, ptr(gatehouse.FailPlayerNotOnline)
		}
	}
	return c
}

func issuedEntry() gatehouse.AuditEntry { return gatehouse.SystemEntry(gatehouse.AuditCommandIssued) }

func cancelledEntry() gatehouse.AuditEntry {
	return gatehouse.SystemEntry(gatehouse.AuditCommandCancelled)
}

// create stores c and fails the test on any error.
func (f *fixture) create(c gatehouse.IssuedCommand) gatehouse.Command {
	f.t.Helper()
	got, err := f.s.CreateCommand(ctx, issuedEntry(), c)
	must(f.t, err)
	return got
}

// find reads a command and fails the test on any error.
func (f *fixture) find(org, id uuid.UUID) gatehouse.Command {
	f.t.Helper()
	c, err := f.s.FindCommand(ctx, org, id)
	must(f.t, err)
	return c
}

// testCreateCommand: a command is stored PENDING with one undelivered
// target row per live server, attributed, with its REMOTE_UNLOCK event
// (whose embedded command shows the live status) and its audit entry; one
// that failed at issue is stored FAILED with its reason and no target.
func testCreateCommand(t *testing.T, f *fixture) {
	p := f.unlockPlace("acme")
	in := f.command(p, gatehouse.ScopeUniverse, "job-b", "job-a")
	in.Note = ptr("fire drill")
	c := f.create(in)
	at := gatehouse.Time(f.now)
	if c.ID != in.ID || c.OrgID != p.org.ID || c.Type != gatehouse.CommandUnlock || c.Status != gatehouse.CommandPending ||
		c.FailureReason != nil || c.Scope != gatehouse.ScopeUniverse || c.ServerJobID != nil || c.PlatformUserID != nil ||
		c.UniverseID != universe || c.AccessPoint != in.AccessPoint || c.Location != in.Location ||
		c.DurationSeconds != 30 || c.Note == nil || *c.Note != "fire drill" ||
		!time.Time(c.IssuedAt).Equal(time.Time(at)) || !time.Time(c.ExpiresAt).Equal(f.now.Add(time.Minute)) ||
		!time.Time(c.StatusAt).Equal(time.Time(at)) || c.StartedAt != nil || c.RemainingSeconds != nil {
		t.Errorf("created = %+v", c)
	}
	if c.RequestedBy == nil || *c.RequestedBy != (gatehouse.Requester{ID: p.user.ID, Email: p.user.Email, Name: "Olivia"}) || c.IssuedByKey != nil {
		t.Errorf("attribution = %+v, %+v; want the user", c.RequestedBy, c.IssuedByKey)
	}
	if c.Targets != (gatehouse.CommandTargets{Live: 2}) {
		t.Errorf("targets = %+v, want 2 live", c.Targets)
	}
	wantDeliveries(t, c, "job-a", "job-b")
	for _, d := range c.Deliveries {
		if !d.Target || d.DeliveredAt != nil || d.Result != nil || d.Detail != nil || d.AckedAt != nil {
			t.Errorf("delivery %+v: want an undelivered target", d)
		}
	}
	if again := f.find(p.org.ID, c.ID); again.Status != c.Status || again.Targets != c.Targets || len(again.Deliveries) != 2 {
		t.Errorf("FindCommand = %+v, want what CreateCommand returned", again)
	}

	events := f.all(p.org.ID, gatehouse.EventFilter{Types: []gatehouse.EventType{gatehouse.EventRemoteUnlock}}, 10)
	if len(events) != 1 {
		t.Fatalf("%d REMOTE_UNLOCK events, want 1", len(events))
	}
	e := events[0]
	if e.ID != c.ID || !time.Time(e.OccurredAt).Equal(time.Time(at)) || e.Allowed != nil || e.Scope == nil || *e.Scope != gatehouse.ScopeUniverse ||
		e.AccessPoint != in.AccessPoint || e.Location != in.Location ||
		e.RequestedBy == nil || e.RequestedBy.ID != p.user.ID || e.Command == nil || e.Command.ID != c.ID ||
		e.Command.Status != gatehouse.CommandPending || e.Command.Scope != gatehouse.ScopeUniverse {
		t.Errorf("event = %+v (command %+v)", e, e.Command)
	}
	log := f.log(p.org.ID, gatehouse.AuditFilter{Action: gatehouse.AuditCommandIssued})
	if len(log) != 1 || log[0].Target.Type != gatehouse.TargetCommand || log[0].Target.ID != c.ID {
		t.Errorf("command.issued entries = %+v, want one for the command", log)
	}

	// The event's command shows the status as it is now.
	f.now = f.now.Add(time.Second)
	_, err := f.s.CancelCommand(ctx, cancelledEntry(), p.org.ID, c.ID, f.now)
	must(t, err)
	events = f.all(p.org.ID, gatehouse.EventFilter{Types: []gatehouse.EventType{gatehouse.EventRemoteUnlock}}, 10)
	if events[0].Command.Status != gatehouse.CommandCancelled {
		t.Errorf("event's command status = %s after a cancel, want CANCELLED", events[0].Command.Status)
	}

	// Failed at issue: no target, the reason kept; an API key attributes it.
	failed := f.command(p, gatehouse.ScopeServer)
	failed.RequestedByUser, failed.IssuedByKeyID = nil, &p.key.ID
	fc := f.create(failed)
	if fc.Status != gatehouse.CommandFailed || fc.FailureReason == nil || *fc.FailureReason != gatehouse.FailServerNotLive ||
		fc.ServerJobID == nil || *fc.ServerJobID != "gone" || fc.Targets != (gatehouse.CommandTargets{}) || len(fc.Deliveries) != 0 {
		t.Errorf("failed at issue = %+v", fc)
	}
	if fc.RequestedBy != nil || fc.IssuedByKey == nil || *fc.IssuedByKey != (gatehouse.KeyRef{ID: p.key.ID, Name: "ops", Prefix: p.key.Prefix}) {
		t.Errorf("attribution = %+v, %+v; want the key", fc.RequestedBy, fc.IssuedByKey)
	}
	events = f.all(p.org.ID, gatehouse.EventFilter{Types: []gatehouse.EventType{gatehouse.EventRemoteUnlock}}, 10)
	if len(events) != 2 || events[0].ID != fc.ID || events[0].Command.Status != gatehouse.CommandFailed ||
		events[0].ServerJobID == nil || *events[0].ServerJobID != "gone" || events[0].RequestedBy != nil {
		t.Errorf("events = %+v", events)
	}
	player := f.command(p, gatehouse.ScopePlayer)
	if pc := f.create(player); pc.Status != gatehouse.CommandFailed || *pc.FailureReason != gatehouse.FailPlayerNotOnline ||
		pc.PlatformUserID == nil || *pc.PlatformUserID != "7" {
		t.Errorf("player command failed at issue = %+v", pc)
	}
	if n := len(f.log(p.org.ID, gatehouse.AuditFilter{Action: gatehouse.AuditCommandIssued})); n != 3 {
		t.Errorf("%d command.issued entries, want 3", n)
	}
}

// wantDeliveries checks the job ids of c's deliveries, in order.
func wantDeliveries(t *testing.T, c gatehouse.Command, jobs ...string) {
	t.Helper()
	got := make([]string, len(c.Deliveries))
	for i, d := range c.Deliveries {
		got[i] = d.ServerJobID
	}
	if !slices.Equal(got, jobs) {
		t.Errorf("deliveries %v, want %v", got, jobs)
	}
}

// testCommandIdempotency: a key is remembered with its command and
// digest for the organization; a key already stored is ErrConflict and
// stores nothing; a key older than IdempotencyWindow is replaced.
func testCommandIdempotency(t *testing.T, f *fixture) {
	p, q := f.unlockPlace("acme"), f.unlockPlace("beta")
	digest := [32]byte{1, 2, 3}
	in := f.command(p, gatehouse.ScopeUniverse)
	in.Idempotency = &gatehouse.IdempotencyKey{Key: "retry-1", Digest: digest, At: f.now}
	c := f.create(in)
	since := f.now.Add(-gatehouse.IdempotencyWindow)
	id, d, err := f.s.FindIdempotencyKey(ctx, p.org.ID, "retry-1", since)
	if err != nil || id != c.ID || d != digest {
		t.Errorf("FindIdempotencyKey = %v, %x, %v", id, d, err)
	}
	_, _, err = f.s.FindIdempotencyKey(ctx, p.org.ID, "retry-2", since)
	wantErr(t, "unknown key", err, gatehouse.ErrNotFound)
	_, _, err = f.s.FindIdempotencyKey(ctx, q.org.ID, "retry-1", since)
	wantErr(t, "another organization's key", err, gatehouse.ErrNotFound)
	_, _, err = f.s.FindIdempotencyKey(ctx, p.org.ID, "retry-1", f.now.Add(time.Millisecond))
	wantErr(t, "a key stored before since", err, gatehouse.ErrNotFound)

	dup := f.command(p, gatehouse.ScopeUniverse)
	dup.Idempotency = &gatehouse.IdempotencyKey{Key: "retry-1", Digest: [32]byte{9}, At: f.now}
	_, err = f.s.CreateCommand(ctx, issuedEntry(), dup)
	wantErr(t, "a key already stored", err, gatehouse.ErrConflict)
	_, err = f.s.FindCommand(ctx, p.org.ID, dup.ID)
	wantErr(t, "the conflicting command", err, gatehouse.ErrNotFound)
	if n := len(f.all(p.org.ID, gatehouse.EventFilter{}, 10)); n != 1 {
		t.Errorf("%d events after a conflict, want 1", n)
	}
	if n := len(f.log(p.org.ID, gatehouse.AuditFilter{Action: gatehouse.AuditCommandIssued})); n != 1 {
		t.Errorf("%d command.issued entries after a conflict, want 1", n)
	}

	// The same key in another organization is its own.
	other := f.command(q, gatehouse.ScopeUniverse)
	other.Idempotency = &gatehouse.IdempotencyKey{Key: "retry-1", Digest: digest, At: f.now}
	oc := f.create(other)
	if id, _, err := f.s.FindIdempotencyKey(ctx, q.org.ID, "retry-1", since); err != nil || id != oc.ID {
		t.Errorf("other organization's key = %v, %v", id, err)
	}

	// A stale key is replaced.
	f.now = f.now.Add(gatehouse.IdempotencyWindow + time.Second)
	fresh := f.command(p, gatehouse.ScopeUniverse)
	fresh.Idempotency = &gatehouse.IdempotencyKey{Key: "retry-1", Digest: [32]byte{7}, At: f.now}
	fc := f.create(fresh)
	id, d, err = f.s.FindIdempotencyKey(ctx, p.org.ID, "retry-1", f.now.Add(-gatehouse.IdempotencyWindow))
	if err != nil || id != fc.ID || d != ([32]byte{7}) {
		t.Errorf("after a stale key was reused: %v, %x, %v; want the new command", id, d, err)
	}
}

// testCancelCommand: an unsettled command moves to CANCELLED at the time
// given, recorded once; a settled one is ErrConflict with the command as
// it is and records nothing; another organization's is ErrNotFound.
func testCancelCommand(t *testing.T, f *fixture) {
	p, q := f.unlockPlace("acme"), f.unlockPlace("beta")
	c := f.create(f.command(p, gatehouse.ScopeUniverse, "job-1"))
	f.now = f.now.Add(2 * time.Second)

	_, err := f.s.CancelCommand(ctx, cancelledEntry(), q.org.ID, c.ID, f.now)
	wantErr(t, "cancel another organization's command", err, gatehouse.ErrNotFound)
	_, err = f.s.CancelCommand(ctx, cancelledEntry(), p.org.ID, gatehouse.NewID(), f.now)
	wantErr(t, "cancel an unknown command", err, gatehouse.ErrNotFound)

	got, err := f.s.CancelCommand(ctx, cancelledEntry(), p.org.ID, c.ID, f.now)
	must(t, err)
	if got.ID != c.ID || got.Status != gatehouse.CommandCancelled || !time.Time(got.StatusAt).Equal(f.now) ||
		got.UniverseID != universe || got.Targets != c.Targets {
		t.Errorf("cancelled = %+v", got)
	}
	if again := f.find(p.org.ID, c.ID); again.Status != gatehouse.CommandCancelled || !time.Time(again.StatusAt).Equal(f.now) {
		t.Errorf("stored = %+v", again)
	}
	log := f.log(p.org.ID, gatehouse.AuditFilter{Action: gatehouse.AuditCommandCancelled})
	if len(log) != 1 || log[0].Target.Type != gatehouse.TargetCommand || log[0].Target.ID != c.ID {
		t.Errorf("command.cancelled entries = %+v", log)
	}

	f.now = f.now.Add(time.Second)
	settled, err := f.s.CancelCommand(ctx, cancelledEntry(), p.org.ID, c.ID, f.now)
	wantErr(t, "cancel a cancelled command", err, gatehouse.ErrConflict)
	if settled.ID != c.ID || settled.Status != gatehouse.CommandCancelled || time.Time(settled.StatusAt).Equal(f.now) {
		t.Errorf("conflict answers %+v, want the command as it is", settled)
	}
	failed := f.create(f.command(p, gatehouse.ScopeServer))
	settled, err = f.s.CancelCommand(ctx, cancelledEntry(), p.org.ID, failed.ID, f.now)
	wantErr(t, "cancel a command failed at issue", err, gatehouse.ErrConflict)
	if settled.ID != failed.ID || settled.Status != gatehouse.CommandFailed || *settled.FailureReason != gatehouse.FailServerNotLive {
		t.Errorf("conflict answers %+v", settled)
	}
	if n := len(f.log(p.org.ID, gatehouse.AuditFilter{Action: gatehouse.AuditCommandCancelled})); n != 1 {
		t.Errorf("%d command.cancelled entries after refused cancels, want 1", n)
	}

	// A delivered command may be cancelled too.
	d := f.create(f.command(p, gatehouse.ScopeServer, "job-1"))
	f.heartbeat(p.org.ID, "job-1")
	f.take(p.org.ID, "job-1", 0)
	if got, err := f.s.CancelCommand(ctx, cancelledEntry(), p.org.ID, d.ID, f.now); err != nil || got.Status != gatehouse.CommandCancelled {
		t.Errorf("cancel a delivered command: %v, %v", got.Status, err)
	}
}

// testStatusMovesForward: settled commands never move again: not by a
// cancel, an ack, the sweep, nor an ingested event about the command.
func testStatusMovesForward(t *testing.T, f *fixture) {
	p := f.unlockPlace("acme")
	f.heartbeat(p.org.ID, "job-1")
	c := f.create(f.command(p, gatehouse.ScopeServer, "job-1"))
	_, cur := f.take(p.org.ID, "job-1", 0)
	f.ack(p.org.ID, "job-1", gatehouse.Ack{CommandID: c.ID, Result: gatehouse.AckExecuted})
	executedAt := f.now

	f.now = f.now.Add(time.Second)
	_, err := f.s.CancelCommand(ctx, cancelledEntry(), p.org.ID, c.ID, f.now)
	wantErr(t, "cancel an executed command", err, gatehouse.ErrConflict)
	late := f.attempt(p.door, gatehouse.EventAccessGranted, -1)
	late.Command = &gatehouse.NewCommand{ID: c.ID, Status: gatehouse.CommandFailed, Scope: gatehouse.ScopeServer, IssuedAt: f.now}
	f.ingest(p.org.ID, late)
	f.now = f.now.Add(2 * time.Minute)
	if n, err := f.s.SweepCommands(ctx, f.now); err != nil || n != 0 {
		t.Errorf("sweep = %d, %v; want nothing to expire", n, err)
	}
	if cmds, _ := f.take(p.org.ID, "job-1", cur); len(cmds) != 0 {
		t.Errorf("an executed command was sent again: %+v", cmds)
	}
	got := f.find(p.org.ID, c.ID)
	if got.Status != gatehouse.CommandExecuted || !time.Time(got.StatusAt).Equal(executedAt) || got.FailureReason != nil {
		t.Errorf("executed command is now %s at %v (%v)", got.Status, got.StatusAt, got.FailureReason)
	}

	// An ingested event never changes an issued command, even unsettled.
	open := f.create(f.command(p, gatehouse.ScopeUniverse))
	ev := f.attempt(p.door, gatehouse.EventAccessGranted, -1)
	ev.Command = &gatehouse.NewCommand{ID: open.ID, Status: gatehouse.CommandExecuted, Scope: gatehouse.ScopeUniverse, IssuedAt: f.now}
	f.ingest(p.org.ID, ev)
	if got := f.find(p.org.ID, open.ID); got.Status != gatehouse.CommandPending || !time.Time(got.StatusAt).Equal(time.Time(open.StatusAt)) {
		t.Errorf("an ingested event moved an issued command to %s", got.Status)
	}
}

func testCreateCommandTenant(t *testing.T, f *fixture) {
	p, q := f.unlockPlace("acme"), f.unlockPlace("beta")
	in := f.command(p, gatehouse.ScopeUniverse, "job-1")
	in.AccessPoint = gatehouse.NamedRef{ID: q.door.ID, Name: q.door.Name}
	in.Location = gatehouse.NamedRef{ID: q.loc.ID, Name: q.loc.Name}
	in.Idempotency = &gatehouse.IdempotencyKey{Key: "k", Digest: [32]byte{1}, At: f.now}
	_, err := f.s.CreateCommand(ctx, issuedEntry(), in)
	wantErr(t, "a command for another organization's door", err, gatehouse.ErrNotFound)
	for _, org := range []uuid.UUID{p.org.ID, q.org.ID} {
		if cmds := f.listCommands(org, gatehouse.CommandFilter{}, 10); len(cmds) != 0 {
			t.Errorf("stored %+v", cmds)
		}
		if events := f.all(org, gatehouse.EventFilter{}, 10); len(events) != 0 {
			t.Errorf("recorded %+v", events)
		}
		if n := len(f.log(org, gatehouse.AuditFilter{Action: gatehouse.AuditCommandIssued})); n != 0 {
			t.Errorf("%d command.issued entries", n)
		}
	}
	_, _, err = f.s.FindIdempotencyKey(ctx, p.org.ID, "k", time.Time{})
	wantErr(t, "the key of a refused command", err, gatehouse.ErrNotFound)
}
