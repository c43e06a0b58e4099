package service_test

import (
	"context"
	"errors"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/gatehouse/gatehouse"
	"github.com/gatehouse/gatehouse/internal/service"
	"github.com/gatehouse/gatehouse/internal/service/servicetest"
	"github.com/gatehouse/gatehouse/internal/teststore"
	"github.com/google/uuid"
)

// unlockFixture is an organization with a door in universe 42, and the
// contexts of its key (scopes are the API's business) and of an operator.
type unlockFixture struct {
	*serviceFixture
	door     gatehouse.AccessPoint
	key      context.Context
	operator context.Context
	// players are who each server reports hosting.
	players map[string][]string
}

func newUnlock(t *testing.T) *unlockFixture {
	t.Helper()
	return unlockOn(t, newService(t, nil))
}

func unlockOn(t testing.TB, f *serviceFixture) *unlockFixture {
	t.Helper()
	ctx := context.Background()
	loc, err := f.svc.CreateLocation(ctx, f.org.ID, "HQ")
	must(t, err)
	_, err = f.svc.SetLocationUniverse(ctx, f.org.ID, loc.ID, "42")
	must(t, err)
	door, err := f.svc.CreateAccessPoint(ctx, f.org.ID, loc.ID, "Front door")
	must(t, err)
	key, _, err := f.svc.CreateAPIKey(ctx, gatehouse.NewAPIKey{OrgID: f.org.ID, Name: "ops",
		Scopes: []gatehouse.Scope{gatehouse.ScopeCommandsWrite, gatehouse.ScopeGameServer}})
	must(t, err)
	op, err := f.svc.CreateUser(ctx, gatehouse.NewUser{OrgID: f.org.ID, Email: "op@acme.test", Password: "correct horse battery", Role: gatehouse.RoleOperator})
	must(t, err)
	// The first user is made admin: add the operator second.
	op, err = f.svc.CreateUser(ctx, gatehouse.NewUser{OrgID: f.org.ID, Email: "op2@acme.test", Password: "correct horse battery", Role: gatehouse.RoleOperator})
	must(t, err)
	return &unlockFixture{serviceFixture: f, door: door, players: map[string][]string{},
		key:      gatehouse.WithActor(ctx, gatehouse.Actor{Type: gatehouse.ActorKey, ID: key.ID, Label: key.Prefix, OrgID: f.org.ID}),
		operator: gatehouse.WithActor(ctx, gatehouse.Actor{Type: gatehouse.ActorUser, ID: op.ID, Label: op.Email, OrgID: f.org.ID, Role: op.Role}),
	}
}

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func (f *unlockFixture) universe() gatehouse.CommandRequest {
	return gatehouse.CommandRequest{AccessPointID: f.door.ID, Scope: gatehouse.ScopeUniverse, DurationSeconds: 30}
}

// sync is one sync of the server job in universe 42 that does not wait.
func (f *unlockFixture) sync(t *testing.T, job string, acks ...gatehouse.Ack) gatehouse.SyncResult {
	t.Helper()
	zero := 0
	res, err := f.svc.Sync(f.key, f.org.ID, gatehouse.SyncRequest{ServerJobID: job, UniverseID: "42", Players: f.players[job], Acks: acks, WaitSeconds: &zero})
	must(t, err)
	return res
}

// TestCommandsAreAttributed: a command is issued by a user allowed to
// (operators and admins) or by a key, and names it; the system and
// viewers cannot issue one.
func TestCommandsAreAttributed(t *testing.T) {
	f := newUnlock(t)
	ctx := context.Background()
	if _, _, err := f.svc.IssueCommand(ctx, f.org.ID, f.universe(), ""); !errors.Is(err, gatehouse.ErrInvalid) {
		t.Errorf("unattributed: %v, want ErrInvalid", err)
	}
	viewer, err := f.svc.CreateUser(ctx, gatehouse.NewUser{OrgID: f.org.ID, Email: "v@acme.test", Password: "correct horse battery", Role: gatehouse.RoleViewer})
	must(t, err)
	asViewer := gatehouse.WithActor(ctx, gatehouse.Actor{Type: gatehouse.ActorUser, ID: viewer.ID, OrgID: f.org.ID, Role: viewer.Role})
	if _, _, err := f.svc.IssueCommand(asViewer, f.org.ID, f.universe(), ""); !errors.Is(err, gatehouse.ErrForbidden) {
		t.Errorf("viewer: %v, want ErrForbidden", err)
	}
	byUser, _, err := f.svc.IssueCommand(f.operator, f.org.ID, f.universe(), "")
	must(t, err)
	if byUser.RequestedBy == nil || byUser.RequestedBy.Email != "op2@acme.test" || byUser.IssuedByKey != nil {
		t.Errorf("by an operator: %+v %+v", byUser.RequestedBy, byUser.IssuedByKey)
	}
	byKey, _, err := f.svc.IssueCommand(f.key, f.org.ID, f.universe(), "")
	must(t, err)
	if byKey.IssuedByKey == nil || byKey.IssuedByKey.Name != "ops" || byKey.RequestedBy != nil {
		t.Errorf("by a key: %+v %+v", byKey.RequestedBy, byKey.IssuedByKey)
	}
	if _, err := f.svc.CancelCommand(asViewer, f.org.ID, byKey.ID); !errors.Is(err, gatehouse.ErrForbidden) {
		t.Errorf("viewer cancels: %v, want ErrForbidden", err)
	}
	if c, err := f.svc.CancelCommand(f.operator, f.org.ID, byKey.ID); err != nil || c.Status != gatehouse.CommandCancelled {
		t.Errorf("operator cancels: %v %v", c.Status, err)
	}
	var ce *gatehouse.ConflictError
	if _, err := f.svc.CancelCommand(f.operator, f.org.ID, byKey.ID); !errors.As(err, &ce) {
		t.Errorf("cancelling twice: %v, want a *ConflictError", err)
	}
	// Another organization's command is not there.
	if _, err := f.svc.FindCommand(ctx, f.other.ID, byKey.ID); !errors.Is(err, gatehouse.ErrNotFound) {
		t.Errorf("another organization reads it: %v", err)
	}
}

// TestCommandsNeedAUniverse: an access point whose location names no
// universe cannot be unlocked, and the error says what to do.
func TestCommandsNeedAUniverse(t *testing.T) {
	f := newUnlock(t)
	ctx := context.Background()
	loc, err := f.svc.CreateLocation(ctx, f.org.ID, "Annex")
	must(t, err)
	door, err := f.svc.CreateAccessPoint(ctx, f.org.ID, loc.ID, "Side door")
	must(t, err)
	_, _, err = f.svc.IssueCommand(f.key, f.org.ID, gatehouse.CommandRequest{AccessPointID: door.ID, Scope: gatehouse.ScopeUniverse}, "")
	wantIssues(t, "no universe", err, "accessPointId")
	_, _, err = f.svc.IssueCommand(f.key, f.org.ID, gatehouse.CommandRequest{AccessPointID: uuid.New(), Scope: gatehouse.ScopeUniverse}, "")
	wantIssues(t, "unknown access point", err, "accessPointId")
	_, err = f.svc.SetLocationUniverse(ctx, f.org.ID, loc.ID, "0x2a")
	wantIssues(t, "bad universe", err, "universeId")
}

// TestIdempotencyKeys: a retry with the same key and request answers the
// first command; another request with the key is a conflict; racing
// retries issue one command.
func TestIdempotencyKeys(t *testing.T) {
	f := newUnlock(t)
	first, replayed, err := f.svc.IssueCommand(f.key, f.org.ID, f.universe(), "retry-1")
	must(t, err)
	if replayed {
		t.Error("the first request is no replay")
	}
	again, replayed, err := f.svc.IssueCommand(f.key, f.org.ID, f.universe(), "retry-1")
	if err != nil || !replayed || again.ID != first.ID {
		t.Fatalf("retry: %v %v %v", again.ID, replayed, err)
	}
	other := f.universe()
	other.DurationSeconds = 31
	var ce *gatehouse.ConflictError
	if _, _, err := f.svc.IssueCommand(f.key, f.org.ID, other, "retry-1"); !errors.As(err, &ce) || ce.Field != "Idempotency-Key" {
		t.Fatalf("same key, other request: %v", err)
	}
	// The key is the organization's: another organization may use it.
	ids := make(chan uuid.UUID, 8)
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			c, _, err := f.svc.IssueCommand(f.key, f.org.ID, f.universe(), "race")
			if err != nil {
				t.Error(err)
				return
			}
			ids <- c.ID
		})
	}
	wg.Wait()
	close(ids)
	seen := map[uuid.UUID]bool{}
	for id := range ids {
		seen[id] = true
	}
	if len(seen) != 1 {
		t.Errorf("8 racing requests with one key issued %d commands", len(seen))
	}
	page, err := f.svc.ListCommands(context.Background(), f.org.ID, gatehouse.CommandFilter{Limit: 100})
	must(t, err)
	if len(page.Commands) != 2 {
		t.Errorf("%d commands stored, want 2", len(page.Commands))
	}
}

// TestSyncFlow: servers that synced are the targets; a UNIVERSE unlock
// reaches each, settles on their answers; SERVER and PLAYER unlocks find
// their server or fail at once.
func TestSyncFlow(t *testing.T) {
	f := newUnlock(t)
	f.players["c"] = []string{"7"}
	for _, job := range []string{"a", "b", "c"} {
		f.sync(t, job)
	}
	c, _, err := f.svc.IssueCommand(f.key, f.org.ID, f.universe(), "")
	must(t, err)
	if c.Targets.Live != 3 || c.Status != gatehouse.CommandPending {
		t.Fatalf("issued: %+v %s", c.Targets, c.Status)
	}
	for _, job := range []string{"a", "b", "c"} {
		if got := f.sync(t, job); len(got.Commands) != 1 || got.Commands[0].ID != c.ID || *got.Commands[0].RemainingSeconds != 30 {
			t.Fatalf("%s received %+v", job, got.Commands)
		}
	}
	f.sync(t, "a", gatehouse.Ack{CommandID: c.ID, Result: gatehouse.AckExecuted})
	f.sync(t, "b", gatehouse.Ack{CommandID: c.ID, Result: gatehouse.AckExecuted})
	f.sync(t, "c", gatehouse.Ack{CommandID: c.ID, Result: gatehouse.AckFailed, Detail: new("jammed")})
	got, err := f.svc.FindCommand(context.Background(), f.org.ID, c.ID)
	must(t, err)
	want := gatehouse.CommandTargets{Live: 3, Delivered: 3, Executed: 2, Failed: 1}
	if got.Status != gatehouse.CommandFailed || got.Targets != want || len(got.Deliveries) != 3 {
		t.Fatalf("after the answers: %s %+v %d deliveries", got.Status, got.Targets, len(got.Deliveries))
	}
	// An answer of another server, or a second one, changes nothing.
	if res := f.sync(t, "d", gatehouse.Ack{CommandID: c.ID, Result: gatehouse.AckExecuted}); len(res.RejectedAcks) != 1 {
		t.Errorf("an ack of a server that never received it: %v", res.RejectedAcks)
	}

	dead, _, err := f.svc.IssueCommand(f.key, f.org.ID, gatehouse.CommandRequest{AccessPointID: f.door.ID, Scope: gatehouse.ScopeServer, ServerJobID: new("gone")}, "")
	must(t, err)
	if dead.Status != gatehouse.CommandFailed || deref(dead.FailureReason) != gatehouse.FailServerNotLive {
		t.Errorf("SERVER to a dead job: %s %q", dead.Status, deref(dead.FailureReason))
	}
	player, _, err := f.svc.IssueCommand(f.key, f.org.ID, gatehouse.CommandRequest{AccessPointID: f.door.ID, Scope: gatehouse.ScopePlayer, PlatformUserID: new("7")}, "")
	must(t, err)
	if len(player.Deliveries) != 1 || player.Deliveries[0].ServerJobID != "c" {
		t.Errorf("PLAYER 7 is on c: %+v", player.Deliveries)
	}
	absent, _, err := f.svc.IssueCommand(f.key, f.org.ID, gatehouse.CommandRequest{AccessPointID: f.door.ID, Scope: gatehouse.ScopePlayer, PlatformUserID: new("8")}, "")
	must(t, err)
	if absent.Status != gatehouse.CommandFailed || deref(absent.FailureReason) != gatehouse.FailPlayerNotOnline {
		t.Errorf("PLAYER not online: %s %q", absent.Status, deref(absent.FailureReason))
	}
}

// TestSyncWaitsUntilWoken: a waiting sync answers as soon as a command
// for it is issued, and [service.Service.EndPolls] answers the waiting
// ones at once.
func TestSyncWaitsUntilWoken(t *testing.T) {
	f := newUnlock(t)
	f.sync(t, "a")
	wait := 20
	type answer struct {
		res gatehouse.SyncResult
		err error
		at  time.Time
	}
	var cursor *string // the last answer's: what it carried was received
	poll := func() chan answer {
		out := make(chan answer, 1)
		go func() {
			res, err := f.svc.Sync(f.key, f.org.ID, gatehouse.SyncRequest{ServerJobID: "a", UniverseID: "42", WaitSeconds: &wait, Cursor: cursor})
			out <- answer{res, err, time.Now()}
		}()
		return out
	}
	waiting := poll()
	time.Sleep(100 * time.Millisecond)
	issued := time.Now()
	c, _, err := f.svc.IssueCommand(f.key, f.org.ID, f.universe(), "")
	must(t, err)
	select {
	case a := <-waiting:
		if a.err != nil || len(a.res.Commands) != 1 || a.res.Commands[0].ID != c.ID {
			t.Fatalf("woken with %+v %v", a.res, a.err)
		}
		t.Logf("answered %v after the issue", a.at.Sub(issued))
		cursor = &a.res.Cursor
	case <-time.After(2 * time.Second):
		t.Fatal("the waiting sync was not woken")
	}

	waiting = poll()
	time.Sleep(100 * time.Millisecond)
	f.svc.EndPolls()
	select {
	case a := <-waiting:
		if a.err != nil || len(a.res.Commands) != 0 {
			t.Fatalf("ended with %+v %v", a.res, a.err)
		}
	case <-time.After(2 * time.Second):
		t.Fatal("EndPolls did not answer the waiting sync")
	}
}

// TestWakesCrossProcessesOnSQLite: a command issued by another process on
// the same SQLite file (an operator's CLI while gatehouse serve runs)
// wakes this process's waiting syncs within a second.
func TestWakesCrossProcessesOnSQLite(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "shared.db")
	open := func() *service.Service {
		db := teststore.OpenSQLite(t, path)
		return service.New(service.Config{Store: db, Secret: []byte("0123456789abcdef0123456789abcdef"), Hasher: &fastHasher{}})
	}
	serve, cli := open(), open()
	f := unlockOn(t, &serviceFixture{svc: cli, hasher: &fastHasher{}, org: mustOrg(t, cli)})
	run, stop := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() { serve.RunCommands(run, "serve", func(err error) { t.Error(err) }); close(done) }()
	t.Cleanup(func() { stop(); <-done })

	servicetest.SyncWoken(t, f.key, serve, f.org.ID, 300*time.Millisecond, func() gatehouse.Command {
		c, _, err := cli.IssueCommand(f.key, f.org.ID, f.universe(), "")
		must(t, err)
		return c
	}, "by another process")
}

func mustOrg(t *testing.T, svc *service.Service) gatehouse.Organization {
	t.Helper()
	o, err := svc.CreateOrganization(context.Background(), "Acme")
	must(t, err)
	return o
}

// TestSweepTakesTheLease: every instance runs the sweep, one at a time;
// an expired command moves once.
func TestSweepTakesTheLease(t *testing.T) {
	f := newUnlock(t)
	f.sync(t, "a")
	c, _, err := f.svc.IssueCommand(f.key, f.org.ID, f.universe(), "")
	must(t, err)
	f.now = f.now.Add(61 * time.Second)
	ctx := context.Background()
	must(t, f.svc.SweepCommands(ctx, "one"))
	must(t, f.svc.SweepCommands(ctx, "two")) // the lease is one's: nothing
	got, err := f.svc.FindCommand(ctx, f.org.ID, c.ID)
	must(t, err)
	if got.Status != gatehouse.CommandExpired {
		t.Fatalf("after the deadline: %s", got.Status)
	}
}

// deref is *s, or "" for nil.
func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
