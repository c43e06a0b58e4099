package postgres_test

import (
	"context"
	"testing"
	"time"

	"github.com/gatehouse/gatehouse"
	"github.com/gatehouse/gatehouse/internal/testenv"
)

// TestRolesMigrationMakesUsersAdmins: after migration 0004 the users of
// before are admins (every user could do everything), their sessions
// live on, and an email may be used again in another organization.
func TestRolesMigrationMakesUsersAdmins(t *testing.T) {
	ctx := context.Background()
	db := open(t, testenv.PostgresDSN(t))
	if err := db.MigrateThroughForTest(ctx, 3); err != nil {
		t.Fatal(err)
	}
	now := time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)
	org, other, user := gatehouse.NewID(), gatehouse.NewID(), gatehouse.NewID()
	sessions := gatehouse.NewSessions([]byte("secret"))
	s, token := sessions.New(user, now)
	for _, q := range []struct {
		sql  string
		args []any
	}{
		{"INSERT INTO organizations (id, name, created_at) VALUES ($1, 'Acme', now()), ($2, 'Beta', now())", []any{org, other}},
		{"INSERT INTO users (id, org, email, name, password_hash, created_at) SELECT $1, seq, 'ops@acme.test', 'Ops', 'h', now() FROM organizations WHERE name = 'Acme'", []any{user}},
		{"INSERT INTO sessions (token_hash, user_id, csrf, created_at, expires_at) VALUES ($1, $2, 'c', $3, $4)",
			[]any{s.TokenHash[:], user, s.CreatedAt, s.ExpiresAt}},
	} {
		if err := db.ExecForTest(ctx, q.sql, q.args...); err != nil {
			t.Fatal(err)
		}
	}
	if err := db.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	_, u, err := db.FindSession(ctx, sessions.Hash(token), now)
	if err != nil || u.ID != user || u.Role != gatehouse.RoleAdmin {
		t.Fatalf("the session of before the migration: %+v %v", u, err)
	}
	if _, err := db.CreateUser(ctx, gatehouse.SystemEntry(gatehouse.AuditUserAdded), gatehouse.User{OrgID: other, Email: "ops@acme.test", PasswordHash: "h"}, nil); err != nil {
		t.Errorf("the email in another organization after the migration: %v", err)
	}
}
