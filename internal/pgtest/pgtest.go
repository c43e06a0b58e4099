// Package pgtest gives tests their own PostgreSQL schema on the server
// named by GATEHOUSE_TEST_POSTGRES. Without it, tests skip — unless CI=true,
// where a skipped backend would hide a failure, so they fail.
package pgtest

import (
	"github.com/gatehouse/gatehouse/internal/servicetest"

	"context"
	"crypto/rand"
	"encoding/hex"
	"net/url"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// EnvVar names the server's URL.
const EnvVar = "GATEHOUSE_TEST_POSTGRES"

var extensionOnce sync.Once

// DSN creates a schema for t, dropped when t ends, and returns a URL whose
// search_path is that schema (then public, for the pg_trgm extension).
func DSN(t testing.TB) string {
	t.Helper()
	base := URL(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, base)
	if err != nil {
		t.Fatalf("pgtest: %v", err)
	}
	defer conn.Close(ctx)
	extensionOnce.Do(func() {
		// Once per database, in public: a per-test schema must not own it,
		// or dropping the schema would drop it for every other test.
		if _, err := conn.Exec(ctx, "CREATE EXTENSION IF NOT EXISTS pg_trgm WITH SCHEMA public"); err != nil {
			t.Logf("pgtest: pg_trgm: %v", err)
		}
	})
	var b [6]byte
	rand.Read(b[:])
	schema := "gh_test_" + hex.EncodeToString(b[:])
	if _, err := conn.Exec(ctx, "CREATE SCHEMA "+schema); err != nil {
		t.Fatalf("pgtest: %v", err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if conn, err := pgx.Connect(ctx, base); err == nil {
			conn.Exec(ctx, "DROP SCHEMA "+schema+" CASCADE")
			conn.Close(ctx)
		}
	})
	u, err := url.Parse(base)
	if err != nil {
		t.Fatalf("pgtest: %s: %v", EnvVar, err)
	}
	q := u.Query()
	q.Set("search_path", schema+",public")
	u.RawQuery = q.Encode()
	return u.String()
}

// URL returns the server's URL, or skips t (fails it in CI) when unset.
func URL(t testing.TB) string {
	t.Helper()
	return servicetest.URL(t, EnvVar)
}
