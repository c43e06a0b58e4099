package service_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/gatehouse/gatehouse"
	"github.com/google/uuid"
)

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
