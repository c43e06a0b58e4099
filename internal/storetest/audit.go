package storetest

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/gatehouse/gatehouse"
	"github.com/google/uuid"
)

// log returns every entry of org's audit log, newest first.
func (f *fixture) log(org uuid.UUID, filter gatehouse.AuditFilter) []gatehouse.AuditEntry {
	f.t.Helper()
	filter.Limit = gatehouse.MaxLimit
	page, err := f.s.ListAuditEntries(ctx, org, filter)
	must(f.t, err)
	return page.Entries
}

// userEntry is an entry as the service makes it for a dashboard user.
func userEntry(action gatehouse.AuditAction, actor uuid.UUID) gatehouse.AuditEntry {
	return gatehouse.AuditEntry{ID: gatehouse.NewID(), Action: action,
		Actor:     gatehouse.AuditActor{Type: gatehouse.ActorUser, ID: &actor, Label: "admin@acme.test"},
		Changes:   map[string]gatehouse.AuditChange{"note": {To: "x"}},
		RequestID: "req-1", ClientAddress: "203.0.113.7"}
}

// testAuditAppend: every changing method appends exactly one entry, in
// the change's organization, naming the record it changed.
func testAuditAppend(t *testing.T, f *fixture) {
	o := f.org("Acme")
	actor := gatehouse.NewID()
	e := func(a gatehouse.AuditAction) gatehouse.AuditEntry { return userEntry(a, actor) }

	l, err := f.s.CreateLocation(ctx, e(gatehouse.AuditLocationCreated), o.ID, "HQ")
	must(t, err)
	_, err = f.s.RenameLocation(ctx, e(gatehouse.AuditLocationRenamed), o.ID, l.ID, "Head office")
	must(t, err)
	ap, err := f.s.CreateAccessPoint(ctx, e(gatehouse.AuditAccessPointCreated), o.ID, l.ID, "Door")
	must(t, err)
	_, err = f.s.RenameOrganization(ctx, e(gatehouse.AuditOrganizationRenamed), o.ID, "Acme Studios")
	must(t, err)
	k := gatehouse.APIKey{ID: gatehouse.NewID(), OrgID: o.ID, Name: "ci", Prefix: "gk_abcdefgh", Scopes: []gatehouse.Scope{gatehouse.ScopeEventsRead}, CreatedAt: f.now}
	k.Hash[0] = 1
	must(t, f.s.CreateAPIKey(ctx, e(gatehouse.AuditAPIKeyCreated), k))
	_, err = f.s.RevokeAPIKey(ctx, e(gatehouse.AuditAPIKeyRevoked), o.ID, k.ID, f.now)
	must(t, err)
	_, err = f.s.RevokeAPIKey(ctx, e(gatehouse.AuditAPIKeyRevoked), o.ID, k.ID, f.now) // already revoked: no entry
	must(t, err)
	u, err := f.s.CreateUser(ctx, e(gatehouse.AuditUserAdded), gatehouse.User{OrgID: o.ID, Email: "a@acme.test", PasswordHash: "h"}, nil)
	must(t, err)
	v, err := f.s.CreateUser(ctx, e(gatehouse.AuditUserAdded), gatehouse.User{OrgID: o.ID, Email: "b@acme.test", PasswordHash: "h", Role: gatehouse.RoleViewer}, nil)
	must(t, err)
	_, err = f.s.SetUserRole(ctx, e(gatehouse.AuditUserRoleChanged), o.ID, v.Email, gatehouse.RoleOperator, nil)
	must(t, err)
	_, err = f.s.SetUserRole(ctx, e(gatehouse.AuditUserRoleChanged), o.ID, v.Email, gatehouse.RoleOperator, nil) // unchanged: no entry
	must(t, err)
	_, err = f.s.SetUserPassword(ctx, e(gatehouse.AuditUserPasswordSet), o.ID, v.Email, "h2")
	must(t, err)
	must(t, f.s.CreateSession(ctx, e(gatehouse.AuditSignedIn), gatehouse.Session{TokenHash: [32]byte{9}, UserID: u.ID, CSRF: "c", CreatedAt: f.now, ExpiresAt: f.now.Add(time.Hour)}))
	_, err = f.s.RemoveUser(ctx, e(gatehouse.AuditUserRemoved), o.ID, v.Email)
	must(t, err)
	must(t, f.s.AppendAudit(ctx, e(gatehouse.AuditSignInFailed).Of(o.ID, gatehouse.AuditTarget{Type: gatehouse.TargetUser, ID: u.ID, Name: u.Email})))
	_, err = f.s.PutPolicy(ctx, e(gatehouse.AuditPolicyChanged), o.ID, ap.ID, policy(t, "1"), nil, f.now)
	must(t, err)
	_, err = f.s.PutPolicy(ctx, e(gatehouse.AuditPolicyChanged), o.ID, ap.ID, policy(t, "1"), nil, f.now) // unchanged: no entry
	must(t, err)

	got := f.log(o.ID, gatehouse.AuditFilter{})
	want := []struct {
		action gatehouse.AuditAction
		target uuid.UUID
		name   string
	}{
		{gatehouse.AuditOrganizationCreated, o.ID, "Acme"},
		{gatehouse.AuditLocationCreated, l.ID, "HQ"},
		{gatehouse.AuditLocationRenamed, l.ID, "Head office"},
		{gatehouse.AuditAccessPointCreated, ap.ID, "Door"},
		{gatehouse.AuditOrganizationRenamed, o.ID, "Acme Studios"},
		{gatehouse.AuditAPIKeyCreated, k.ID, "ci"},
		{gatehouse.AuditAPIKeyRevoked, k.ID, "ci"},
		{gatehouse.AuditUserAdded, u.ID, "a@acme.test"},
		{gatehouse.AuditUserAdded, v.ID, "b@acme.test"},
		{gatehouse.AuditUserRoleChanged, v.ID, "b@acme.test"},
		{gatehouse.AuditUserPasswordSet, v.ID, "b@acme.test"},
		{gatehouse.AuditSignedIn, u.ID, "a@acme.test"},
		{gatehouse.AuditUserRemoved, v.ID, "b@acme.test"},
		{gatehouse.AuditSignInFailed, u.ID, "a@acme.test"},
		{gatehouse.AuditPolicyChanged, ap.ID, "Door"},
	}
	if len(got) != len(want) {
		t.Fatalf("%d entries, want %d: %+v", len(got), len(want), got)
	}
	// All at one clock time: the log's order is then the ids' (UUIDv7,
	// made in order), newest first.
	slices.Reverse(got)
	for i, w := range want {
		g := got[i]
		if g.Action != w.action || g.Target.ID != w.target || g.Target.Name != w.name || g.OrgID != o.ID {
			t.Errorf("entry %d = %s %s %q in %s, want %s %s %q", i, g.Action, g.Target.ID, g.Target.Name, g.OrgID, w.action, w.target, w.name)
		}
	}
	rename := got[2]
	if rename.Changes["name"] != (gatehouse.AuditChange{From: "HQ", To: "Head office"}) || rename.Changes["note"].To != "x" {
		t.Errorf("rename changes = %+v", rename.Changes)
	}
	if role := got[9].Changes["role"]; role != (gatehouse.AuditChange{From: "viewer", To: "operator"}) {
		t.Errorf("role change = %+v", role)
	}
	if put := got[14].Changes; put["version"] != (gatehouse.AuditChange{To: "1"}) || put["note"].To != "x" {
		t.Errorf("policy change = %+v", put)
	}
	if a := rename.Actor; a.Type != gatehouse.ActorUser || a.ID == nil || *a.ID != actor || a.Label != "admin@acme.test" ||
		rename.RequestID != "req-1" || rename.ClientAddress != "203.0.113.7" || !rename.At.Equal(f.now) {
		t.Errorf("entry read back = %+v", rename)
	}
	if sys := got[0].Actor; sys.Type != gatehouse.ActorSystem || sys.ID != nil {
		t.Errorf("system actor read back = %+v", sys)
	}
}

// testAuditFailedChange: a change that fails leaves no entry, and an
// entry without an action stores no change.
func testAuditFailedChange(t *testing.T, f *fixture) {
	o := f.org("Acme")
	admin, err := f.s.CreateUser(ctx, gatehouse.SystemEntry(gatehouse.AuditUserAdded), gatehouse.User{OrgID: o.ID, Email: "a@acme.test", PasswordHash: "h"}, nil)
	must(t, err)
	before := len(f.log(o.ID, gatehouse.AuditFilter{}))

	_, err = f.s.CreateUser(ctx, gatehouse.SystemEntry(gatehouse.AuditUserAdded), gatehouse.User{OrgID: o.ID, Email: "A@acme.test", PasswordHash: "h"}, nil)
	wantErr(t, "duplicate email", err, gatehouse.ErrConflict)
	_, err = f.s.RemoveUser(ctx, gatehouse.SystemEntry(gatehouse.AuditUserRemoved), o.ID, admin.Email)
	wantErr(t, "last admin removed", err, gatehouse.ErrConflict)
	_, err = f.s.SetUserRole(ctx, gatehouse.SystemEntry(gatehouse.AuditUserRoleChanged), o.ID, admin.Email, gatehouse.RoleViewer, nil)
	wantErr(t, "last admin demoted", err, gatehouse.ErrConflict)
	_, err = f.s.RenameLocation(ctx, gatehouse.SystemEntry(gatehouse.AuditLocationRenamed), o.ID, gatehouse.NewID(), "X")
	wantErr(t, "unknown location", err, gatehouse.ErrNotFound)
	_, err = f.s.CreateLocation(ctx, gatehouse.AuditEntry{}, o.ID, "Unrecorded")
	wantErr(t, "entry without action", err, gatehouse.ErrInvalid)
	if got := len(f.log(o.ID, gatehouse.AuditFilter{})); got != before {
		t.Errorf("failed changes appended %d entries", got-before)
	}
	if locs, _, _ := f.s.ListLocations(ctx, o.ID, 10, nil, false, nil); len(locs) != 0 {
		t.Errorf("a change with an empty entry was stored: %+v", locs)
	}
}

// testAuditPages: filters, keyset pages newest first, and isolation.
func testAuditPages(t *testing.T, f *fixture) {
	a, b := f.org("Acme"), f.org("Beta")
	actor := gatehouse.NewID()
	var locs []gatehouse.Location
	start := f.now
	for i := range 5 {
		f.now = start.Add(time.Duration(i) * time.Minute)
		e := gatehouse.SystemEntry(gatehouse.AuditLocationCreated)
		if i%2 == 0 {
			e = userEntry(gatehouse.AuditLocationCreated, actor)
		}
		e.At = f.now
		l, err := f.s.CreateLocation(ctx, e, a.ID, string(rune('A'+i)))
		must(t, err)
		locs = append(locs, l)
	}
	f.location(b.ID, "Beta HQ")

	all := f.log(a.ID, gatehouse.AuditFilter{Action: gatehouse.AuditLocationCreated})
	if len(all) != 5 || all[0].Target.ID != locs[4].ID || all[4].Target.ID != locs[0].ID {
		t.Fatalf("newest first: %+v", all)
	}
	var paged []gatehouse.AuditEntry
	filter := gatehouse.AuditFilter{Action: gatehouse.AuditLocationCreated, Limit: 2}
	for range 4 {
		page, err := f.s.ListAuditEntries(ctx, a.ID, filter)
		must(t, err)
		paged = append(paged, page.Entries...)
		if page.Next == nil {
			break
		}
		filter.After = page.Next
	}
	if len(paged) != 5 || paged[2].ID != all[2].ID || paged[4].ID != all[4].ID {
		t.Errorf("pages of 2 = %d entries, want the 5 in order", len(paged))
	}
	if got := f.log(a.ID, gatehouse.AuditFilter{ActorID: &actor}); len(got) != 3 {
		t.Errorf("actorId filter: %d entries, want 3", len(got))
	}
	if got := f.log(a.ID, gatehouse.AuditFilter{TargetID: &locs[1].ID}); len(got) != 1 || got[0].Target.ID != locs[1].ID {
		t.Errorf("targetId filter: %+v", got)
	}
	from, to := start.Add(time.Minute), start.Add(3*time.Minute)
	if got := f.log(a.ID, gatehouse.AuditFilter{Action: gatehouse.AuditLocationCreated, From: &from, To: &to}); len(got) != 2 {
		t.Errorf("dates [from, to): %d entries, want 2", len(got))
	}
	if got := f.log(b.ID, gatehouse.AuditFilter{TargetID: &locs[1].ID}); len(got) != 0 {
		t.Errorf("another organization's entry is visible: %+v", got)
	}
	for _, e := range f.log(b.ID, gatehouse.AuditFilter{}) {
		if e.OrgID != b.ID || slices.ContainsFunc(locs, func(l gatehouse.Location) bool { return l.ID == e.Target.ID }) {
			t.Errorf("Beta's log holds %+v", e)
		}
	}
	// A failed sign-in of an email nobody has belongs to no organization.
	must(t, f.s.AppendAudit(ctx, gatehouse.AuditEntry{Action: gatehouse.AuditSignInFailed,
		Actor: gatehouse.AuditActor{Type: gatehouse.ActorUser, Label: "nobody@x.test"}}))
	if got := f.log(a.ID, gatehouse.AuditFilter{Action: gatehouse.AuditSignInFailed}); len(got) != 0 {
		t.Errorf("an organization sees an unknown email's sign-in: %+v", got)
	}
}

// testAuditAppendOnly: the database itself refuses to change or delete an
// entry, whatever code runs above it. It needs the store's raw statement
// hook, which both stores export to their tests.
func testAuditAppendOnly(t *testing.T, f *fixture) {
	raw, ok := f.s.(interface {
		ExecForTest(ctx context.Context, query string, args ...any) error
	})
	if !ok {
		t.Skip("the store runs no raw statements")
	}
	o := f.org("Acme")
	if len(f.log(o.ID, gatehouse.AuditFilter{})) != 1 {
		t.Fatal("no entry to change")
	}
	if err := raw.ExecForTest(ctx, "UPDATE audit_log SET action = 'x'"); err == nil {
		t.Error("an entry was changed")
	}
	if err := raw.ExecForTest(ctx, "DELETE FROM audit_log"); err == nil {
		t.Error("an entry was deleted")
	}
	if got := f.log(o.ID, gatehouse.AuditFilter{}); len(got) != 1 || got[0].Action != gatehouse.AuditOrganizationCreated {
		t.Errorf("after the attempts the log is %+v", got)
	}
}
