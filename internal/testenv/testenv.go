// Package testenv is what tests need from outside the process: a
// PostgreSQL schema of their own on the server named by
// GATEHOUSE_TEST_POSTGRES (and on the other primaries
// GATEHOUSE_TEST_SHARDS names, for shards), the Redis server named by
// GATEHOUSE_TEST_REDIS, and a TCP proxy to either that a test cuts and
// restores to play an outage.
//
// When a service (or a program such as node) is not there, a test skips on
// a developer's machine and fails when CI=true, where a skip would hide a
// failure: .ci/run provides everything.
package testenv

import (
	"os"
	"testing"
)

// serviceURL returns the service URL in envVar, or skips t — fails it when
// CI=true — when the variable is unset.
func serviceURL(t testing.TB, envVar string) string {
	t.Helper()
	u := os.Getenv(envVar)
	if u == "" {
		if os.Getenv("CI") == "true" {
			t.Fatalf("%s must be set in CI", envVar)
		}
		t.Skipf("%s is not set", envVar)
	}
	return u
}

// Missing skips t because something it needs is absent — or fails it when
// CI=true, where .ci/run installs everything.
func Missing(t testing.TB, format string, args ...any) {
	t.Helper()
	if os.Getenv("CI") == "true" {
		t.Fatalf(format+" (CI installs it)", args...)
	}
	t.Skipf(format, args...)
}
