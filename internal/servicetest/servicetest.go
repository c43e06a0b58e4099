// Package servicetest decides what a test does when a service it needs is
// not configured: skip on a developer's machine, fail in CI, where a skip
// would hide a failure.
package servicetest

import (
	"os"
	"testing"
)

// URL returns the service URL in envVar, or skips t — fails it when
// CI=true — when the variable is unset.
func URL(t testing.TB, envVar string) string {
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
