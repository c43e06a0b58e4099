package postgres_test

import (
	"context"
	"testing"
	"time"

	"github.com/gatehouse/gatehouse"
	"github.com/gatehouse/gatehouse/internal/testenv"
)

// TestProvenMigrationKeepsWhoSignedIn: migration 0015 makes proven the
// users who ever signed in (an entry or a session) and those added before
// the audit log recorded additions; a user an admin added who never
// signed in becomes an invitation.
func TestProvenMigrationKeepsWhoSignedIn(t *testing.T) {
	ctx := context.Background()
	db := open(t, testenv.PostgresDSN(t))
	if err := db.MigrateThroughForTest(ctx, 14); err != nil {
		t.Fatal(err)
	}
	now := time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)
	org := gatehouse.NewID()
	if err := db.ExecForTest(ctx, "INSERT INTO organizations (id, name, created_at) VALUES ($1, 'Acme', now())", org); err != nil {
		t.Fatal(err)
	}
	old := gatehouse.NewID()
	if err := db.ExecForTest(ctx, "INSERT INTO users (id, org, email, name, role, password_hash, created_at) SELECT $1, seq, 'old@acme.test', 'Old', 'admin', 'h', now() FROM organizations WHERE id = $2", old, org); err != nil {
		t.Fatal(err)
	}
	added := map[string]gatehouse.User{}
	for _, email := range []string{"invited@acme.test", "entry@acme.test", "session@acme.test"} {
		// As the release of migration 14 added a user: the row, and its
		// entry user.added.
		u := gatehouse.User{ID: gatehouse.NewID(), OrgID: org, Email: email}
		if err := db.ExecForTest(ctx, "INSERT INTO users (id, org, email, name, role, password_hash, created_at) SELECT $1, seq, $2, '', 'viewer', 'h', now() FROM organizations WHERE id = $3", u.ID, email, org); err != nil {
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
	if err := db.ExecForTest(ctx, "INSERT INTO sessions (token_hash, user_id, csrf, created_at, expires_at) VALUES ($1, $2, 'c', $3, $4)",
		s.TokenHash[:], s.UserID, s.CreatedAt, s.ExpiresAt); err != nil {
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
