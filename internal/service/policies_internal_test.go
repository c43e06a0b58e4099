package service

import (
	"strconv"
	"testing"
	"time"

	"github.com/google/uuid"
)

// TestPolicySetsAreBounded: the versions kept for sync answers follow
// the universes synced lately: those older than policySetFresh go at the
// next put a second later, and there are never more than maxPolicySets,
// however many organizations and universes sync within a second.
func TestPolicySetsAreBounded(t *testing.T) {
	var c policySets
	now := time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)
	orgs := []uuid.UUID{uuid.New(), uuid.New(), uuid.New()}
	for i := range 3 * maxPolicySets {
		c.put(orgs[i%3], strconv.Itoa(i+1), "v", now)
		if n := c.len(); n > maxPolicySets {
			t.Fatalf("%d versions kept, want at most %d", n, maxPolicySets)
		}
	}
	if v, ok := c.version(orgs[2], strconv.Itoa(3*maxPolicySets), now); !ok || v != "v" {
		t.Errorf("the last version put is not kept: %q, %v", v, ok)
	}
	later := now.Add(policySetFresh)
	c.put(orgs[0], "1", "w", later)
	if n := c.len(); n != 1 {
		t.Errorf("%d versions kept a second later, want 1: stale ones must go", n)
	}
	if len(c.m) != 1 {
		t.Errorf("%d organizations kept, want 1", len(c.m))
	}
	c.forget(orgs[0])
	if n := c.len(); n != 0 || len(c.m) != 0 {
		t.Errorf("%d versions of %d organizations after forget, want none", n, len(c.m))
	}
}
