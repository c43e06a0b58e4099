package service_test

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/gatehouse/gatehouse"
	"github.com/google/uuid"
)

// reachFixture is an organization of three locations, each with a door,
// an event and a command at it, and grants and lockdowns of each kind:
// Lobby and Vault in universe 42, Annex in universe 77.
type reachFixture struct {
	*serviceFixture
	lobby, vault, annex    gatehouse.Location
	doors                  map[uuid.UUID]uuid.UUID // location → its door
	events                 map[uuid.UUID]uuid.UUID // location → its event
	commands               map[uuid.UUID]uuid.UUID // location → its command
	lobbyGrant, pairGrant  gatehouse.Grant         // Lobby's door; Lobby's and Vault's
	annexGrant             gatehouse.Grant         // a grant of the location
	whole, universe77      gatehouse.Lockdown      // the organization's; Annex's universe's
	lobbyDown, annexDown   gatehouse.Lockdown      // one location's each
	admin                  context.Context         // an admin of the whole organization
	limitedKey, widerKey   gatehouse.APIKey        // limited to Lobby; to Lobby and Vault
	lobbyOnly, lobbyKeyCtx context.Context         // an admin limited to Lobby; a key limited to it
}

func newReachFixture(t *testing.T) *reachFixture {
	t.Helper()
	f := &reachFixture{serviceFixture: newService(t, nil), doors: map[uuid.UUID]uuid.UUID{},
		events: map[uuid.UUID]uuid.UUID{}, commands: map[uuid.UUID]uuid.UUID{}}
	bg := context.Background()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	admin, err := f.svc.CreateUser(bg, gatehouse.NewUser{OrgID: f.org.ID, Email: "admin@acme.test", Password: "correct horse battery"})
	must(err)
	f.admin = gatehouse.WithActor(bg, gatehouse.Actor{Type: gatehouse.ActorUser, ID: admin.ID, OrgID: f.org.ID, Role: gatehouse.RoleAdmin})
	var events []gatehouse.NewEvent
	for _, l := range []struct {
		loc      *gatehouse.Location
		name, in string
	}{{&f.lobby, "Lobby", "42"}, {&f.vault, "Vault", "42"}, {&f.annex, "Annex", "77"}} {
		*l.loc, err = f.svc.CreateLocation(bg, f.org.ID, l.name)
		must(err)
		_, err = f.svc.SetLocationUniverse(bg, f.org.ID, l.loc.ID, l.in)
		must(err)
		door, err := f.svc.CreateAccessPoint(bg, f.org.ID, l.loc.ID, l.name+" door")
		must(err)
		f.doors[l.loc.ID] = door.ID
		player := "156"
		ev := gatehouse.NewEvent{ID: gatehouse.NewID(), Type: gatehouse.EventAccessGranted, OccurredAt: f.now.Add(-time.Hour),
			AccessPointID: door.ID, PlatformUserID: &player}
		f.events[l.loc.ID] = ev.ID
		events = append(events, ev)
		c, _, err := f.svc.IssueCommand(f.admin, f.org.ID, gatehouse.CommandRequest{AccessPointID: door.ID, Scope: gatehouse.ScopeUniverse}, "")
		must(err)
		f.commands[l.loc.ID] = c.ID
	}
	_, err = f.svc.IngestEvents(bg, f.org.ID, events)
	must(err)
	until := gatehouse.Time(f.now.Add(time.Hour))
	grant := func(r gatehouse.GrantRequest) gatehouse.Grant {
		t.Helper()
		r.PlatformUserID, r.Until = "156", &until
		g, _, err := f.svc.CreateGrant(f.admin, f.org.ID, r)
		must(err)
		return g
	}
	f.lobbyGrant = grant(gatehouse.GrantRequest{AccessPointIDs: []uuid.UUID{f.doors[f.lobby.ID]}})
	f.pairGrant = grant(gatehouse.GrantRequest{AccessPointIDs: []uuid.UUID{f.doors[f.lobby.ID], f.doors[f.vault.ID]}})
	f.annexGrant = grant(gatehouse.GrantRequest{LocationID: &f.annex.ID})
	lockdown := func(r gatehouse.LockdownRequest) gatehouse.Lockdown {
		t.Helper()
		r.Reason = "drill"
		l, err := f.svc.StartLockdown(f.admin, f.org.ID, r)
		must(err)
		return l
	}
	seventySeven := "77"
	f.lobbyDown = lockdown(gatehouse.LockdownRequest{Scope: gatehouse.LockdownLocation, LocationID: &f.lobby.ID})
	f.annexDown = lockdown(gatehouse.LockdownRequest{Scope: gatehouse.LockdownLocation, LocationID: &f.annex.ID})
	f.universe77 = lockdown(gatehouse.LockdownRequest{Scope: gatehouse.LockdownUniverse, UniverseID: &seventySeven})
	f.whole = lockdown(gatehouse.LockdownRequest{Scope: gatehouse.LockdownOrganization})
	limited, err := f.svc.CreateUser(bg, gatehouse.NewUser{OrgID: f.org.ID, Email: "lobby@acme.test", Password: "correct horse battery",
		Role: gatehouse.RoleAdmin, Locations: []uuid.UUID{f.lobby.ID}})
	must(err)
	if !slices.Equal(limited.Reach, gatehouse.Reach{f.lobby.ID}) {
		t.Fatalf("the limited admin's reach: %v", limited.Reach)
	}
	f.lobbyOnly = gatehouse.WithActor(bg, gatehouse.Actor{Type: gatehouse.ActorUser, ID: limited.ID, OrgID: f.org.ID,
		Role: gatehouse.RoleAdmin, Reach: limited.Reach})
	f.limitedKey, _, err = f.svc.CreateAPIKey(f.lobbyOnly, gatehouse.NewAPIKey{OrgID: f.org.ID, Name: "lobby-bot",
		Scopes: []gatehouse.Scope{gatehouse.ScopeEventsRead, gatehouse.ScopeCommandsWrite}})
	must(err)
	f.widerKey, _, err = f.svc.CreateAPIKey(f.admin, gatehouse.NewAPIKey{OrgID: f.org.ID, Name: "two-rooms",
		Scopes: []gatehouse.Scope{gatehouse.ScopeEventsRead}, Locations: []uuid.UUID{f.lobby.ID, f.vault.ID}})
	must(err)
	f.lobbyKeyCtx = gatehouse.WithActor(bg, gatehouse.Actor{Type: gatehouse.ActorKey, ID: f.limitedKey.ID, OrgID: f.org.ID,
		Scopes: f.limitedKey.Scopes, Reach: f.limitedKey.Reach})
	return f
}

// TestReachInTheService: a role limited to a location sees and acts on
// that location's access points, events, commands, lockdowns, grants,
// insights and keys only, and is refused what concerns the whole
// organization; a key its user makes carries the same limit. Records
// outside the reach are not found, as another organization's are not.
func TestReachInTheService(t *testing.T) {
	f := newReachFixture(t)
	if !slices.Equal(f.limitedKey.Reach, gatehouse.Reach{f.lobby.ID}) {
		t.Fatalf("a limited admin's key is limited to %v, want theirs", f.limitedKey.Reach)
	}
	for _, who := range []struct {
		name string
		ctx  context.Context
	}{{"an admin limited to Lobby", f.lobbyOnly}, {"a key limited to Lobby", f.lobbyKeyCtx}} {
		t.Run(who.name, func(t *testing.T) {
			checkReads(t, f, who.ctx, []uuid.UUID{f.lobby.ID})
			checkNotFound(t, f, who.ctx)
		})
	}
	t.Run("an admin of the whole organization", func(t *testing.T) {
		checkReads(t, f, f.admin, []uuid.UUID{f.lobby.ID, f.vault.ID, f.annex.ID})
	})
	t.Run("actions", func(t *testing.T) { checkLimitedActions(t, f) })
	t.Run("the whole organization's operations", func(t *testing.T) { checkWholeOrganizationRefused(t, f) })
	t.Run("keys", func(t *testing.T) { checkLimitedKeys(t, f) })
}

// checkReads reads every list as ctx and wants the records of locs.
func checkReads(t *testing.T, f *reachFixture, ctx context.Context, locs []uuid.UUID) {
	t.Helper()
	want := func(what string, got []uuid.UUID, of map[uuid.UUID]uuid.UUID) {
		t.Helper()
		var exp []uuid.UUID
		for _, l := range locs {
			exp = append(exp, of[l])
		}
		slices.SortFunc(got, func(a, b uuid.UUID) int { return slices.Compare(a[:], b[:]) })
		slices.SortFunc(exp, func(a, b uuid.UUID) int { return slices.Compare(a[:], b[:]) })
		if !slices.Equal(got, exp) {
			t.Errorf("%s: %v, want %v", what, got, exp)
		}
	}
	// Each location has its access event and its unlock's.
	wantEvents := func(what string, evs []gatehouse.Event, err error) {
		t.Helper()
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		var ids []uuid.UUID
		for _, ev := range evs {
			if ev.Type == gatehouse.EventAccessGranted {
				ids = append(ids, ev.ID)
			}
			if !slices.Contains(locs, ev.Location.ID) {
				t.Errorf("%s: an event of %s", what, ev.Location.Name)
			}
		}
		if len(evs) != 2*len(locs) {
			t.Errorf("%s: %d events, want %d", what, len(evs), 2*len(locs))
		}
		want(what, ids, f.events)
	}
	page, err := f.svc.ListEvents(ctx, f.org.ID, gatehouse.EventFilter{Limit: 100})
	wantEvents("events", page.Events, err)
	page, err = f.svc.ListEvents(ctx, f.org.ID, gatehouse.EventFilter{Q: "door", Limit: 100})
	wantEvents("events matching q=door", page.Events, err)
	feed, err := f.svc.ReadFeed(ctx, f.org.ID, gatehouse.FeedQuery{Filter: gatehouse.EventFilter{Limit: 100}})
	wantEvents("the feed", feed.Events, err)
	from, to := f.now.Add(-2*time.Hour), f.now.Add(time.Minute)
	counts, _, err := f.svc.Insights(ctx, f.org.ID, gatehouse.InsightQuery{Filter: gatehouse.EventFilter{From: &from, To: &to},
		GroupBy: gatehouse.GroupLocation, Zone: time.UTC}, 10)
	if err != nil {
		t.Fatal(err)
	}
	var ids []uuid.UUID
	for _, c := range counts {
		ids = append(ids, uuid.MustParse(c.Key))
	}
	want("insights by location", ids, map[uuid.UUID]uuid.UUID{f.lobby.ID: f.lobby.ID, f.vault.ID: f.vault.ID, f.annex.ID: f.annex.ID})
	buckets, err := f.svc.CountEvents(ctx, f.org.ID, gatehouse.EventFilter{From: &from, To: &to}, time.Hour)
	n := 0
	for _, b := range buckets {
		n += b.Granted + b.Denied + b.Other
	}
	if err != nil || n != 2*len(locs) {
		t.Errorf("the event log's histogram counts %d events (%v), want %d", n, err, 2*len(locs))
	}
	all, err := f.svc.AllLocations(ctx, f.org.ID, true)
	if err != nil {
		t.Fatal(err)
	}
	ids = nil
	for _, l := range all {
		ids = append(ids, l.ID)
	}
	want("locations", ids, map[uuid.UUID]uuid.UUID{f.lobby.ID: f.lobby.ID, f.vault.ID: f.vault.ID, f.annex.ID: f.annex.ID})
	cmds, err := f.svc.ListCommands(ctx, f.org.ID, gatehouse.CommandFilter{Limit: 100})
	if err != nil {
		t.Fatal(err)
	}
	ids = nil
	for _, c := range cmds.Commands {
		if c.Type == gatehouse.CommandUnlock {
			ids = append(ids, c.ID)
		}
	}
	want("unlocks", ids, f.commands)
	grants, err := f.svc.ListGrants(ctx, f.org.ID, gatehouse.GrantFilter{Limit: 100})
	if err != nil {
		t.Fatal(err)
	}
	ids = nil
	for _, g := range grants.Grants {
		ids = append(ids, g.ID)
	}
	wantGrants := map[uuid.UUID]uuid.UUID{f.lobby.ID: f.lobbyGrant.ID, f.vault.ID: f.pairGrant.ID, f.annex.ID: f.annexGrant.ID}
	if len(locs) == 1 {
		wantGrants = map[uuid.UUID]uuid.UUID{f.lobby.ID: f.lobbyGrant.ID} // the pair reaches Vault too
	}
	want("grants", ids, wantGrants)
	downs, err := f.svc.ListLockdowns(ctx, f.org.ID, gatehouse.LockdownFilter{Limit: 100})
	if err != nil {
		t.Fatal(err)
	}
	ids = nil
	for _, l := range downs.Lockdowns {
		ids = append(ids, l.ID)
	}
	wantDowns := map[uuid.UUID]uuid.UUID{f.lobby.ID: f.lobbyDown.ID, f.vault.ID: f.whole.ID, f.annex.ID: f.annexDown.ID, uuid.Nil: f.universe77.ID}
	if len(locs) == 1 {
		wantDowns = map[uuid.UUID]uuid.UUID{f.lobby.ID: f.lobbyDown.ID, uuid.Nil: f.whole.ID} // Lobby's, and the organization's
	}
	var wantIDs []uuid.UUID
	for _, id := range wantDowns {
		wantIDs = append(wantIDs, id)
	}
	slices.SortFunc(ids, func(a, b uuid.UUID) int { return slices.Compare(a[:], b[:]) })
	slices.SortFunc(wantIDs, func(a, b uuid.UUID) int { return slices.Compare(a[:], b[:]) })
	if !slices.Equal(ids, wantIDs) {
		t.Errorf("lockdowns: %v, want %v", ids, wantIDs)
	}
}

// checkNotFound: ctx, limited to Lobby, finds nothing of Annex's, nor a
// grant that also covers Vault, nor the lockdown of Annex's universe.
func checkNotFound(t *testing.T, f *reachFixture, ctx context.Context) {
	t.Helper()
	annex, door := f.annex.ID, f.doors[f.annex.ID]
	for name, err := range map[string]error{
		"its event":       second(f.svc.FindEvent(ctx, f.org.ID, f.events[annex])),
		"its location":    second(f.svc.FindLocation(ctx, f.org.ID, annex)),
		"its doors":       second(f.svc.ListAccessPoints(ctx, f.org.ID, annex, true)),
		"its live view":   second(f.svc.LocationLive(ctx, f.org.ID, annex)),
		"its command":     second(f.svc.FindCommand(ctx, f.org.ID, f.commands[annex])),
		"its grant":       second(f.svc.FindGrant(ctx, f.org.ID, f.annexGrant.ID)),
		"a wider grant":   second(f.svc.FindGrant(ctx, f.org.ID, f.pairGrant.ID)),
		"its lockdown":    second(f.svc.FindLockdown(ctx, f.org.ID, f.annexDown.ID)),
		"its universe's":  second(f.svc.FindLockdown(ctx, f.org.ID, f.universe77.ID)),
		"its door's rule": second(f.svc.Policy(ctx, f.org.ID, door)),
		"a decision":      second(f.svc.Decide(ctx, f.org.ID, gatehouse.DecisionRequest{AccessPointID: door, DecisionInput: gatehouse.DecisionInput{PlatformUserID: "156"}})),
		"its cancel":      second(f.svc.CancelCommand(ctx, f.org.ID, f.commands[annex])),
		"a revoke":        second(f.svc.RevokeGrant(ctx, f.org.ID, f.annexGrant.ID)),
		"a release":       second(f.svc.ReleaseLockdown(ctx, f.org.ID, f.annexDown.ID)),
	} {
		if !errors.Is(err, gatehouse.ErrNotFound) {
			t.Errorf("Annex's %s: %v, want ErrNotFound", name, err)
		}
	}
	if page, err := f.svc.ListEvents(ctx, f.org.ID, gatehouse.EventFilter{LocationID: &annex, Limit: 10}); err != nil || len(page.Events) != 0 {
		t.Errorf("events of Annex asked by name: %d %v", len(page.Events), err)
	}
	if _, err := f.svc.FindLockdown(ctx, f.org.ID, f.whole.ID); err != nil {
		t.Errorf("the organization's lockdown holds Lobby too: %v", err)
	}
}

// checkLimitedActions: the admin limited to Lobby acts on Lobby only.
func checkLimitedActions(t *testing.T, f *reachFixture) {
	ctx := f.lobbyOnly
	annexDoor, lobbyDoor := f.doors[f.annex.ID], f.doors[f.lobby.ID]
	if _, err := f.svc.ReleaseLockdown(f.admin, f.org.ID, f.whole.ID); err != nil {
		t.Fatal(err)
	}
	_, _, err := f.svc.IssueCommand(ctx, f.org.ID, gatehouse.CommandRequest{AccessPointID: annexDoor, Scope: gatehouse.ScopeUniverse}, "")
	wantIssues(t, "an unlock of Annex's door", err, "accessPointId")
	until := gatehouse.Time(f.now.Add(time.Hour))
	_, _, err = f.svc.CreateGrant(ctx, f.org.ID, gatehouse.GrantRequest{PlatformUserID: "7", AccessPointIDs: []uuid.UUID{lobbyDoor, annexDoor}, Until: &until})
	wantIssues(t, "a grant reaching Annex", err, "accessPointIds[1]")
	_, _, err = f.svc.CreateGrant(ctx, f.org.ID, gatehouse.GrantRequest{PlatformUserID: "7", LocationID: &f.annex.ID, Until: &until})
	wantIssues(t, "a grant of Annex", err, "locationId")
	if _, _, err := f.svc.CreateGrant(ctx, f.org.ID, gatehouse.GrantRequest{PlatformUserID: "7", LocationID: &f.lobby.ID, Until: &until}); err != nil {
		t.Errorf("a grant of Lobby: %v", err)
	}
	if _, err := f.svc.SetPolicy(ctx, f.org.ID, annexDoor, gatehouse.Policy{Mode: gatehouse.ModeLocked}, nil); !errors.Is(err, gatehouse.ErrNotFound) {
		t.Errorf("Annex's door's policy set: %v", err)
	}
	if _, err := f.svc.SetPolicy(ctx, f.org.ID, lobbyDoor, gatehouse.Policy{Mode: gatehouse.ModeLocked}, nil); err != nil {
		t.Errorf("Lobby's door's policy: %v", err)
	}
	if _, err := f.svc.Decide(ctx, f.org.ID, gatehouse.DecisionRequest{AccessPointID: lobbyDoor, DecisionInput: gatehouse.DecisionInput{PlatformUserID: "156"}}); err != nil {
		t.Errorf("a decision at Lobby's door: %v", err)
	}
	_, err = f.svc.StartLockdown(ctx, f.org.ID, gatehouse.LockdownRequest{Scope: gatehouse.LockdownLocation, LocationID: &f.annex.ID, Reason: "x"})
	wantIssues(t, "a lockdown of Annex", err, "locationId")
	seventySeven := "77"
	for _, r := range []gatehouse.LockdownRequest{{Scope: gatehouse.LockdownOrganization, Reason: "x"}, {Scope: gatehouse.LockdownUniverse, UniverseID: &seventySeven, Reason: "x"}} {
		if _, err := f.svc.StartLockdown(ctx, f.org.ID, r); !errors.Is(err, gatehouse.ErrForbidden) {
			t.Errorf("a limited admin's %s lockdown: %v, want ErrForbidden", r.Scope, err)
		}
	}
	if _, err := f.svc.ReleaseLockdown(ctx, f.org.ID, f.universe77.ID); !errors.Is(err, gatehouse.ErrNotFound) {
		t.Errorf("releasing Annex's universe's lockdown: %v", err)
	}
	down, err := f.svc.ReleaseLockdown(ctx, f.org.ID, f.lobbyDown.ID)
	if err != nil || down.Active {
		t.Errorf("releasing Lobby's lockdown: %+v %v", down, err)
	}
	if ds, _ := f.svc.ListLockdowns(f.admin, f.org.ID, gatehouse.LockdownFilter{Limit: 10, Active: true}); true {
		for _, d := range ds.Lockdowns {
			t.Logf("DEBUG %s %v %v", d.Scope, d.Active, d.ReleasedAt)
		}
	}
	c, _, err := f.svc.IssueCommand(ctx, f.org.ID, gatehouse.CommandRequest{AccessPointID: lobbyDoor, Scope: gatehouse.ScopeUniverse}, "k1")
	if err != nil {
		t.Fatalf("an unlock of Lobby's door: %v", err)
	}
	if _, err := f.svc.CancelCommand(ctx, f.org.ID, c.ID); err != nil {
		t.Errorf("cancelling it: %v", err)
	}
	// A limited actor's idempotency keys are its own: another's key
	// neither replays their command to it nor blocks its own.
	vault := gatehouse.CommandRequest{AccessPointID: f.doors[f.vault.ID], Scope: gatehouse.ScopeUniverse}
	theirs, _, err := f.svc.IssueCommand(f.admin, f.org.ID, vault, "k2")
	if err != nil {
		t.Fatal(err)
	}
	_, _, err = f.svc.IssueCommand(ctx, f.org.ID, vault, "k2")
	wantIssues(t, "a replay of Vault's unlock", err, "accessPointId")
	lobby := gatehouse.CommandRequest{AccessPointID: lobbyDoor, Scope: gatehouse.ScopeUniverse}
	own, replayed, err := f.svc.IssueCommand(ctx, f.org.ID, lobby, "k2")
	if err != nil || replayed || own.ID == theirs.ID {
		t.Errorf("the limited admin's own unlock under another's key: %v replayed %v", err, replayed)
	}
	if again, replayed, err := f.svc.IssueCommand(ctx, f.org.ID, lobby, "k2"); err != nil || !replayed || again.ID != own.ID {
		t.Errorf("its retry: %v replayed %v", err, replayed)
	}
	// A receipt is the organization's: a limited actor gives none.
	receipt := "gp-1"
	_, _, err = f.svc.CreateGrant(ctx, f.org.ID, gatehouse.GrantRequest{PlatformUserID: "7", LocationID: &f.lobby.ID, Until: &until,
		Source: &gatehouse.GrantSource{Type: gatehouse.GrantGamePass, ReceiptID: &receipt}})
	wantIssues(t, "a limited admin's receipt", err, "source.receiptId")
	if _, err := f.svc.Decide(f.lobbyKeyCtx, f.org.ID, gatehouse.DecisionRequest{AccessPointID: lobbyDoor, Record: true,
		DecisionInput: gatehouse.DecisionInput{PlatformUserID: "156"}}); !errors.Is(err, gatehouse.ErrOutsideReach) {
		t.Errorf("a limited key records a decision: %v", err)
	}
}

// checkWholeOrganizationRefused: what concerns every location is
// refused to a limited admin, though their role would allow it.
func checkWholeOrganizationRefused(t *testing.T, f *reachFixture) {
	ctx := f.lobbyOnly
	for name, err := range map[string]error{
		"list users":         second(f.svc.ListUsers(ctx, f.org.ID)),
		"invite a user":      third(f.svc.InviteUser(ctx, gatehouse.NewUser{OrgID: f.org.ID, Email: "new@acme.test"})),
		"change a role":      second(f.svc.SetUserRole(ctx, f.org.ID, "lobby@acme.test", gatehouse.RoleAdmin, nil)),
		"create a location":  second(f.svc.CreateLocation(ctx, f.org.ID, "Roof")),
		"rename Lobby":       second(f.svc.RenameLocation(ctx, f.org.ID, f.lobby.ID, "Hall")),
		"add a door":         second(f.svc.CreateAccessPoint(ctx, f.org.ID, f.lobby.ID, "Side door")),
		"read the audit log": second(f.svc.ListAuditLog(ctx, f.org.ID, gatehouse.AuditFilter{Limit: 10})),
		"list webhooks":      second(f.svc.ListWebhooks(ctx, f.org.ID)),
		"list alert rules":   second(f.svc.ListAlertRules(ctx, f.org.ID)),
		"list push keys":     second(f.svc.ListMessaging(ctx, f.org.ID)),
		"set the retention":  second(f.svc.SetRetention(ctx, f.org.ID, 400)),
		"read a policy set":  second(f.svc.PolicySet(ctx, f.org.ID, "42")),
	} {
		if !errors.Is(err, gatehouse.ErrForbidden) {
			t.Errorf("a limited admin may %s: %v, want ErrForbidden", name, err)
		}
	}
	key := f.lobbyKeyCtx
	for name, err := range map[string]error{
		"write events":  second(f.svc.IngestEvents(key, f.org.ID, nil)),
		"sync a server": second(f.svc.Sync(key, f.org.ID, gatehouse.SyncRequest{UniverseID: "42"})),
	} {
		if !errors.Is(err, gatehouse.ErrOutsideReach) {
			t.Errorf("a limited key may %s: %v, want ErrOutsideReach", name, err)
		}
	}
	if _, err := f.svc.Organization(ctx, f.org.ID); err != nil {
		t.Errorf("a limited member reads their organization's settings: %v", err)
	}
}

// checkLimitedKeys: a limited admin makes keys within their reach, with
// the scopes such a key may hold, and sees and changes only those.
func checkLimitedKeys(t *testing.T, f *reachFixture) {
	ctx := f.lobbyOnly
	_, _, err := f.svc.CreateAPIKey(ctx, gatehouse.NewAPIKey{OrgID: f.org.ID, Name: "x", Scopes: []gatehouse.Scope{gatehouse.ScopeEventsRead}, Locations: []uuid.UUID{f.annex.ID}})
	wantIssues(t, "a key of Annex", err, "locations")
	_, _, err = f.svc.CreateAPIKey(ctx, gatehouse.NewAPIKey{OrgID: f.org.ID, Name: "x", Scopes: []gatehouse.Scope{gatehouse.ScopeEventsWrite}})
	wantIssues(t, "a limited key writing events", err, "scopes")
	_, _, err = f.svc.CreateAPIKey(f.admin, gatehouse.NewAPIKey{OrgID: f.org.ID, Name: "x", Scopes: []gatehouse.Scope{gatehouse.ScopeGameServer}, Locations: []uuid.UUID{f.lobby.ID}})
	wantIssues(t, "a limited game server's key", err, "scopes")
	_, _, err = f.svc.CreateAPIKey(f.admin, gatehouse.NewAPIKey{OrgID: f.org.ID, Name: "x", Scopes: []gatehouse.Scope{gatehouse.ScopeEventsRead}, Locations: []uuid.UUID{f.other.ID}})
	wantIssues(t, "a key limited to an id that is no location", err, "locations")
	keys, err := f.svc.ListAPIKeys(ctx, f.org.ID)
	if err != nil || len(keys) != 1 || keys[0].ID != f.limitedKey.ID {
		t.Errorf("a limited admin lists %d keys (%v), want their Lobby key only", len(keys), err)
	}
	for name, err := range map[string]error{
		"find":   second(f.svc.FindAPIKey(ctx, f.org.ID, f.widerKey.ID)),
		"revoke": second(f.svc.RevokeAPIKey(ctx, f.org.ID, f.widerKey.ID)),
		"rate":   second(f.svc.SetAPIKeyRate(ctx, f.org.ID, f.widerKey.ID, nil)),
	} {
		if !errors.Is(err, gatehouse.ErrNotFound) {
			t.Errorf("a limited admin may %s a key reaching Vault: %v, want ErrNotFound", name, err)
		}
	}
	if _, err := f.svc.RevokeAPIKey(ctx, f.org.ID, f.limitedKey.ID); err != nil {
		t.Errorf("revoking their own key: %v", err)
	}
	if keys, err := f.svc.ListAPIKeys(f.admin, f.org.ID); err != nil || len(keys) != 2 {
		t.Errorf("the whole admin lists %d keys (%v), want both", len(keys), err)
	}
}

// TestTheLastWholeAdminStays: limiting or demoting the organization's
// last admin of every location is refused, an admin limited to
// locations not counting as one; a user's locations must be the
// organization's; changing them is audited, and narrowing them signs the
// user out.
func TestTheLastWholeAdminStays(t *testing.T) {
	f := newService(t, nil)
	bg := context.Background()
	loc, err := f.svc.CreateLocation(bg, f.org.ID, "Lobby")
	if err != nil {
		t.Fatal(err)
	}
	first, err := f.svc.CreateUser(bg, gatehouse.NewUser{OrgID: f.org.ID, Email: "first@acme.test", Password: "correct horse battery"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.svc.CreateUser(bg, gatehouse.NewUser{OrgID: f.org.ID, Email: "lobby@acme.test", Password: "correct horse battery",
		Role: gatehouse.RoleAdmin, Locations: []uuid.UUID{loc.ID}}); err != nil {
		t.Fatal(err)
	}
	if _, err := f.svc.SetUserRole(bg, f.org.ID, first.Email, gatehouse.RoleAdmin, []uuid.UUID{loc.ID}); !errors.Is(err, gatehouse.ErrConflict) {
		t.Errorf("limiting the last whole admin: %v, want ErrConflict", err)
	}
	if _, err := f.svc.RemoveUser(bg, f.org.ID, first.Email); !errors.Is(err, gatehouse.ErrConflict) {
		t.Errorf("removing the last whole admin: %v, want ErrConflict", err)
	}
	_, err = f.svc.SetUserRole(bg, f.org.ID, "lobby@acme.test", gatehouse.RoleViewer, []uuid.UUID{f.other.ID})
	wantIssues(t, "a location of another organization", err, "locations")
	_, token, _, err := f.svc.SignIn(bg, "lobby@acme.test", "correct horse battery", "")
	if err != nil {
		t.Fatal(err)
	}
	second, err := f.svc.CreateLocation(bg, f.org.ID, "Vault")
	if err != nil {
		t.Fatal(err)
	}
	widened, err := f.svc.SetUserRole(bg, f.org.ID, "lobby@acme.test", gatehouse.RoleAdmin, []uuid.UUID{loc.ID, second.ID})
	if err != nil || len(widened.Reach) != 2 {
		t.Fatalf("widening: %+v %v", widened.Reach, err)
	}
	if _, _, err := f.svc.FindSession(bg, token); err != nil {
		t.Errorf("widening signed the user out: %v", err)
	}
	if _, err := f.svc.SetUserRole(bg, f.org.ID, "lobby@acme.test", gatehouse.RoleAdmin, []uuid.UUID{second.ID}); err != nil {
		t.Fatal(err)
	}
	if _, _, err := f.svc.FindSession(bg, token); err == nil {
		t.Error("narrowing left the user signed in")
	}
	page, err := f.svc.ListAuditLog(bg, f.org.ID, gatehouse.AuditFilter{Limit: 10})
	if err != nil {
		t.Fatal(err)
	}
	var changed []gatehouse.AuditChange
	for _, e := range page.Entries {
		if e.Action == gatehouse.AuditUserRoleChanged {
			changed = append(changed, e.Changes["locations"])
		}
	}
	if len(changed) != 2 || changed[0].To != second.ID.String() || changed[0].From != loc.ID.String()+","+second.ID.String() {
		t.Errorf("the audit log's changes of locations: %+v", changed)
	}
}

func third[T, U any](_ T, _ U, err error) error { return err }
