package sqlite_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gatehouse/gatehouse"
	"github.com/gatehouse/gatehouse/internal/sqlite"
	"github.com/gatehouse/gatehouse/internal/storetest"
	"github.com/google/uuid"
)

func TestStore(t *testing.T) {
	storetest.Run(t, openStore)
}

// openStore opens a fresh, migrated database file for the store suite.
func openStore(t *testing.T) (gatehouse.Store, *func() time.Time) {
	ctx := context.Background()
	db, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "test.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	if err := db.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	return db, &db.Now
}

// TestUnreadablePolicy: a policy body the store cannot decode, written
// behind its back, hurts only its own access point.
func TestUnreadablePolicy(t *testing.T) {
	storetest.RunUnreadablePolicy(t, openStore, func(t *testing.T, s gatehouse.Store, ap uuid.UUID, body string) {
		err := s.(*sqlite.DB).ExecForTest(context.Background(), `UPDATE policies SET body = ?
			WHERE access_point_id = ? AND version = (SELECT policy_version FROM access_points WHERE id = ?)`, body, ap[:], ap[:])
		if err != nil {
			t.Fatal(err)
		}
	})
}

// Each migration has its own number: Migrate records numbers, so a second
// file with a number already applied would be skipped without a word.
func TestMigrationNumbersAreUnique(t *testing.T) {
	seen := map[string]string{}
	for _, f := range sqlite.MigrationFiles() {
		n := strings.SplitN(f, "_", 2)[0]
		if other, ok := seen[n]; ok {
			t.Errorf("%s and %s share the number %s", other, f, n)
		}
		seen[n] = f
	}
}

// openThrough opens a fresh database file migrated up to version last (all
// of them for 0): a migration's test starts from the schema before it.
func openThrough(t *testing.T, last int) *sqlite.DB {
	t.Helper()
	ctx := context.Background()
	db, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "gatehouse.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	migrate := db.Migrate
	if last > 0 {
		migrate = func(ctx context.Context) error { return db.MigrateThroughForTest(ctx, last) }
	}
	if err := migrate(ctx); err != nil {
		t.Fatal(err)
	}
	return db
}

// TestASessionOfTheReleaseBeforeGetsAnID: an instance of the release
// before 0037 starts sessions without an id (SQLite's ALTER TABLE takes
// no random default); the trigger gives each one, so its user can still
// sign it out from another browser.
func TestASessionOfTheReleaseBeforeGetsAnID(t *testing.T) {
	s, _ := openStore(t)
	db := s.(*sqlite.DB)
	ctx := context.Background()
	o, err := db.CreateOrganization(ctx, gatehouse.SystemEntry(gatehouse.AuditOrganizationCreated), "Acme")
	if err != nil {
		t.Fatal(err)
	}
	u, err := db.CreateUser(ctx, gatehouse.SystemEntry(gatehouse.AuditUserAdded), gatehouse.User{OrgID: o.ID, Email: "ops@acme.test", Name: "Ops", PasswordHash: "x"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	now := db.Now()
	if err := db.ExecForTest(ctx, `INSERT INTO sessions (token_hash, user_id, csrf, created_at, expires_at)
		VALUES (?, ?, 'csrf', ?, ?)`, make([]byte, 32), u.ID[:], now.UnixMilli(), now.Add(time.Hour).UnixMilli()); err != nil {
		t.Fatal(err)
	}
	list, err := db.ListSessions(ctx, o.ID, u.ID, now)
	if err != nil || len(list) != 1 || list[0].ID == uuid.Nil {
		t.Fatalf("the old release's session: %+v %v", list, err)
	}
	if n, err := db.EndSessions(ctx, gatehouse.SystemEntry(gatehouse.AuditSessionsEnded), o.ID, u.ID, list[0].ID); n != 1 || err != nil {
		t.Errorf("ending it: %d %v", n, err)
	}
}
