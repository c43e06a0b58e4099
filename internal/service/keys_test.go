package service_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/gatehouse/gatehouse"
)

// TestServiceSetsAKeysRate: a key's rate is changed after its creation,
// within its organization only, recorded from what it was to what it is,
// and cleared back to the server's default.
func TestServiceSetsAKeysRate(t *testing.T) {
	f := newService(t, nil)
	ctx := context.Background()
	k, _, err := f.svc.CreateAPIKey(ctx, gatehouse.NewAPIKey{OrgID: f.org.ID, Name: "game-servers",
		Scopes: []gatehouse.Scope{gatehouse.ScopeGameServer, gatehouse.ScopeEventsWrite}, RateLimit: &gatehouse.Rate{Count: 20, Per: time.Second}})
	if err != nil {
		t.Fatal(err)
	}
	fast := &gatehouse.Rate{Count: 150, Per: time.Second}
	if _, err := f.svc.SetAPIKeyRate(ctx, f.other.ID, k.ID, fast); !errors.Is(err, gatehouse.ErrNotFound) {
		t.Fatalf("set through another organization: %v, want ErrNotFound", err)
	}
	_, err = f.svc.SetAPIKeyRate(ctx, f.org.ID, k.ID, &gatehouse.Rate{Count: 0, Per: time.Second})
	wantIssues(t, "a rate of zero", err, "rateLimit")

	got, err := f.svc.SetAPIKeyRate(ctx, f.org.ID, k.ID, fast)
	if err != nil || got.RateLimit == nil || *got.RateLimit != *fast {
		t.Fatalf("SetAPIKeyRate = %v, %v; want %v", got.RateLimit, err, fast)
	}
	if got, err = f.svc.SetAPIKeyRate(ctx, f.org.ID, k.ID, nil); err != nil || got.RateLimit != nil {
		t.Fatalf("cleared: %v, %v; want nil", got.RateLimit, err)
	}
	page, err := f.svc.ListAuditLog(ctx, f.org.ID, gatehouse.AuditFilter{Action: gatehouse.AuditAPIKeyRateChanged, Limit: 10})
	if err != nil {
		t.Fatal(err)
	}
	if len(page.Entries) != 2 {
		t.Fatalf("%d rate_changed entries, want 2 (the refused ones record nothing)", len(page.Entries))
	}
	want := []gatehouse.AuditChange{{From: "150/s", To: "default"}, {From: "20/s", To: "150/s"}}
	for i, e := range page.Entries {
		if e.Changes["rateLimit"] != want[i] || e.Target.ID != k.ID {
			t.Errorf("entry %d: %+v on %v, want rateLimit %+v", i, e.Changes, e.Target.ID, want[i])
		}
	}
}

// TestAKeyChangesNeitherItselfNorAKeyManager: through the API, a key
// with keys:write changes other keys' rates, but never its own nor that
// of another key with keys:write, which could raise its rate back.
func TestAKeyChangesNeitherItselfNorAKeyManager(t *testing.T) {
	f := newService(t, nil)
	bg := context.Background()
	mk := func(scopes ...gatehouse.Scope) gatehouse.APIKey {
		k, _, err := f.svc.CreateAPIKey(bg, gatehouse.NewAPIKey{OrgID: f.org.ID, Name: "k", Scopes: scopes})
		if err != nil {
			t.Fatal(err)
		}
		return k
	}
	manager := mk(gatehouse.ScopeKeysWrite)
	other := mk(gatehouse.ScopeKeysWrite, gatehouse.ScopeEventsRead)
	server := mk(gatehouse.ScopeGameServer, gatehouse.ScopeEventsWrite)
	ctx := gatehouse.WithActor(bg, gatehouse.Actor{Type: gatehouse.ActorKey, ID: manager.ID, Label: manager.Prefix, Scopes: manager.Scopes})
	fast := &gatehouse.Rate{Count: 1000, Per: time.Second}
	for _, k := range []gatehouse.APIKey{manager, other} {
		if _, err := f.svc.SetAPIKeyRate(ctx, f.org.ID, k.ID, fast); !errors.Is(err, gatehouse.ErrKeyNotChangeable) || !errors.Is(err, gatehouse.ErrForbidden) {
			t.Errorf("a key changed the rate of %s: %v, want ErrKeyNotChangeable", gatehouse.JoinScopes(k.Scopes), err)
		}
		if got, _ := f.svc.FindAPIKey(bg, f.org.ID, k.ID); got.RateLimit != nil {
			t.Errorf("the refused change went through: %v", got.RateLimit)
		}
	}
	got, err := f.svc.SetAPIKeyRate(ctx, f.org.ID, server.ID, fast)
	if err != nil || got.RateLimit == nil || *got.RateLimit != *fast {
		t.Fatalf("a key manager sets a game server key's rate: %v, %v", got.RateLimit, err)
	}
	page, _ := f.svc.ListAuditLog(bg, f.org.ID, gatehouse.AuditFilter{Action: gatehouse.AuditAPIKeyRateChanged, Limit: 10})
	if len(page.Entries) != 1 || page.Entries[0].Actor.Type != gatehouse.ActorKey || page.Entries[0].Actor.Label != manager.Prefix {
		t.Errorf("the change is recorded as %+v, want one entry by the key", page.Entries)
	}
	// A dashboard admin and the operator may change any key.
	admin := gatehouse.WithActor(bg, gatehouse.Actor{Type: gatehouse.ActorUser, OrgID: f.org.ID, Role: gatehouse.RoleAdmin})
	for _, c := range []context.Context{admin, bg} {
		if _, err := f.svc.SetAPIKeyRate(c, f.org.ID, manager.ID, fast); err != nil {
			t.Errorf("%s changes a key manager's rate: %v", gatehouse.ActorFrom(c).Type, err)
		}
	}
}

// TestServiceCountsKeysExpiringSoon: the operator's count is the active
// keys of every organization that expire within ExpiryWarning.
func TestServiceCountsKeysExpiringSoon(t *testing.T) {
	f := newService(t, nil)
	ctx := context.Background()
	day := 24 * time.Hour
	for _, c := range []struct {
		org      gatehouse.Organization
		lifetime time.Duration
	}{{f.org, 3 * day}, {f.other, 14 * day}, {f.org, 15 * day}, {f.org, 0}} {
		if _, _, err := f.svc.CreateAPIKey(ctx, gatehouse.NewAPIKey{OrgID: c.org.ID, Name: "k",
			Scopes: []gatehouse.Scope{gatehouse.ScopeEventsRead}, Lifetime: c.lifetime}); err != nil {
			t.Fatal(err)
		}
	}
	n, err := f.svc.APIKeysExpiring(ctx)
	if err != nil || n != 2 {
		t.Fatalf("APIKeysExpiring = %d, %v; want 2 (in 3 and 14 days; not in 15 days, nor never)", n, err)
	} // An organization's own count, for its dashboard, is its keys only.
	if n, err := f.svc.ExpiringAPIKeys(ctx, f.org.ID); err != nil || n != 1 {
		t.Errorf("ExpiringAPIKeys(org) = %d, %v; want 1 (in 3 days)", n, err)
	}
}
