package sqlite_test

import (
	"context"
	"testing"
	"time"

	"github.com/gatehouse/gatehouse"
)

// TestRolesMigrationKeepsUsersAndSessions: migration 0005 rebuilds the
// users table. The users of before become admins (every user could do
// everything), their sessions survive the rebuild, and an email may now
// be used again in another organization.
func TestRolesMigrationKeepsUsersAndSessions(t *testing.T) {
	ctx := context.Background()
	db := openThrough(t, 4)
	now := time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)
	org, other, user := gatehouse.NewID(), gatehouse.NewID(), gatehouse.NewID()
	sessions := gatehouse.NewSessions([]byte("secret"))
	s, token := sessions.New(user, now)
	for _, q := range []struct {
		sql  string
		args []any
	}{
		{"INSERT INTO organizations (seq, id, name, created_at) VALUES (1, ?, 'Acme', 0), (2, ?, 'Beta', 0)", []any{org[:], other[:]}},
		{"INSERT INTO users (id, org, email, name, password_hash, created_at) VALUES (?, 1, 'ops@acme.test', 'Ops', 'h', 0)", []any{user[:]}},
		{"INSERT INTO sessions (token_hash, user_id, csrf, created_at, expires_at) VALUES (?, ?, 'c', ?, ?)",
			[]any{s.TokenHash[:], user[:], s.CreatedAt.UnixMilli(), s.ExpiresAt.UnixMilli()}},
	} {
		if err := db.ExecForTest(ctx, q.sql, q.args...); err != nil {
			t.Fatal(err)
		}
	}
	if err := db.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	_, u, err := db.FindSession(ctx, sessions.Hash(token), now)
	if err != nil || u.ID != user || u.Role != gatehouse.RoleAdmin || u.Email != "ops@acme.test" {
		t.Fatalf("the session of before the migration: %+v %v", u, err)
	}
	if _, err := db.CreateUser(ctx, gatehouse.SystemEntry(gatehouse.AuditUserAdded), gatehouse.User{OrgID: other, Email: "ops@acme.test", PasswordHash: "h"}, nil); err != nil {
		t.Errorf("the email in another organization after the migration: %v", err)
	}
}
