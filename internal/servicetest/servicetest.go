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
