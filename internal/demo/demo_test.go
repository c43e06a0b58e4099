package demo_test

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/gatehouse/gatehouse"
	"github.com/gatehouse/gatehouse/internal/demo"
	"github.com/gatehouse/gatehouse/internal/service"
	"github.com/gatehouse/gatehouse/internal/sqlite"
	"github.com/google/uuid"
)

func openSQLite(t *testing.T) *sqlite.DB {
	t.Helper()
	ctx := context.Background()
	db, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "demo.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	if err := db.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	return db
}

// demoUnlock is a remote unlock as the stored REMOTE_UNLOCK event shows it.
type demoUnlock struct {
	from time.Time
	gatehouse.ActiveUnlock
}

// TestDemoEventsAreDecisions: every ACCESS_GRANTED and ACCESS_DENIED event
// of the demo has the outcome and the reason the evaluator gives on its
// door's stored policy, at its instant, for its player's attributes, with
// the demo's unlocks active then, read back from its REMOTE_UNLOCK events;
// and the service, asked to explain the same attempt, agrees.
func TestDemoEventsAreDecisions(t *testing.T) {
	ctx := context.Background()
	db := openSQLite(t)
	now := time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)
	org, created, err := demo.Seed(ctx, db, now, demo.DefaultEvents)
	if err != nil || !created {
		t.Fatalf("seed: %v %v", created, err)
	}
	svc := service.New(service.Config{Store: db, Now: func() time.Time { return now }})

	policies := map[uuid.UUID]*gatehouse.CompiledPolicy{}
	modes := map[gatehouse.PolicyMode]int{}
	locs, _, err := svc.ListLocations(ctx, org.ID, 100, nil, false)
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range locs {
		for _, ap := range l.AccessPoints {
			p, err := svc.Policy(ctx, org.ID, ap.ID)
			if err != nil || p == nil {
				t.Fatalf("the policy of %s, %s: %v %v", l.Name, ap.Name, p, err)
			}
			if p.Version != 1 {
				t.Errorf("%s, %s has policy version %d", l.Name, ap.Name, p.Version)
			}
			modes[p.Mode]++
			if policies[ap.ID], err = p.Compile(); err != nil {
				t.Fatalf("the policy of %s, %s: %v", l.Name, ap.Name, err)
			}
		}
	}
	if len(policies) != 13 || modes[gatehouse.ModeLocked] == 0 || modes[gatehouse.ModeOpen] == 0 || modes[gatehouse.ModeRules] == 0 {
		t.Errorf("%d doors with policies of modes %v", len(policies), modes)
	}

	var events []gatehouse.Event
	f := gatehouse.EventFilter{Limit: 500}
	for {
		page, err := svc.ListEvents(ctx, org.ID, f)
		if err != nil {
			t.Fatal(err)
		}
		events = append(events, page.Events...)
		if page.Next == nil {
			break
		}
		f.After = page.Next
	}
	if len(events) != demo.DefaultEvents {
		t.Fatalf("%d events", len(events))
	}
	unlocks := map[uuid.UUID][]demoUnlock{}
	for _, e := range events {
		if e.Type != gatehouse.EventRemoteUnlock || e.Command == nil || !demo.UnlockOpens(e.Command.Status) {
			continue
		}
		from := time.Time(e.Command.IssuedAt)
		u := demoUnlock{from: from, ActiveUnlock: gatehouse.ActiveUnlock{Scope: e.Command.Scope, Until: gatehouse.Time(from.Add(demo.UnlockDuration))}}
		if e.Command.ServerJobID != nil {
			u.ServerJobID = *e.Command.ServerJobID
		}
		if e.Command.PlatformUserID != nil {
			u.PlatformUserID = *e.Command.PlatformUserID
		}
		unlocks[e.AccessPoint.ID] = append(unlocks[e.AccessPoint.ID], u)
	}
	// Every command an event names is one the demo issued: it is found,
	// with the status the event shows, and every settled status is seen.
	statuses := map[gatehouse.CommandStatus]int{}
	for _, e := range events {
		if e.Command == nil {
			continue
		}
		c, err := svc.FindCommand(ctx, org.ID, e.Command.ID)
		if err != nil || c.Status != e.Command.Status || c.AccessPoint.ID != e.AccessPoint.ID {
			t.Errorf("event %s names command %s (%s): found %s at %s (%v)", e.ID, e.Command.ID, e.Command.Status, c.Status, c.AccessPoint.ID, err)
		}
		if e.Type == gatehouse.EventRemoteUnlock {
			statuses[c.Status]++
		}
	}
	for _, st := range []gatehouse.CommandStatus{gatehouse.CommandExecuted, gatehouse.CommandFailed, gatehouse.CommandExpired, gatehouse.CommandCancelled} {
		if statuses[st] == 0 {
			t.Errorf("no demo command is %s: %v", st, statuses)
		}
	}
	players := map[string]gatehouse.PlayerAttributes{}
	for _, p := range demo.Population() {
		players[p.PlatformUserID] = p.Attributes
	}

	reasons := map[string]int{}
	outcomes := map[gatehouse.Outcome]int{}
	for _, e := range events {
		if e.Type != gatehouse.EventAccessGranted && e.Type != gatehouse.EventAccessDenied {
			continue
		}
		if e.PlatformUserID == nil || e.ServerJobID == nil || e.Allowed == nil || e.Reason == nil {
			t.Fatalf("event %s lacks a player, a server, an outcome or a reason", e.ID)
		}
		attrs, ok := players[*e.PlatformUserID]
		if !ok {
			t.Fatalf("event %s: player %s is not of the demo's population", e.ID, *e.PlatformUserID)
		}
		at := time.Time(e.OccurredAt)
		in := gatehouse.DecisionInput{PlatformUserID: *e.PlatformUserID, ServerJobID: *e.ServerJobID, Attributes: attrs}
		for _, u := range unlocks[e.AccessPoint.ID] {
			if !u.from.After(at) && time.Time(u.Until).After(at) {
				in.Unlocks = append(in.Unlocks, u.ActiveUnlock)
			}
		}
		d := gatehouse.Decide(policies[e.AccessPoint.ID], in, at)
		if *e.Allowed != d.Allowed || *e.Reason != d.Reason {
			t.Errorf("%s at %s, %s at %s: stored %s %s, the policy decides %s %s (%s)",
				e.Type, e.Location.Name, e.AccessPoint.Name, at.Format(time.RFC3339), *e.Allowed, *e.Reason, d.Allowed, d.Reason, d.Rule)
		}
		if (e.Type == gatehouse.EventAccessGranted) != (d.Allowed == gatehouse.Granted) {
			t.Errorf("event %s is %s for a decision %s", e.ID, e.Type, d.Allowed)
		}
		if e.Command != nil && d.Reason != gatehouse.ReasonRemoteUnlock {
			t.Errorf("event %s shows command %s but was decided %s", e.ID, e.Command.ID, d.Reason)
		}
		// The service's explanation at that instant agrees, the unlocks
		// in force then included: the demo's unlocks are commands it
		// issued, which the service finds.
		asked := in
		asked.Unlocks = nil
		then := gatehouse.Time(at)
		res, err := svc.Decide(ctx, org.ID, gatehouse.DecisionRequest{AccessPointID: e.AccessPoint.ID, DecisionInput: asked, At: &then})
		if err != nil || res.Decision != d || res.PolicyVersion == nil || *res.PolicyVersion != 1 {
			t.Errorf("the service explains event %s as %+v (%v), the evaluator %+v", e.ID, res, err, d)
		}
		reasons[*e.Reason]++
		outcomes[*e.Allowed]++
	}
	for _, r := range []string{gatehouse.ReasonSchedule, gatehouse.ReasonAllowlist, gatehouse.ReasonOpen, gatehouse.ReasonRemoteUnlock,
		gatehouse.ReasonOutsideSchedule, gatehouse.ReasonNotOnAllowlist, gatehouse.ReasonAccessPointDisabled, gatehouse.ReasonBlocked} {
		if reasons[r] == 0 {
			t.Errorf("no demo event has the reason %s: %v", r, reasons)
		}
	}
	if denied := float64(outcomes[gatehouse.Denied]) / float64(outcomes[gatehouse.Denied]+outcomes[gatehouse.Granted]); denied < 0.1 || denied > 0.3 {
		t.Errorf("%.0f%% of the demo's attempts are denied: %v", denied*100, outcomes)
	}
}

// TestDemoSeedGivesOldDemoPolicies: a demo organization made before
// policies existed gets the demo's policies for its doors that have none
// when it is seeded again, and a door whose policy an operator set keeps
// it.
func TestDemoSeedGivesOldDemoPolicies(t *testing.T) {
	ctx := context.Background()
	db := openSQLite(t)
	now := time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)
	org, err := db.CreateOrganization(ctx, gatehouse.SystemEntry(gatehouse.AuditOrganizationCreated), demo.OrgName)
	if err != nil {
		t.Fatal(err)
	}
	loc, err := db.CreateLocation(ctx, gatehouse.SystemEntry(gatehouse.AuditLocationCreated), org.ID, "Headquarters")
	if err != nil {
		t.Fatal(err)
	}
	front, err := db.CreateAccessPoint(ctx, gatehouse.SystemEntry(gatehouse.AuditAccessPointCreated), org.ID, loc.ID, "Front door")
	if err != nil {
		t.Fatal(err)
	}
	roof, err := db.CreateAccessPoint(ctx, gatehouse.SystemEntry(gatehouse.AuditAccessPointCreated), org.ID, loc.ID, "Roof access")
	if err != nil {
		t.Fatal(err)
	}
	svc := service.New(service.Config{Store: db, Now: func() time.Time { return now }})
	if _, err := svc.SetPolicy(ctx, org.ID, roof.ID, gatehouse.Policy{Mode: gatehouse.ModeOpen}, nil); err != nil {
		t.Fatal(err)
	}
	if _, created, err := demo.Seed(ctx, db, now, 100); err != nil || created {
		t.Fatalf("seed: %v %v", created, err)
	}
	p, err := svc.Policy(ctx, org.ID, front.ID)
	if err != nil || p == nil || p.Mode != gatehouse.ModeRules || p.Schedule == nil || p.Schedule.TimeZone != "Europe/Berlin" {
		t.Errorf("the old demo's front door has the policy %+v (%v)", p, err)
	}
	p, err = svc.Policy(ctx, org.ID, roof.ID)
	if err != nil || p == nil || p.Mode != gatehouse.ModeOpen || p.Version != 1 {
		t.Errorf("the operator's policy of the roof became %+v (%v)", p, err)
	}
}
