package service_test

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gatehouse/gatehouse"
	"github.com/gatehouse/gatehouse/internal/service"
	"github.com/gatehouse/gatehouse/internal/teststore"
	"github.com/google/uuid"
)

// officeHours is a policy that admits group 456 at rank 200 or more on
// weekdays 09:00–17:30 in Berlin.
func officeHours() gatehouse.Policy {
	rank := 200
	return gatehouse.Policy{Mode: gatehouse.ModeRules,
		Schedule: &gatehouse.Schedule{TimeZone: "Europe/Berlin",
			Windows: []gatehouse.Window{{Days: []string{"MON", "TUE", "WED", "THU", "FRI"}, From: "09:00", To: "17:30"}}},
		Allow: []gatehouse.AllowRule{{PlatformUserID: "7"}, {GroupID: "456", MinRank: &rank}},
		Deny:  []gatehouse.DenyRule{{PlatformUserID: "666"}}}
}

func (f *unlockFixture) admin() context.Context {
	return gatehouse.WithActor(context.Background(), gatehouse.Actor{Type: gatehouse.ActorUser, ID: gatehouse.NewID(),
		Label: "admin@acme.test", OrgID: f.org.ID, Role: gatehouse.RoleAdmin})
}

func (f *unlockFixture) viewer() context.Context {
	return gatehouse.WithActor(context.Background(), gatehouse.Actor{Type: gatehouse.ActorUser, ID: gatehouse.NewID(),
		Label: "viewer@acme.test", OrgID: f.org.ID, Role: gatehouse.RoleViewer})
}

// TestPolicyVersions: each change makes a new version, an unchanged
// policy none; ifVersion guards against a lost update; a bad policy is
// refused with every problem named.
func TestPolicyVersions(t *testing.T) {
	f := newUnlock(t)
	ctx := context.Background()
	if p, err := f.svc.Policy(ctx, f.org.ID, f.door.ID); err != nil || p != nil {
		t.Fatalf("no policy yet: %+v, %v", p, err)
	}
	none := int64(0)
	p1, err := f.svc.SetPolicy(ctx, f.org.ID, f.door.ID, officeHours(), &none)
	must(t, err)
	if p1.Version != 1 || p1.UpdatedAt == nil || p1.FailMode != gatehouse.FailClosed {
		t.Fatalf("first version: %+v", p1)
	}
	again, err := f.svc.SetPolicy(ctx, f.org.ID, f.door.ID, officeHours(), nil)
	must(t, err)
	if again.Version != 1 {
		t.Errorf("an unchanged policy made version %d", again.Version)
	}
	open := gatehouse.Policy{Mode: gatehouse.ModeOpen}
	if _, err := f.svc.SetPolicy(ctx, f.org.ID, f.door.ID, open, &none); !errors.Is(err, gatehouse.ErrConflict) {
		t.Errorf("a stale ifVersion: %v, want ErrConflict", err)
	}
	one := int64(1)
	p2, err := f.svc.SetPolicy(ctx, f.org.ID, f.door.ID, open, &one)
	must(t, err)
	if p2.Version != 2 {
		t.Errorf("second version: %d", p2.Version)
	}
	got, err := f.svc.Policy(ctx, f.org.ID, f.door.ID)
	must(t, err)
	if got == nil || got.Version != 2 || got.Mode != gatehouse.ModeOpen {
		t.Errorf("current policy: %+v", got)
	}
	bad := officeHours()
	bad.Mode = "SOMETIMES"
	bad.Schedule.Windows[0].To = "25:00"
	_, err = f.svc.SetPolicy(ctx, f.org.ID, f.door.ID, bad, nil)
	wantIssues(t, "a bad policy", err, "mode", "schedule.windows[0].to")
	if _, err := f.svc.SetPolicy(ctx, f.other.ID, f.door.ID, open, nil); !errors.Is(err, gatehouse.ErrNotFound) {
		t.Errorf("another organization's access point: %v", err)
	}
	if _, err := f.svc.Policy(ctx, f.other.ID, f.door.ID); !errors.Is(err, gatehouse.ErrNotFound) {
		t.Errorf("reading another organization's policy: %v", err)
	}
}

// TestPolicyRoles: admins change policies; operators test decisions;
// viewers only read; no user records a decision.
func TestPolicyRoles(t *testing.T) {
	f := newUnlock(t)
	if _, err := f.svc.SetPolicy(f.operator, f.org.ID, f.door.ID, officeHours(), nil); !errors.Is(err, gatehouse.ErrForbidden) {
		t.Errorf("an operator set a policy: %v", err)
	}
	if _, err := f.svc.SetPolicy(f.admin(), f.org.ID, f.door.ID, officeHours(), nil); err != nil {
		t.Errorf("an admin could not set a policy: %v", err)
	}
	if _, err := f.svc.Policy(f.viewer(), f.org.ID, f.door.ID); err != nil {
		t.Errorf("a viewer could not read a policy: %v", err)
	}
	test := gatehouse.DecisionRequest{AccessPointID: f.door.ID, DecisionInput: gatehouse.DecisionInput{PlatformUserID: "7"}}
	if _, err := f.svc.Decide(f.viewer(), f.org.ID, test); !errors.Is(err, gatehouse.ErrForbidden) {
		t.Errorf("a viewer tested a decision: %v", err)
	}
	if _, err := f.svc.Decide(f.operator, f.org.ID, test); err != nil {
		t.Errorf("an operator could not test a decision: %v", err)
	}
	test.Record = true
	if _, err := f.svc.Decide(f.admin(), f.org.ID, test); !errors.Is(err, gatehouse.ErrForbidden) {
		t.Errorf("an admin recorded a decision: %v", err)
	}
}

// TestDecide: the stored policy decides, a recorded decision is the event
// stored, an unrecorded one stores nothing, and another organization's
// access point gets no decision.
func TestDecide(t *testing.T) {
	f := newUnlock(t)
	ctx := context.Background()
	ask := func(user string, groups map[string]int, at *time.Time, record bool) gatehouse.DecisionResult {
		t.Helper()
		r := gatehouse.DecisionRequest{AccessPointID: f.door.ID, Record: record,
			DecisionInput: gatehouse.DecisionInput{PlatformUserID: user, ServerJobID: "job-1",
				Attributes: gatehouse.PlayerAttributes{Groups: groups}}}
		if at != nil {
			tt := gatehouse.Time(*at)
			r.At = &tt
		}
		res, err := f.svc.Decide(f.key, f.org.ID, r)
		must(t, err)
		return res
	}
	// No policy: fail closed.
	res := ask("7", nil, nil, false)
	if res.Allowed != gatehouse.Denied || res.Reason != gatehouse.ReasonAccessPointDisabled || res.Rule != gatehouse.RuleFailMode || res.PolicyVersion != nil {
		t.Errorf("no policy: %+v", res)
	}
	_, err := f.svc.SetPolicy(ctx, f.org.ID, f.door.ID, officeHours(), nil)
	must(t, err)
	// 2026-11-20 12:00 UTC is a Friday, 13:00 in Berlin.
	for _, c := range []struct {
		user   string
		groups map[string]int
		at     time.Time
		want   gatehouse.Decision
	}{
		{"7", nil, f.now, gatehouse.Decision{Allowed: gatehouse.Granted, Reason: gatehouse.ReasonAllowlist, Rule: "allow[0]"}},
		{"8", map[string]int{"456": 200}, f.now, gatehouse.Decision{Allowed: gatehouse.Granted, Reason: gatehouse.ReasonAllowlist, Rule: "allow[1]"}},
		{"8", map[string]int{"456": 199}, f.now, gatehouse.Decision{Allowed: gatehouse.Denied, Reason: gatehouse.ReasonNotOnAllowlist, Rule: gatehouse.RuleAllow}},
		{"666", nil, f.now, gatehouse.Decision{Allowed: gatehouse.Denied, Reason: gatehouse.ReasonBlocked, Rule: "deny[0]"}},
		{"7", nil, f.now.Add(6 * time.Hour), gatehouse.Decision{Allowed: gatehouse.Denied, Reason: gatehouse.ReasonOutsideSchedule, Rule: gatehouse.RuleSchedule}},
	} {
		at := c.at
		got := ask(c.user, c.groups, &at, false)
		if got.Decision != c.want || got.PolicyVersion == nil || *got.PolicyVersion != 1 || got.EventID != nil ||
			got.AccessPoint.ID != f.door.ID || time.Time(got.At) != at {
			t.Errorf("%s %v at %s: %+v, want %+v", c.user, c.groups, at, got, c.want)
		}
	}
	if page := f.events(t); len(page) != 0 {
		t.Fatalf("unrecorded decisions stored events: %d", len(page))
	}

	// Recorded: the event is the decision.
	rec := ask("8", map[string]int{"456": 10}, nil, true)
	if rec.EventID == nil {
		t.Fatal("a recorded decision has no event id")
	}
	ev, err := f.svc.FindEvent(ctx, f.org.ID, *rec.EventID)
	must(t, err)
	if ev.Type != gatehouse.EventAccessDenied || ev.Allowed == nil || *ev.Allowed != gatehouse.Denied ||
		ev.Reason == nil || *ev.Reason != gatehouse.ReasonNotOnAllowlist || ev.PlatformUserID == nil || *ev.PlatformUserID != "8" ||
		ev.ServerJobID == nil || *ev.ServerJobID != "job-1" || time.Time(ev.OccurredAt) != f.now {
		t.Errorf("recorded event: %+v", ev)
	}

	// Another organization's access point: no decision.
	if _, err := f.svc.Decide(f.key, f.other.ID, gatehouse.DecisionRequest{AccessPointID: f.door.ID,
		DecisionInput: gatehouse.DecisionInput{PlatformUserID: "7"}}); !errors.Is(err, gatehouse.ErrNotFound) {
		t.Errorf("another organization's access point: %v", err)
	}
	// A recorded decision happens now.
	at := gatehouse.Time(f.now)
	_, err = f.svc.Decide(f.key, f.org.ID, gatehouse.DecisionRequest{AccessPointID: f.door.ID, Record: true, At: &at,
		DecisionInput: gatehouse.DecisionInput{PlatformUserID: "x"}})
	wantIssues(t, "record with at", err, "at", "platformUserId")
}

// events returns the organization's events, newest first.
func (f *unlockFixture) events(t *testing.T) []gatehouse.Event {
	t.Helper()
	page, err := f.svc.ListEvents(context.Background(), f.org.ID, gatehouse.EventFilter{Limit: 100})
	must(t, err)
	return page.Events
}

// TestDecideHonoursRemoteUnlocks: a running unlock of the access point
// grants REMOTE_UNLOCK to whom it covers, whatever the policy says, and
// stops when cancelled.
func TestDecideHonoursRemoteUnlocks(t *testing.T) {
	f := newUnlock(t)
	_, err := f.svc.SetPolicy(context.Background(), f.org.ID, f.door.ID, gatehouse.Policy{Mode: gatehouse.ModeLocked}, nil)
	must(t, err)
	f.players["job-1"] = []string{"9"}
	f.sync(t, "job-1")
	decide := func() gatehouse.Decision {
		res, err := f.svc.Decide(f.key, f.org.ID, gatehouse.DecisionRequest{AccessPointID: f.door.ID,
			DecisionInput: gatehouse.DecisionInput{PlatformUserID: "9", ServerJobID: "job-1"}})
		must(t, err)
		return res.Decision
	}
	if d := decide(); d.Reason != gatehouse.ReasonAccessPointDisabled {
		t.Fatalf("locked: %+v", d)
	}
	c, _, err := f.svc.IssueCommand(f.operator, f.org.ID, f.universe(), "")
	must(t, err)
	if d := decide(); d.Allowed != gatehouse.Granted || d.Reason != gatehouse.ReasonRemoteUnlock || d.Rule != gatehouse.RuleRemoteUnlock {
		t.Errorf("during an unlock: %+v", d)
	}
	// An unlock covers only the instants from its issue on: the same
	// question about a minute before it was issued is the policy's.
	before := gatehouse.Time(time.Time(c.IssuedAt).Add(-time.Minute))
	res, err := f.svc.Decide(f.key, f.org.ID, gatehouse.DecisionRequest{AccessPointID: f.door.ID, At: &before,
		DecisionInput: gatehouse.DecisionInput{PlatformUserID: "9", ServerJobID: "job-1"}})
	must(t, err)
	if res.Decision.Reason != gatehouse.ReasonAccessPointDisabled {
		t.Errorf("a minute before the unlock was issued: %+v", res.Decision)
	}
	_, err = f.svc.CancelCommand(f.operator, f.org.ID, c.ID)
	must(t, err)
	if d := decide(); d.Reason != gatehouse.ReasonAccessPointDisabled {
		t.Errorf("after cancelling the unlock: %+v", d)
	}
}

// TestPolicySetVersion: the set of a universe has a version that changes
// with its policies, and sync answers carry it.
func TestPolicySetVersion(t *testing.T) {
	f := newUnlock(t)
	ctx := context.Background()
	before, err := f.svc.PolicySet(f.key, f.org.ID, "42")
	must(t, err)
	if len(before.AccessPoints) != 1 || before.AccessPoints[0].Policy != nil || before.AccessPoints[0].AccessPoint.ID != f.door.ID {
		t.Fatalf("set before any policy: %+v", before)
	}
	if got := f.sync(t, "job-1").PolicyVersion; got != before.Version {
		t.Errorf("sync policyVersion %q, set %q", got, before.Version)
	}
	_, err = f.svc.SetPolicy(ctx, f.org.ID, f.door.ID, officeHours(), nil)
	must(t, err)
	after, err := f.svc.PolicySet(f.key, f.org.ID, "42")
	must(t, err)
	if after.Version == before.Version || after.AccessPoints[0].Policy == nil || after.AccessPoints[0].Policy.Version != 1 {
		t.Fatalf("set after a policy: %+v (before %s)", after, before.Version)
	}
	if len(before.Zones) != 0 || len(after.Zones) != 1 || len(after.Zones["Europe/Berlin"]) == 0 {
		t.Errorf("zones before a schedule %v, after one in Berlin %v", before.Zones, after.Zones)
	}
	if got := f.sync(t, "job-1").PolicyVersion; got != after.Version {
		t.Errorf("sync policyVersion after a change %q, set %q", got, after.Version)
	}
	same, err := f.svc.PolicySet(f.key, f.org.ID, "42")
	must(t, err)
	if same.Version != after.Version {
		t.Errorf("an unchanged set changed version: %s, %s", same.Version, after.Version)
	}
	other, err := f.svc.PolicySet(f.key, f.org.ID, "43")
	must(t, err)
	if len(other.AccessPoints) != 0 || other.Version == after.Version {
		t.Errorf("another universe's set: %+v", other)
	}
	_, err = f.svc.PolicySet(f.key, f.org.ID, "forty-two")
	wantIssues(t, "a bad universe", err, "universeId")
}

// slowIngest is a real store whose event writes wait for gate: what lets
// decisions pile up behind a write in progress.
type slowIngest struct {
	gatehouse.Store
	gate  chan struct{}
	calls atomic.Int32
}

func (s *slowIngest) IngestEvents(ctx context.Context, orgID uuid.UUID, events []gatehouse.NewEvent) (gatehouse.IngestResult, error) {
	if s.calls.Add(1) == 1 {
		<-s.gate
	}
	return s.Store.IngestEvents(ctx, orgID, events)
}

// TestRecordedDecisionsShareTransactions: decisions recorded while a
// write is in progress wait for it and then share one transaction (group
// commit), and each returns only once its own event is stored.
func TestRecordedDecisionsShareTransactions(t *testing.T) {
	base := newUnlock(t)
	clock := func() time.Time { return base.now }
	store := &slowIngest{Store: teststore.Open(t, clock), gate: make(chan struct{})}
	svc := service.New(service.Config{Store: store, Now: clock})
	ctx := context.Background()
	org, err := svc.CreateOrganization(ctx, "Acme")
	must(t, err)
	loc, err := svc.CreateLocation(ctx, org.ID, "HQ")
	must(t, err)
	door, err := svc.CreateAccessPoint(ctx, org.ID, loc.ID, "Gate")
	must(t, err)
	_, err = svc.SetPolicy(ctx, org.ID, door.ID, gatehouse.Policy{Mode: gatehouse.ModeOpen}, nil)
	must(t, err)

	const n = 50
	ids := make(chan uuid.UUID, n)
	var wg sync.WaitGroup
	decide := func() {
		defer wg.Done()
		res, err := svc.Decide(ctx, org.ID, gatehouse.DecisionRequest{AccessPointID: door.ID, Record: true,
			DecisionInput: gatehouse.DecisionInput{PlatformUserID: "7"}})
		if err != nil {
			t.Error(err)
			return
		}
		ids <- *res.EventID
	}
	wg.Add(1)
	go decide()
	for store.calls.Load() == 0 {
		time.Sleep(time.Millisecond)
	}
	wg.Add(n - 1)
	for range n - 1 {
		go decide()
	}
	time.Sleep(100 * time.Millisecond) // let them queue behind the held write
	if len(ids) != 0 {
		t.Fatal("a decision answered before its event was stored")
	}
	close(store.gate)
	wg.Wait()
	close(ids)
	for id := range ids {
		if _, err := svc.FindEvent(ctx, org.ID, id); err != nil {
			t.Errorf("event %s: %v", id, err)
		}
	}
	if calls := store.calls.Load(); calls > 3 {
		t.Errorf("%d decisions took %d transactions, want them shared", n, calls)
	}
}

// TestDecisionsSeeOtherInstancesWithinASecond: an instance decides from
// what it read for up to a second; a policy changed through another
// instance on the same database decides its decisions after that.
func TestDecisionsSeeOtherInstancesWithinASecond(t *testing.T) {
	ctx := context.Background()
	clock := func() time.Time { return time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC) }
	store := teststore.Open(t, clock)
	a := service.New(service.Config{Store: store, Now: clock})
	b := service.New(service.Config{Store: store, Now: clock})
	org, err := a.CreateOrganization(ctx, "Acme")
	must(t, err)
	loc, err := a.CreateLocation(ctx, org.ID, "HQ")
	must(t, err)
	door, err := a.CreateAccessPoint(ctx, org.ID, loc.ID, "Gate")
	must(t, err)
	_, err = a.SetPolicy(ctx, org.ID, door.ID, gatehouse.Policy{Mode: gatehouse.ModeLocked}, nil)
	must(t, err)
	reason := func(svc *service.Service) string {
		res, err := svc.Decide(ctx, org.ID, gatehouse.DecisionRequest{AccessPointID: door.ID,
			DecisionInput: gatehouse.DecisionInput{PlatformUserID: "7"}})
		must(t, err)
		return res.Reason
	}
	if got := reason(b); got != gatehouse.ReasonAccessPointDisabled {
		t.Fatalf("locked: %s", got)
	}
	_, err = a.SetPolicy(ctx, org.ID, door.ID, gatehouse.Policy{Mode: gatehouse.ModeOpen}, nil)
	must(t, err)
	if got := reason(a); got != gatehouse.ReasonOpen {
		t.Errorf("the instance that changed the policy decides by it at once: %s", got)
	}
	deadline := time.Now().Add(1500 * time.Millisecond)
	for reason(b) != gatehouse.ReasonOpen {
		if time.Now().After(deadline) {
			t.Fatal("another instance still decides by the old policy after 1.5 s")
		}
		time.Sleep(50 * time.Millisecond)
	}
}
