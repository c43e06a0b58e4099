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
