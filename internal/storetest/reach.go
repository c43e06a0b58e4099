package storetest

import (
	"slices"
	"testing"

	"github.com/gatehouse/gatehouse"
)

// testReachStored: the locations a user's role and a key are limited to
// are kept and read back by every read the service decides by (a
// session's user, the lists, a key by its hash); a change of them is
// audited with both lists and ends the user's sessions when it narrows
// them; an admin limited to locations does not count as the admin every
// organization keeps.
func testReachStored(t *testing.T, f *fixture) {
	a := f.org("Acme")
	hq, annex := f.location(a.ID, "HQ"), f.location(a.ID, "Annex")
	_, err := f.s.CreateUser(ctx, gatehouse.SystemEntry(gatehouse.AuditUserAdded), gatehouse.User{OrgID: a.ID, Email: "admin@example.com", PasswordHash: "h"}, nil)
	must(t, err)
	both := gatehouse.Reach{hq.ID, annex.ID}
	op, err := f.s.CreateUser(ctx, gatehouse.SystemEntry(gatehouse.AuditUserAdded), gatehouse.User{OrgID: a.ID, Email: "op@example.com",
		Role: gatehouse.RoleAdmin, Reach: both, PasswordHash: "h"}, nil)
	if err != nil || !slices.Equal(op.Reach, both) {
		t.Fatalf("a limited user: %+v %v", op.Reach, err)
	}
	if first, err := f.s.CreateUser(ctx, gatehouse.SystemEntry(gatehouse.AuditUserAdded), gatehouse.User{OrgID: f.org("Beta").ID,
		Email: "first@example.com", Role: gatehouse.RoleViewer, Reach: both, PasswordHash: "h"}, nil); err != nil || !first.Reach.Whole() || first.Role != gatehouse.RoleAdmin {
		t.Errorf("an organization's first user: %s over %v (%v), want an admin of all of it", first.Role, first.Reach, err)
	}
	s, token := sessions.New(op.ID, f.now)
	must(t, f.s.CreateSession(ctx, gatehouse.SystemEntry(gatehouse.AuditSignedIn), s))
	if _, u, err := f.s.FindSession(ctx, sessions.Hash(token), f.now); err != nil || !slices.Equal(u.Reach, both) {
		t.Errorf("the session's user is limited to %v (%v), want %v", u.Reach, err, both)
	}
	listed, err := f.s.ListUsers(ctx, a.ID)
	if err != nil || len(listed) != 2 || !listed[0].Reach.Whole() || !slices.Equal(listed[1].Reach, both) {
		t.Errorf("the listed users' reach: %+v %v", listed, err)
	}
	if byEmail, err := f.s.FindUsersByEmail(ctx, "op@example.com"); err != nil || len(byEmail) != 1 || !slices.Equal(byEmail[0].Reach, both) {
		t.Errorf("the user by email: %+v %v", byEmail, err)
	}

	widened, err := f.s.SetUserRole(ctx, gatehouse.SystemEntry(gatehouse.AuditUserRoleChanged), a.ID, "op@example.com", gatehouse.RoleAdmin, nil)
	if err != nil || !widened.Reach.Whole() {
		t.Fatalf("widened to the whole organization: %+v %v", widened.Reach, err)
	}
	if _, _, err := f.s.FindSession(ctx, sessions.Hash(token), f.now); err != nil {
		t.Errorf("widening ended the session: %v", err)
	}
	_, err = f.s.SetUserRole(ctx, gatehouse.SystemEntry(gatehouse.AuditUserRoleChanged), a.ID, "admin@example.com", gatehouse.RoleAdmin, gatehouse.Reach{hq.ID})
	must(t, err) // op is a whole admin now
	_, err = f.s.SetUserRole(ctx, gatehouse.SystemEntry(gatehouse.AuditUserRoleChanged), a.ID, "op@example.com", gatehouse.RoleAdmin, gatehouse.Reach{annex.ID})
	wantErr(t, "limiting the last whole admin", err, gatehouse.ErrConflict)
	_, err = f.s.RemoveUser(ctx, gatehouse.SystemEntry(gatehouse.AuditUserRemoved), a.ID, "op@example.com")
	wantErr(t, "removing the last whole admin", err, gatehouse.ErrConflict)
	if _, err := f.s.RemoveUser(ctx, gatehouse.SystemEntry(gatehouse.AuditUserRemoved), a.ID, "admin@example.com"); err != nil {
		t.Errorf("removing a limited admin: %v", err)
	}
	_, err = f.s.CreateUser(ctx, gatehouse.SystemEntry(gatehouse.AuditUserAdded), gatehouse.User{OrgID: a.ID, Email: "look@example.com",
		Role: gatehouse.RoleViewer, Reach: both, PasswordHash: "h"}, nil)
	must(t, err)
	look, err := f.s.FindUsersByEmail(ctx, "look@example.com")
	must(t, err)
	s, token = sessions.New(look[0].ID, f.now)
	must(t, f.s.CreateSession(ctx, gatehouse.SystemEntry(gatehouse.AuditSignedIn), s))
	narrowed, err := f.s.SetUserRole(ctx, gatehouse.SystemEntry(gatehouse.AuditUserRoleChanged), a.ID, "look@example.com", gatehouse.RoleViewer, gatehouse.Reach{hq.ID})
	if err != nil || !slices.Equal(narrowed.Reach, gatehouse.Reach{hq.ID}) {
		t.Fatalf("narrowed: %+v %v", narrowed.Reach, err)
	}
	if _, _, err := f.s.FindSession(ctx, sessions.Hash(token), f.now); err == nil {
		t.Error("narrowing the locations left the user's session")
	}
	var changes []gatehouse.AuditChange
	for _, e := range f.log(a.ID, gatehouse.AuditFilter{Limit: 50}) {
		if e.Action == gatehouse.AuditUserRoleChanged && e.Target.ID == look[0].ID {
			changes = append(changes, e.Changes["locations"])
		}
	}
	if len(changes) != 1 || changes[0].From != both.String() || changes[0].To != hq.ID.String() {
		t.Errorf("the audit of the narrowing: %+v", changes)
	}

	_, prefix, hash := gatehouse.GenerateKey()
	k := gatehouse.APIKey{ID: gatehouse.NewID(), OrgID: a.ID, Name: "hq-bot", Prefix: prefix, Hash: hash,
		Scopes: []gatehouse.Scope{gatehouse.ScopeEventsRead}, Reach: gatehouse.Reach{hq.ID}, CreatedAt: f.now}
	must(t, f.s.CreateAPIKey(ctx, gatehouse.SystemEntry(gatehouse.AuditAPIKeyCreated), k))
	byHash, err := f.s.FindAPIKeyByHash(ctx, hash)
	if err != nil || !slices.Equal(byHash.Reach, k.Reach) {
		t.Errorf("the key by its hash is limited to %v (%v), want %v", byHash.Reach, err, k.Reach)
	}
	keys, err := f.s.ListAPIKeys(ctx, a.ID)
	if err != nil || len(keys) != 1 || !slices.Equal(keys[0].Reach, k.Reach) {
		t.Errorf("the listed key: %+v %v", keys, err)
	}
}
