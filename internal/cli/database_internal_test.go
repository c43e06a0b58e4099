package cli

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestDatabaseNameHidesCredentials: the start-up line names the database
// but never a user, a password or the query string.
func TestDatabaseNameHidesCredentials(t *testing.T) {
	abs, _ := filepath.Abs("gatehouse.db")
	for dsn, want := range map[string]string{
		"postgres://gh:s3cret@db.internal:5432/gatehouse?sslmode=verify-full&password=s3cret": "postgres://db.internal:5432/gatehouse",
		"postgresql://gh@10.0.0.7/prod":   "postgres://10.0.0.7/prod",
		"postgres://gh:s3cret@%zz/x":      "postgres (an unparsable URL)",
		"sqlite:/var/lib/gatehouse.db":    "sqlite:/var/lib/gatehouse.db",
		"/var/lib/gatehouse/gatehouse.db": "sqlite:/var/lib/gatehouse/gatehouse.db",
		"gatehouse.db":                    "sqlite:" + abs,
	} {
		got := databaseName(dsn)
		if got != want || strings.Contains(got, "s3cret") || strings.Contains(got, "gh@") {
			t.Errorf("databaseName(%q) = %q, want %q", dsn, got, want)
		}
	}
}
