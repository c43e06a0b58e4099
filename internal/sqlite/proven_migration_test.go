package sqlite_test

import (
	"context"
	"testing"
	"time"

	"github.com/gatehouse/gatehouse"
)

// TestProvenMigrationKeepsWhoSignedIn: migration 0015 makes proven the
// users who ever signed in (an entry or a session) and those added before
// the audit log recorded additions; a user an admin added who never
// signed in becomes an invitation.
func TestProvenMigrationKeepsWhoSignedIn(t *testing.T) {
	ctx := context.Background()
	db := openThrough(t, 14)
	now := time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)
	org := gatehouse.NewID()
	if err := db.ExecForTest(ctx, "INSERT INTO organizations (seq, id, name, created_at) VALUES (1, ?, 'Acme', 0)", org[:]); err != nil {
		t.Fatal(err)
	}
	old := gatehouse.NewID()
	if err := db.ExecForTest(ctx, "INSERT INTO users (id, org, email, name, role, password_hash, created_at) VALUES (?, 1, 'old@acme.test', 'Old', 'admin', 'h', 0)", old[:]); err != nil {
		t.Fatal(err)
	}
	added := map[string]gatehouse.User{}
	for _, email := range []string{"invited@acme.test", "entry@acme.test", "session@acme.test"} {
		// As the release of migration 14 added a user: the row, and its
		// entry user.added.
		u := gatehouse.User{ID: gatehouse.NewID(), OrgID: org, Email: email}
		if err := db.ExecForTest(ctx, "INSERT INTO users (id, org, email, name, role, password_hash, created_at) VALUES (?, 1, ?, '', 'viewer', 'h', 0)", u.ID[:], email); err != nil {
			t.Fatal(err)
		}
		if err := db.AppendAudit(ctx, gatehouse.SystemEntry(gatehouse.AuditUserAdded).Of(org, gatehouse.AuditTarget{Type: gatehouse.TargetUser, ID: u.ID, Name: email})); err != nil {
			t.Fatal(err)
		}
		added[email] = u
	}
	in := added["entry@acme.test"]
	if err := db.AppendAudit(ctx, gatehouse.SystemEntry(gatehouse.AuditSignedIn).Of(org, gatehouse.AuditTarget{Type: gatehouse.TargetUser, ID: in.ID, Name: in.Email})); err != nil {
		t.Fatal(err)
	}
	s, _ := gatehouse.NewSessions([]byte("secret")).New(added["session@acme.test"].ID, now)
	if err := db.ExecForTest(ctx, "INSERT INTO sessions (token_hash, user_id, csrf, created_at, expires_at) VALUES (?, ?, 'c', ?, ?)",
		s.TokenHash[:], s.UserID[:], s.CreatedAt.UnixMilli(), s.ExpiresAt.UnixMilli()); err != nil {
		t.Fatal(err)
	}
	if err := db.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	users, err := db.ListUsers(ctx, org)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]bool{"old@acme.test": true, "invited@acme.test": false, "entry@acme.test": true, "session@acme.test": true}
	for _, u := range users {
		if u.Proven != want[u.Email] {
			t.Errorf("%s: proven %v, want %v", u.Email, u.Proven, want[u.Email])
		}
	}
	if len(users) != len(want) {
		t.Errorf("%d users after the migration, want %d", len(users), len(want))
	}
}
