// Package teststore opens a fresh, migrated store for a test on the
// backend GATEHOUSE_TEST_BACKEND names: sqlite (the default), postgres,
// or shards (PostgreSQL as --db, and the primaries GATEHOUSE_TEST_SHARDS
// names as --shards).
// CI runs the packages that use it once on each.
package teststore

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/gatehouse/gatehouse"
	"github.com/gatehouse/gatehouse/internal/postgres"
	"github.com/gatehouse/gatehouse/internal/shards"
	"github.com/gatehouse/gatehouse/internal/sqlite"
	"github.com/gatehouse/gatehouse/internal/testenv"
)

// Open opens the store with now as its clock; it is closed when t ends.
func Open(t testing.TB, now func() time.Time) gatehouse.Store {
	t.Helper()
	ctx := context.Background()
	var db interface {
		gatehouse.Store
		Migrate(context.Context) error
	}
	switch backend := os.Getenv("GATEHOUSE_TEST_BACKEND"); backend {
	case "", "sqlite":
		s, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "gatehouse.db"))
		if err != nil {
			t.Fatal(err)
		}
		s.Now, db = now, s
	case "postgres":
		s, err := postgres.Open(ctx, testenv.PostgresDSN(t))
		if err != nil {
			t.Fatal(err)
		}
		s.Now, db = now, s
	case "shards":
		r, err := shards.Open(ctx, testenv.PostgresDSN(t), testenv.ShardDSNs(t))
		if err != nil {
			t.Fatal(err)
		}
		r.Now, db = now, r
	default:
		t.Fatalf("GATEHOUSE_TEST_BACKEND=%q: want sqlite, postgres or shards", backend)
	}
	t.Cleanup(func() { db.Close() })
	if err := db.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	return db
}

// OpenSQLite opens the SQLite store at path and migrates it; it is closed
// when t ends. Tests of two processes sharing one file (gatehouse serve
// and an operator's CLI) open the same path twice.
func OpenSQLite(t testing.TB, path string) *sqlite.DB {
	t.Helper()
	ctx := context.Background()
	db, err := sqlite.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	if err := db.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	return db
}
