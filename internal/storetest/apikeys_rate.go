package storetest

import (
	"testing"
	"time"

	"github.com/gatehouse/gatehouse"
)

// testAPIKeyRate: a key's own rate is set and cleared within its
// organization only, each change recorded once, and what the
// authenticator reads next carries it.
func testAPIKeyRate(t *testing.T, f *fixture) {
	a, b := f.org("Acme"), f.org("Beta")
	_, prefix, hash := gatehouse.GenerateKey()
	k := gatehouse.APIKey{ID: gatehouse.NewID(), OrgID: a.ID, Name: "game-servers", Prefix: prefix, Hash: hash,
		Scopes: []gatehouse.Scope{gatehouse.ScopeGameServer, gatehouse.ScopeEventsWrite}, CreatedAt: f.now}
	must(t, f.s.CreateAPIKey(ctx, gatehouse.SystemEntry(gatehouse.AuditAPIKeyCreated), k))
	entries := func() int { return len(f.log(a.ID, gatehouse.AuditFilter{Action: gatehouse.AuditAPIKeyRateChanged})) }
	set := func(r *gatehouse.Rate) gatehouse.APIKey {
		t.Helper()
		got, err := f.s.SetAPIKeyRate(ctx, gatehouse.SystemEntry(gatehouse.AuditAPIKeyRateChanged), a.ID, k.ID, r)
		must(t, err)
		return got
	}

	fast := &gatehouse.Rate{Count: 150, Per: time.Second}
	got := set(fast)
	if got.RateLimit == nil || *got.RateLimit != *fast || got.ID != k.ID || got.Name != k.Name {
		t.Errorf("SetAPIKeyRate returned %+v, want the key with rate %v", got, fast)
	}
	if found, _ := f.s.FindAPIKeyByHash(ctx, hash); found.RateLimit == nil || *found.RateLimit != *fast {
		t.Errorf("FindAPIKeyByHash after the change: rate %v, want %v", found.RateLimit, fast)
	}
	set(fast) // unchanged: no entry
	if n := entries(); n != 1 {
		t.Errorf("%d rate_changed entries after a change and a repeat, want 1", n)
	}
	if got := set(nil); got.RateLimit != nil {
		t.Errorf("cleared rate reads %v, want nil (the server's)", got.RateLimit)
	}
	if found, _ := f.s.FindAPIKey(ctx, a.ID, k.ID); found.RateLimit != nil {
		t.Errorf("FindAPIKey after clearing: rate %v", found.RateLimit)
	}
	if n := entries(); n != 2 {
		t.Errorf("%d rate_changed entries after clearing, want 2", n)
	}

	_, err := f.s.SetAPIKeyRate(ctx, gatehouse.SystemEntry(gatehouse.AuditAPIKeyRateChanged), b.ID, k.ID, fast)
	wantErr(t, "set the rate of another organization's key", err, gatehouse.ErrNotFound)
	if found, _ := f.s.FindAPIKey(ctx, a.ID, k.ID); found.RateLimit != nil {
		t.Errorf("another organization's change went through: rate %v", found.RateLimit)
	}
	if n := len(f.log(b.ID, gatehouse.AuditFilter{Action: gatehouse.AuditAPIKeyRateChanged})); n != 0 {
		t.Errorf("the refused change left %d entries in the other organization", n)
	}
	_, err = f.s.SetAPIKeyRate(ctx, gatehouse.SystemEntry(gatehouse.AuditAPIKeyRateChanged), a.ID, gatehouse.NewID(), fast)
	wantErr(t, "set the rate of an unknown key", err, gatehouse.ErrNotFound)
}

// testCountAPIKeysExpiring: the count spans organizations and leaves out
// revoked keys, keys without expiry and those outside the window.
func testCountAPIKeysExpiring(t *testing.T, f *fixture) {
	a, b := f.org("Acme"), f.org("Beta")
	day := 24 * time.Hour
	mk := func(org gatehouse.Organization, expires *time.Time, revoke bool) {
		t.Helper()
		_, prefix, hash := gatehouse.GenerateKey()
		k := gatehouse.APIKey{ID: gatehouse.NewID(), OrgID: org.ID, Name: "k", Prefix: prefix, Hash: hash,
			Scopes: []gatehouse.Scope{gatehouse.ScopeEventsRead}, CreatedAt: f.now, ExpiresAt: expires}
		must(t, f.s.CreateAPIKey(ctx, gatehouse.SystemEntry(gatehouse.AuditAPIKeyCreated), k))
		if revoke {
			_, err := f.s.RevokeAPIKey(ctx, gatehouse.SystemEntry(gatehouse.AuditAPIKeyRevoked), org.ID, k.ID, f.now)
			must(t, err)
		}
	}
	mk(a, ptr(f.now.Add(3*day)), false)  // counted
	mk(b, ptr(f.now.Add(13*day)), false) // counted: another organization
	mk(a, ptr(f.now.Add(5*day)), true)   // revoked
	mk(a, ptr(f.now.Add(30*day)), false) // later
	mk(a, ptr(f.now.Add(-day)), false)   // expired already
	mk(a, ptr(f.now), false)             // expired just now
	mk(b, ptr(f.now.Add(14*day)), false) // counted: the last instant of the window
	mk(b, nil, false)                    // never expires
	n, err := f.s.CountAPIKeysExpiring(ctx, f.now, f.now.Add(gatehouse.ExpiryWarning))
	if err != nil || n != 3 {
		t.Errorf("CountAPIKeysExpiring = %d, %v; want 3", n, err)
	}
}
