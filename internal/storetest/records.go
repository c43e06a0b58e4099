package storetest

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gatehouse/gatehouse"
	"github.com/google/go-cmp/cmp"
	"github.com/google/uuid"
)

func testOrganizations(t *testing.T, f *fixture) {
	a := f.org("Acme")
	f.now = f.now.Add(time.Second)
	b := f.org("  Beta  ")
	if b.Name != "Beta" || time.Time(a.CreatedAt) != f.now.Add(-time.Second) {
		t.Errorf("created %+v %+v", a, b)
	}
	orgs, err := f.s.ListOrganizations(ctx)
	must(t, err)
	if diff := cmp.Diff([]gatehouse.Organization{a, b}, orgs); diff != "" {
		t.Errorf("ListOrganizations, oldest first (-want +got)\n%s", diff)
	}
	got, err := f.s.FindOrganization(ctx, a.ID)
	if err != nil || got != a {
		t.Errorf("FindOrganization = %+v, %v", got, err)
	}
	_, err = f.s.FindOrganization(ctx, gatehouse.NewID())
	wantErr(t, "unknown organization", err, gatehouse.ErrNotFound)
	renamed, err := f.s.RenameOrganization(ctx, gatehouse.SystemEntry(gatehouse.AuditOrganizationRenamed), b.ID, "  Beta Studios ")
	if err != nil || renamed.ID != b.ID || renamed.Name != "Beta Studios" || renamed.CreatedAt != b.CreatedAt {
		t.Errorf("RenameOrganization = %+v, %v", renamed, err)
	}
	if got, _ := f.s.FindOrganization(ctx, b.ID); got != renamed {
		t.Errorf("after the rename FindOrganization = %+v, want %+v", got, renamed)
	}
	_, err = f.s.RenameOrganization(ctx, gatehouse.SystemEntry(gatehouse.AuditOrganizationRenamed), gatehouse.NewID(), "X")
	wantErr(t, "rename an unknown organization", err, gatehouse.ErrNotFound)
	_, err = f.s.RenameOrganization(ctx, gatehouse.SystemEntry(gatehouse.AuditOrganizationRenamed), a.ID, " ")
	wantErr(t, "rename to an empty name", err, gatehouse.ErrInvalid, "name")
	_, err = f.s.CreateOrganization(ctx, gatehouse.SystemEntry(gatehouse.AuditOrganizationCreated), " ")
	wantErr(t, "empty name", err, gatehouse.ErrInvalid, "name")
	_, err = f.s.CreateOrganization(ctx, gatehouse.SystemEntry(gatehouse.AuditOrganizationCreated), strings.Repeat("x", gatehouse.MaxNameLen+1))
	wantErr(t, "long name", err, gatehouse.ErrInvalid, "name")
	_, err = f.s.CreateOrganization(ctx, gatehouse.SystemEntry(gatehouse.AuditOrganizationCreated), "Acme\u009b31m")
	wantErr(t, "C1 control in a name", err, gatehouse.ErrInvalid, "name")
	_, err = f.s.CreateUser(ctx, gatehouse.SystemEntry(gatehouse.AuditUserAdded), gatehouse.User{OrgID: a.ID, Email: "ops@example.com", Name: "Ops\x1b]0;pwned\x07", PasswordHash: "h"}, nil)
	wantErr(t, "escape sequence in a user name", err, gatehouse.ErrInvalid, "name")
	_, prefix, hash := gatehouse.GenerateKey()
	err = f.s.CreateAPIKey(ctx, gatehouse.SystemEntry(gatehouse.AuditAPIKeyCreated), gatehouse.APIKey{ID: gatehouse.NewID(), OrgID: a.ID, Name: "sync\x1b[1A\x1b[2K", Prefix: prefix, Hash: hash,
		Scopes: []gatehouse.Scope{gatehouse.ScopeEventsRead}, CreatedAt: f.now})
	wantErr(t, "escape sequence in a key name", err, gatehouse.ErrInvalid, "name")
}

func testAPIKeys(t *testing.T, f *fixture) {
	a, b := f.org("Acme"), f.org("Beta")
	mk := func(org gatehouse.Organization, edit func(*gatehouse.APIKey)) gatehouse.APIKey {
		_, prefix, hash := gatehouse.GenerateKey()
		k := gatehouse.APIKey{ID: gatehouse.NewID(), OrgID: org.ID, Name: "sync", Prefix: prefix, Hash: hash,
			Scopes: []gatehouse.Scope{gatehouse.ScopeEventsRead}, CreatedAt: f.now}
		if edit != nil {
			edit(&k)
		}
		must(t, f.s.CreateAPIKey(ctx, gatehouse.SystemEntry(gatehouse.AuditAPIKeyCreated), k))
		f.now = f.now.Add(time.Millisecond)
		return k
	}
	full := mk(a, func(k *gatehouse.APIKey) {
		k.Scopes = []gatehouse.Scope{gatehouse.ScopeEventsRead, gatehouse.ScopeLocationsRead}
		k.RateLimit = &gatehouse.Rate{Count: 5, Per: time.Minute}
		k.ExpiresAt = ptr(f.now.Add(720 * time.Hour))
	})
	plain := mk(a, nil)
	mk(b, nil)

	got, err := f.s.FindAPIKeyByHash(ctx, full.Hash)
	must(t, err)
	if diff := cmp.Diff(full, got); diff != "" {
		t.Errorf("FindAPIKeyByHash (-stored +found)\n%s", diff)
	}
	_, err = f.s.FindAPIKeyByHash(ctx, gatehouse.KeyHash{1})
	wantErr(t, "unknown hash", err, gatehouse.ErrNotFound)

	list, err := f.s.ListAPIKeys(ctx, a.ID)
	must(t, err)
	if len(list) != 2 || list[0].ID != plain.ID || list[1].ID != full.ID {
		t.Errorf("ListAPIKeys: want the organization's two keys, newest first: %v", list)
	}
	err = f.s.CreateAPIKey(ctx, gatehouse.SystemEntry(gatehouse.AuditAPIKeyCreated), gatehouse.APIKey{ID: gatehouse.NewID(), OrgID: gatehouse.NewID(), Name: "x", Scopes: full.Scopes, CreatedAt: f.now})
	wantErr(t, "key of an unknown organization", err, gatehouse.ErrNotFound)

	first := f.now
	_, err = f.s.RevokeAPIKey(ctx, gatehouse.SystemEntry(gatehouse.AuditAPIKeyRevoked), b.ID, plain.ID, first)
	wantErr(t, "revoke another organization's key", err, gatehouse.ErrNotFound)
	revoked, err := f.s.RevokeAPIKey(ctx, gatehouse.SystemEntry(gatehouse.AuditAPIKeyRevoked), a.ID, plain.ID, first)
	if err != nil || revoked.RevokedAt == nil || !revoked.RevokedAt.Equal(first) {
		t.Fatalf("revoke: %v %v", revoked.RevokedAt, err)
	}
	again, err := f.s.RevokeAPIKey(ctx, gatehouse.SystemEntry(gatehouse.AuditAPIKeyRevoked), a.ID, plain.ID, first.Add(time.Hour))
	if err != nil || !again.RevokedAt.Equal(first) {
		t.Errorf("a second revoke moved RevokedAt to %v (%v)", again.RevokedAt, err)
	}
	_, err = f.s.RevokeAPIKey(ctx, gatehouse.SystemEntry(gatehouse.AuditAPIKeyRevoked), a.ID, gatehouse.NewID(), first)
	wantErr(t, "revoke unknown key", err, gatehouse.ErrNotFound)

	found, err := f.s.FindAPIKey(ctx, a.ID, plain.ID)
	if err != nil || found.ID != plain.ID || found.RevokedAt == nil {
		t.Errorf("FindAPIKey = %+v, %v", found, err)
	}
	_, err = f.s.FindAPIKey(ctx, b.ID, plain.ID)
	wantErr(t, "find another organization's key", err, gatehouse.ErrNotFound)
	owner, err := f.s.OrgOfAPIKey(ctx, plain.ID)
	if err != nil || owner != a.ID {
		t.Errorf("OrgOfAPIKey = %v, %v; want %v", owner, err, a.ID)
	}
	_, err = f.s.OrgOfAPIKey(ctx, gatehouse.NewID())
	wantErr(t, "owner of an unknown key", err, gatehouse.ErrNotFound)

	t1, t0 := f.now.Add(time.Minute), f.now
	must(t, f.s.MarkAPIKeysUsed(ctx, map[uuid.UUID]time.Time{full.ID: t1, gatehouse.NewID(): t1}))
	must(t, f.s.MarkAPIKeysUsed(ctx, map[uuid.UUID]time.Time{full.ID: t0})) // older: ignored
	got, _ = f.s.FindAPIKeyByHash(ctx, full.Hash)
	if got.LastUsedAt == nil || !got.LastUsedAt.Equal(t1) {
		t.Errorf("LastUsedAt = %v, want %v", got.LastUsedAt, t1)
	}
}

func testLocations(t *testing.T, f *fixture) {
	a, b := f.org("Acme"), f.org("Beta")
	hq := f.location(a.ID, "HQ")
	door := f.accessPoint(a.ID, hq.ID, "Front door")
	f.accessPoint(a.ID, hq.ID, "Back door")
	got, err := f.s.FindLocation(ctx, a.ID, hq.ID)
	must(t, err)
	if len(got.AccessPoints) != 2 || got.AccessPoints[0].Name != "Back door" || got.AccessPoints[1].ID != door.ID {
		t.Errorf("access points not ordered by name: %+v", got.AccessPoints)
	}

	// Events keep the names they were recorded with.
	ev := f.attempt(door, gatehouse.EventAccessGranted, 1)
	f.ingest(a.ID, ev)
	renamed, err := f.s.RenameLocation(ctx, gatehouse.SystemEntry(gatehouse.AuditLocationRenamed), a.ID, hq.ID, "Headquarters")
	if err != nil || renamed.Name != "Headquarters" || len(renamed.AccessPoints) != 2 {
		t.Fatalf("rename: %+v %v", renamed, err)
	}
	page, err := f.s.ListEvents(ctx, a.ID, gatehouse.EventFilter{Limit: 10})
	must(t, err)
	if page.Events[0].Location.Name != "HQ" {
		t.Errorf("the recorded event was renamed to %q", page.Events[0].Location.Name)
	}

	_, err = f.s.FindLocation(ctx, b.ID, hq.ID)
	wantErr(t, "find another organization's location", err, gatehouse.ErrNotFound)
	_, err = f.s.RenameLocation(ctx, gatehouse.SystemEntry(gatehouse.AuditLocationRenamed), b.ID, hq.ID, "Mine")
	wantErr(t, "rename another organization's location", err, gatehouse.ErrNotFound)
	_, err = f.s.CreateAccessPoint(ctx, gatehouse.SystemEntry(gatehouse.AuditAccessPointCreated), b.ID, hq.ID, "Sneaky door")
	wantErr(t, "access point under another organization's location", err, gatehouse.ErrNotFound)
	if owner, err := f.s.OrgOfLocation(ctx, hq.ID); err != nil || owner != a.ID {
		t.Errorf("OrgOfLocation = %v, %v; want %v", owner, err, a.ID)
	}
	_, err = f.s.OrgOfLocation(ctx, gatehouse.NewID())
	wantErr(t, "owner of an unknown location", err, gatehouse.ErrNotFound)
	if owner, err := f.s.OrgOfAccessPoint(ctx, door.ID); err != nil || owner != a.ID {
		t.Errorf("OrgOfAccessPoint = %v, %v; want %v", owner, err, a.ID)
	}
	_, err = f.s.OrgOfAccessPoint(ctx, hq.ID)
	wantErr(t, "owner of an unknown access point", err, gatehouse.ErrNotFound)
	_, err = f.s.CreateLocation(ctx, gatehouse.SystemEntry(gatehouse.AuditLocationCreated), gatehouse.NewID(), "X")
	wantErr(t, "location of an unknown organization", err, gatehouse.ErrNotFound)
	_, err = f.s.CreateLocation(ctx, gatehouse.SystemEntry(gatehouse.AuditLocationCreated), a.ID, "")
	wantErr(t, "empty location name", err, gatehouse.ErrInvalid, "name")
	_, err = f.s.RenameLocation(ctx, gatehouse.SystemEntry(gatehouse.AuditLocationRenamed), a.ID, hq.ID, "")
	wantErr(t, "empty new name", err, gatehouse.ErrInvalid, "name")

	// Names reach terminals (key list) and pages: no control characters,
	// and no NUL, which PostgreSQL would refuse with an internal error.
	_, err = f.s.CreateLocation(ctx, gatehouse.SystemEntry(gatehouse.AuditLocationCreated), a.ID, "HQ\x00")
	wantErr(t, "NUL in a location name", err, gatehouse.ErrInvalid, "name")
	_, err = f.s.CreateAccessPoint(ctx, gatehouse.SystemEntry(gatehouse.AuditAccessPointCreated), a.ID, hq.ID, "Door\x1b[2J")
	wantErr(t, "escape sequence in an access point name", err, gatehouse.ErrInvalid, "name")
	_, err = f.s.RenameLocation(ctx, gatehouse.SystemEntry(gatehouse.AuditLocationRenamed), a.ID, hq.ID, "\u202erood tnorF")
	wantErr(t, "right-to-left override in a new name", err, gatehouse.ErrInvalid, "name")
}

func testListLocationsPages(t *testing.T, f *fixture) {
	a, b := f.org("Acme"), f.org("Beta")
	var want []gatehouse.Location
	for _, name := range []string{"b", "a", "b", "c", "a", "b"} { // ties on name
		want = append(want, f.location(a.ID, name))
	}
	f.location(b.ID, "a")
	slicesSortLocations(want)
	for _, limit := range []int{1, 2, 3, 10} {
		var got []gatehouse.Location
		var after *gatehouse.LocationKey
		for {
			page, next, err := f.s.ListLocations(ctx, a.ID, limit, after, false, nil)
			must(t, err)
			got = append(got, page...)
			if next == nil {
				break
			}
			after = next
		}
		if len(got) != len(want) {
			t.Fatalf("limit %d: %d locations, want %d", limit, len(got), len(want))
		}
		for i := range want {
			if got[i].ID != want[i].ID {
				t.Fatalf("limit %d: position %d is %s %q, want %s %q", limit, i, got[i].ID, got[i].Name, want[i].ID, want[i].Name)
			}
		}
	}
	page, next, err := f.s.ListLocations(ctx, gatehouse.NewID(), 10, nil, false, nil)
	if err != nil || len(page) != 0 || next != nil {
		t.Errorf("unknown organization: %v %v %v", page, next, err)
	}
}

func testUsers(t *testing.T, f *fixture) {
	a, b := f.org("Acme"), f.org("Beta")
	u, err := f.s.CreateUser(ctx, gatehouse.SystemEntry(gatehouse.AuditUserAdded), gatehouse.User{OrgID: a.ID, Email: " Ops@Example.COM ", Name: "Ops", Role: gatehouse.RoleViewer, PasswordHash: "h"}, nil)
	must(t, err)
	if u.Email != "ops@example.com" || u.ID == (uuid.UUID{}) || u.Role != gatehouse.RoleAdmin {
		t.Errorf("created %+v; the first user of an organization is an admin whatever was asked", u)
	}
	_, err = f.s.CreateUser(ctx, gatehouse.SystemEntry(gatehouse.AuditUserAdded), gatehouse.User{OrgID: a.ID, Email: "OPS@example.com", PasswordHash: "h"}, nil)
	wantErr(t, "duplicate email in the organization, in another case", err, gatehouse.ErrConflict)
	inB, err := f.s.CreateUser(ctx, gatehouse.SystemEntry(gatehouse.AuditUserAdded), gatehouse.User{OrgID: b.ID, Email: "OPS@example.com", PasswordHash: "h2"}, nil)
	if err != nil || inB.OrgID != b.ID {
		t.Errorf("the same email in another organization: %+v %v", inB, err)
	}
	f.now = f.now.Add(time.Second)
	viewer, err := f.s.CreateUser(ctx, gatehouse.SystemEntry(gatehouse.AuditUserAdded), gatehouse.User{OrgID: a.ID, Email: "look@example.com", PasswordHash: "h"}, nil)
	if err != nil || viewer.Role != gatehouse.RoleViewer {
		t.Errorf("a second user with no role asked: %+v %v", viewer, err)
	}
	op, err := f.s.CreateUser(ctx, gatehouse.SystemEntry(gatehouse.AuditUserAdded), gatehouse.User{OrgID: a.ID, Email: "door@example.com", Role: gatehouse.RoleOperator, PasswordHash: "h"}, nil)
	if err != nil || op.Role != gatehouse.RoleOperator {
		t.Errorf("an operator: %+v %v", op, err)
	}
	got, err := f.s.FindUsersByEmail(ctx, "ops@EXAMPLE.com")
	if err != nil || len(got) != 2 || got[0].ID != u.ID || got[0].OrgID != a.ID || got[0].PasswordHash != "h" ||
		got[0].Role != gatehouse.RoleAdmin || got[1].ID != inB.ID || got[1].OrgID != b.ID {
		t.Errorf("FindUsersByEmail = %+v, %v", got, err)
	}
	if got, err := f.s.FindUsersByEmail(ctx, "nobody@example.com"); err != nil || len(got) != 0 {
		t.Errorf("unknown email: %+v %v", got, err)
	}
	list, err := f.s.ListUsers(ctx, a.ID)
	must(t, err)
	var emails []string
	for _, u := range list {
		emails = append(emails, u.Email+" "+string(u.Role))
	}
	if want := []string{"door@example.com operator", "look@example.com viewer", "ops@example.com admin"}; !slices.Equal(emails, want) {
		t.Errorf("ListUsers = %q, want %q", emails, want)
	}
	_, err = f.s.CreateUser(ctx, gatehouse.SystemEntry(gatehouse.AuditUserAdded), gatehouse.User{OrgID: gatehouse.NewID(), Email: "x@example.com", PasswordHash: "h"}, nil)
	wantErr(t, "user of an unknown organization", err, gatehouse.ErrNotFound)
	_, err = f.s.CreateUser(ctx, gatehouse.SystemEntry(gatehouse.AuditUserAdded), gatehouse.User{OrgID: a.ID, Email: "not-an-email", PasswordHash: "h"}, nil)
	wantErr(t, "bad email", err, gatehouse.ErrInvalid, "email")
	_, err = f.s.CreateUser(ctx, gatehouse.SystemEntry(gatehouse.AuditUserAdded), gatehouse.User{OrgID: a.ID, Email: "x@example.com", Role: "owner", PasswordHash: "h"}, nil)
	wantErr(t, "unknown role", err, gatehouse.ErrInvalid, "role")
}

// testUserRoles: roles change and users leave, a lowered role or a
// removal ends the user's sessions in the same change, and an
// organization always keeps an admin.
func testUserRoles(t *testing.T, f *fixture) {
	a, b := f.org("Acme"), f.org("Beta")
	admin, err := f.s.CreateUser(ctx, gatehouse.SystemEntry(gatehouse.AuditUserAdded), gatehouse.User{OrgID: a.ID, Email: "admin@example.com", PasswordHash: "h"}, nil)
	must(t, err)
	_, err = f.s.CreateUser(ctx, gatehouse.SystemEntry(gatehouse.AuditUserAdded), gatehouse.User{OrgID: b.ID, Email: "admin@example.com", PasswordHash: "h"}, nil)
	must(t, err)
	op, err := f.s.CreateUser(ctx, gatehouse.SystemEntry(gatehouse.AuditUserAdded), gatehouse.User{OrgID: a.ID, Email: "op@example.com", Role: gatehouse.RoleOperator, PasswordHash: "h"}, nil)
	must(t, err)
	session := func(u gatehouse.User) [32]byte {
		s, token := sessions.New(u.ID, f.now)
		must(t, f.s.CreateSession(ctx, gatehouse.SystemEntry(gatehouse.AuditSignedIn), s))
		return sessions.Hash(token)
	}
	alive := func(h [32]byte) bool {
		_, _, err := f.s.FindSession(ctx, h, f.now)
		return err == nil
	}

	_, err = f.s.SetUserRole(ctx, gatehouse.SystemEntry(gatehouse.AuditUserRoleChanged), a.ID, "ADMIN@example.com", gatehouse.RoleOperator, nil)
	wantErr(t, "demoting the last admin", err, gatehouse.ErrConflict)
	_, err = f.s.RemoveUser(ctx, gatehouse.SystemEntry(gatehouse.AuditUserRemoved), a.ID, "admin@example.com")
	wantErr(t, "removing the last admin", err, gatehouse.ErrConflict)
	_, err = f.s.SetUserRole(ctx, gatehouse.SystemEntry(gatehouse.AuditUserRoleChanged), a.ID, "nobody@example.com", gatehouse.RoleViewer, nil)
	wantErr(t, "an unknown user", err, gatehouse.ErrNotFound)
	_, err = f.s.SetUserRole(ctx, gatehouse.SystemEntry(gatehouse.AuditUserRoleChanged), gatehouse.NewID(), "op@example.com", gatehouse.RoleViewer, nil)
	wantErr(t, "another organization's user", err, gatehouse.ErrNotFound)

	opSession := session(op)
	raised, err := f.s.SetUserRole(ctx, gatehouse.SystemEntry(gatehouse.AuditUserRoleChanged), a.ID, "op@example.com", gatehouse.RoleAdmin, nil)
	if err != nil || raised.Role != gatehouse.RoleAdmin || !alive(opSession) {
		t.Errorf("raised to admin: %+v %v; sessions alive %v (a raise keeps them)", raised, err, alive(opSession))
	}
	if _, user, err := f.s.FindSession(ctx, opSession, f.now); err != nil || user.Role != gatehouse.RoleAdmin {
		t.Errorf("the session's user after the raise: %+v %v", user, err)
	}
	adminSession := session(admin)
	lowered, err := f.s.SetUserRole(ctx, gatehouse.SystemEntry(gatehouse.AuditUserRoleChanged), a.ID, "admin@example.com", gatehouse.RoleViewer, nil)
	if err != nil || lowered.Role != gatehouse.RoleViewer || alive(adminSession) {
		t.Errorf("lowered to viewer: %+v %v; session alive %v (a lowered role ends it)", lowered, err, alive(adminSession))
	}
	_, err = f.s.SetUserRole(ctx, gatehouse.SystemEntry(gatehouse.AuditUserRoleChanged), a.ID, "op@example.com", gatehouse.RoleViewer, nil)
	wantErr(t, "demoting the new last admin", err, gatehouse.ErrConflict)

	viewerSession := session(lowered)
	removed, err := f.s.RemoveUser(ctx, gatehouse.SystemEntry(gatehouse.AuditUserRemoved), a.ID, "admin@example.com")
	if err != nil || removed.ID != admin.ID || alive(viewerSession) {
		t.Errorf("removed: %+v %v; session alive %v", removed, err, alive(viewerSession))
	}
	if got, _ := f.s.FindUsersByEmail(ctx, "admin@example.com"); len(got) != 1 || got[0].OrgID != b.ID {
		t.Errorf("after removal from Acme, the email's users: %+v", got)
	}
	_, err = f.s.RemoveUser(ctx, gatehouse.SystemEntry(gatehouse.AuditUserRemoved), a.ID, "admin@example.com")
	wantErr(t, "removing a removed user", err, gatehouse.ErrNotFound)
}

func testSecret(t *testing.T, f *fixture) {
	a, err := f.s.Secret(ctx)
	must(t, err)
	b, err := f.s.Secret(ctx)
	must(t, err)
	if len(a) < 32 || string(a) != string(b) {
		t.Errorf("secrets %x and %x", a, b)
	}
}
