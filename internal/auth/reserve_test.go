package auth_test

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/gatehouse/gatehouse"
	"github.com/gatehouse/gatehouse/internal/auth"
)

var errExhausted = errors.New("budget exhausted")

// budget is a Reserve with n failures to spend, counting refunds.
type budget struct {
	left, refunds atomic.Int32
}

func newBudget(n int32) *budget {
	b := &budget{}
	b.left.Store(n)
	return b
}

func (b *budget) reserve(context.Context) (func(), error) {
	if b.left.Add(-1) < 0 {
		b.left.Add(1)
		return nil, errExhausted
	}
	var once sync.Once
	return func() { once.Do(func() { b.left.Add(1); b.refunds.Add(1) }) }, nil
}

// TestReserveBoundsLookupsOfUnknownKeys: 100 unknown keys at once reach
// the store only as often as the budget allows.
func TestReserveBoundsLookupsOfUnknownKeys(t *testing.T) {
	f := newFixture(t)
	b := newBudget(20)
	var wg sync.WaitGroup
	var unknown, refused atomic.Int32
	for range 100 {
		raw, _, _ := gatehouse.GenerateKey()
		wg.Go(func() {
			_, err := f.auth.Authenticate(context.Background(), "Bearer "+raw, b.reserve)
			switch {
			case errors.Is(err, errExhausted):
				refused.Add(1)
			case reason(err) == "unknown":
				unknown.Add(1)
			default:
				t.Errorf("unexpected %v", err)
			}
		})
	}
	wg.Wait()
	if n := f.store.lookups.Load(); n != 20 || unknown.Load() != 20 || refused.Load() != 80 {
		t.Fatalf("100 unknown keys at once: %d lookups, %d unknown, %d refused; want 20, 20, 80", n, unknown.Load(), refused.Load())
	}
}

// TestKnownValidKeysNeedNoReservation: a key found active is served, and
// looked up again after CacheTTL, even while the budget is exhausted by
// others; a good key that pays for its lookup is refunded.
func TestKnownValidKeysNeedNoReservation(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	raw, k := f.key(t, nil)
	b := newBudget(1)
	if got, err := f.auth.Authenticate(ctx, "Bearer "+raw, b.reserve); err != nil || got.ID != k.ID {
		t.Fatalf("first use: %v", err)
	}
	if b.refunds.Load() != 1 {
		t.Fatalf("a good key's reservation was not refunded")
	}
	bad, _, _ := gatehouse.GenerateKey()
	f.auth.Authenticate(ctx, "Bearer "+bad, b.reserve) // spends the last failure
	if _, err := f.auth.Authenticate(ctx, "Bearer "+bad, b.reserve); !errors.Is(err, errExhausted) {
		t.Fatalf("unknown key with the budget exhausted: %v", err)
	}
	f.now = f.now.Add(auth.CacheTTL)
	lookups := f.store.lookups.Load()
	if got, err := f.auth.Authenticate(ctx, "Bearer "+raw, b.reserve); err != nil || got.ID != k.ID {
		t.Fatalf("known-valid key with the budget exhausted: %v", err)
	}
	if f.store.lookups.Load() != lookups+1 {
		t.Error("a known-valid key was not looked up again after CacheTTL")
	}
	// A good key this instance has never seen is, for all it can tell
	// without the store, one more guess: it waits for the budget.
	fresh, _ := f.key(t, nil)
	if _, err := f.auth.Authenticate(ctx, "Bearer "+fresh, b.reserve); !errors.Is(err, errExhausted) {
		t.Fatalf("never-seen key with the budget exhausted: %v", err)
	}
	// A known-valid key revoked since fails, and the failure is charged.
	if _, err := f.db.RevokeAPIKey(ctx, gatehouse.SystemEntry(gatehouse.AuditAPIKeyRevoked), k.OrgID, k.ID, f.now); err != nil {
		t.Fatal(err)
	}
	f.now = f.now.Add(auth.CacheTTL)
	if _, err := f.auth.Authenticate(ctx, "Bearer "+raw, b.reserve); !errors.Is(err, errExhausted) {
		t.Errorf("revoked key with the budget exhausted: %v, want the budget's error", err)
	}
}

// TestUnknownKeysAreCachedBriefly: a repeated unknown key reaches the
// store once per UnknownTTL, and a key created after a miss works once
// UnknownTTL has passed.
func TestUnknownKeysAreCachedBriefly(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	raw, prefix, hash := gatehouse.GenerateKey()
	for range 100 {
		if _, err := f.auth.Authenticate(ctx, "Bearer "+raw, nil); reason(err) != "unknown" {
			t.Fatalf("unknown key: %v", err)
		}
	}
	if n := f.store.lookups.Load(); n != 1 {
		t.Fatalf("%d lookups for 100 uses of one unknown key within UnknownTTL, want 1", n)
	}
	k := gatehouse.APIKey{ID: gatehouse.NewID(), OrgID: f.org.ID, Name: "late", Prefix: prefix, Hash: hash,
		Scopes: []gatehouse.Scope{gatehouse.ScopeEventsRead}, CreatedAt: f.now}
	if err := f.db.CreateAPIKey(ctx, gatehouse.SystemEntry(gatehouse.AuditAPIKeyCreated), k); err != nil {
		t.Fatal(err)
	}
	f.now = f.now.Add(auth.UnknownTTL)
	if got, err := f.auth.Authenticate(ctx, "Bearer "+raw, nil); err != nil || got.ID != k.ID {
		t.Fatalf("a key created after a miss, UnknownTTL later: %v", err)
	}
}

// TestUnknownCacheIsBounded: a flood of distinct unknown keys leaves at
// most a bounded cache behind, and lookups of each.
func TestUnknownCacheIsBounded(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	raw, _ := f.key(t, nil)
	f.auth.Authenticate(ctx, "Bearer "+raw, nil)
	for range 12_000 {
		bad, _, _ := gatehouse.GenerateKey()
		f.auth.Authenticate(ctx, "Bearer "+bad, nil)
	}
	if n := auth.CachedUnknown(f.auth); n > 10_000 {
		t.Errorf("%d unknown hashes held, want at most 10,000", n)
	}
	if !auth.KnownValid(f.auth, raw) {
		t.Error("a flood of unknown keys pushed a good key out of the cache")
	}
}
