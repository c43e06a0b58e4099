package testenv

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// postgresEnv names the PostgreSQL server's URL.
const postgresEnv = "GATEHOUSE_TEST_POSTGRES"

// shardsEnv names the databases of two or more other PostgreSQL
// primaries, comma-separated, for the tests of shards (.ci/run starts
// them as clusters of their own).
const shardsEnv = "GATEHOUSE_TEST_SHARDS"

// extensions records, per server URL, that pg_trgm was made in its public
// schema.
var extensions sync.Map

// PostgresDSN creates a schema for t, dropped when t ends, and returns a
// URL whose search_path is that schema (then public, for the pg_trgm
// extension). It skips t (fails it in CI) when the server is not
// configured.
func PostgresDSN(t testing.TB) string {
	t.Helper()
	return schemaDSN(t, PostgresURL(t))
}

// ShardDSNs returns, for each database GATEHOUSE_TEST_SHARDS names, a URL
// of a schema made for t there, as PostgresDSN does. It skips t (fails it
// in CI) when the variable is unset.
func ShardDSNs(t testing.TB) []string {
	t.Helper()
	var dsns []string
	for _, base := range strings.Split(serviceURL(t, shardsEnv), ",") {
		dsns = append(dsns, schemaDSN(t, strings.TrimSpace(base)))
	}
	return dsns
}

// schemaDSN creates a schema for t on the server at base, dropped when t
// ends, and returns the URL that uses it.
func schemaDSN(t testing.TB, base string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, base)
	if err != nil {
		t.Fatalf("testenv: %v", err)
	}
	defer conn.Close(ctx)
	if _, done := extensions.LoadOrStore(base, true); !done {
		// Once per database, in public: a per-test schema must not own it,
		// or dropping the schema would drop it for every other test.
		if _, err := conn.Exec(ctx, "CREATE EXTENSION IF NOT EXISTS pg_trgm WITH SCHEMA public"); err != nil {
			t.Logf("testenv: pg_trgm: %v", err)
		}
	}
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
		t.Fatalf("testenv: %s: %v", base, err)
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
