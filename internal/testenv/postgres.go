package testenv

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"net/url"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// postgresEnv names the PostgreSQL server's URL.
const postgresEnv = "GATEHOUSE_TEST_POSTGRES"

var extensionOnce sync.Once

// PostgresDSN creates a schema for t, dropped when t ends, and returns a
// URL whose search_path is that schema (then public, for the pg_trgm
// extension). It skips t (fails it in CI) when the server is not
// configured.
func PostgresDSN(t testing.TB) string {
	t.Helper()
	base := PostgresURL(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, base)
	if err != nil {
		t.Fatalf("testenv: %v", err)
	}
	defer conn.Close(ctx)
	extensionOnce.Do(func() {
		// Once per database, in public: a per-test schema must not own it,
		// or dropping the schema would drop it for every other test.
		if _, err := conn.Exec(ctx, "CREATE EXTENSION IF NOT EXISTS pg_trgm WITH SCHEMA public"); err != nil {
			t.Logf("testenv: pg_trgm: %v", err)
		}
	})
	var b [6]byte
	rand.Read(b[:])
	schema := "gh_test_" + hex.EncodeToString(b[:])
	if _, err := conn.Exec(ctx, "CREATE SCHEMA "+schema); err != nil {
		t.Fatalf("testenv: %v", err)
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
		t.Fatalf("testenv: %s: %v", postgresEnv, err)
	}
	q := u.Query()
	q.Set("search_path", schema+",public")
	u.RawQuery = q.Encode()
	return u.String()
}

// PostgresURL returns the server's URL, or skips t (fails it in CI) when
// unset.
func PostgresURL(t testing.TB) string {
	t.Helper()
	return serviceURL(t, postgresEnv)
}
