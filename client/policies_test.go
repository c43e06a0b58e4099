package client_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/gatehouse/gatehouse"
	"github.com/gatehouse/gatehouse/client"
	"github.com/gatehouse/gatehouse/internal/apitest"
)

// TestPoliciesAndDecisions: an operator's program sets a door's policy
// through the client, guarded by its version; a game server caches the
// universe's policy set (a 304 while unchanged, a new version after a
// change, the same version in its sync) and asks for decisions, one of
// them recorded.
func TestPoliciesAndDecisions(t *testing.T) {
	a := apitest.Start(t, generous)
	ctx := context.Background()
	ops, err := client.New(a.URL, a.NewKey(t, gatehouse.ScopePoliciesWrite), client.WithHTTPClient(a.Client))
	must(t, err)
	server, err := client.New(a.URL, a.NewKey(t, gatehouse.ScopeGameServer, gatehouse.ScopeEventsWrite), client.WithHTTPClient(a.Client))
	must(t, err)
	door := a.AccessPointID.String()

	if p, err := ops.Policy(ctx, door); err != nil || p != nil {
		t.Fatalf("before any policy: %+v, %v", p, err)
	}
	before, notModified, err := server.PolicySet(ctx, "42", "")
	must(t, err)
	if notModified || len(before.AccessPoints) != 1 || before.AccessPoints[0].Policy != nil {
		t.Fatalf("the set before any policy: %+v", before)
	}
	none := int64(0)
	rank := 200
	p := client.Policy{Mode: "RULES",
		Schedule: &client.Schedule{TimeZone: "Europe/Berlin", Windows: []client.Window{{Days: []string{"FRI"}, From: "09:00", To: "17:00"}}},
		Allow:    []client.AllowRule{{GroupID: "456", MinRank: &rank}},
		Deny:     []client.DenyRule{{PlatformUserID: "666"}}}
	first, err := ops.SetPolicy(ctx, door, p, &none)
	must(t, err)
	if first.Version != 1 || first.FailMode != "CLOSED" || first.UpdatedAt == nil {
		t.Fatalf("first policy: %+v", first)
	}
	var apiErr *client.Error
	if _, err := ops.SetPolicy(ctx, door, p, &none); !errors.As(err, &apiErr) || apiErr.Status != 412 || apiErr.Code != "precondition_failed" {
		t.Errorf("a second first policy: %v", err)
	}
	p.Mode = "OPEN"
	second, err := ops.SetPolicy(ctx, door, p, &first.Version)
	must(t, err)
	if _, err := ops.SetPolicy(ctx, door, p, &first.Version); !errors.As(err, &apiErr) || apiErr.Status != 412 {
		t.Errorf("a change over a stale version: %v", err)
	}
	if got, err := ops.Policy(ctx, door); err != nil || got.Version != 2 || got.Mode != "OPEN" || second.Version != 2 {
		t.Errorf("read back: %+v, %v", got, err)
	}
	bad := client.Policy{Mode: "RULES", Allow: []client.AllowRule{{}}, Schedule: &client.Schedule{TimeZone: "Nowhere"}}
	if _, err := ops.SetPolicy(ctx, door, bad, nil); !errors.As(err, &apiErr) || apiErr.Status != 400 ||
		apiErr.Issues["allow[0]"] == nil || apiErr.Issues["schedule.timeZone"] == nil {
		t.Errorf("an invalid policy: %v", err)
	}
	if _, err := ops.Policy(ctx, gatehouse.NewID().String()); !errors.As(err, &apiErr) || apiErr.Status != 404 {
		t.Errorf("an unknown access point: %v", err)
	}

	set, notModified, err := server.PolicySet(ctx, "42", before.Version)
	must(t, err)
	if notModified || set.Version == before.Version || set.AccessPoints[0].Policy.Version != 2 {
		t.Fatalf("the set after two versions: %+v", set)
	}
	if berlin := set.Zones["Europe/Berlin"]; len(berlin) < 2 || berlin[1].OffsetSeconds-berlin[0].OffsetSeconds != 3600 || berlin[0].From.IsZero() {
		t.Errorf("the set's zones: %+v", set.Zones)
	}
	if again, notModified, err := server.PolicySet(ctx, "42", set.Version); err != nil || !notModified || again != nil {
		t.Errorf("the unchanged set: %+v, %v, %v", again, notModified, err)
	}
	zero := 0
	synced, err := server.Sync(ctx, "job-1", client.SyncRequest{UniverseID: "42", Players: []string{"156"}, WaitSeconds: &zero})
	must(t, err)
	if synced.PolicyVersion != set.Version {
		t.Errorf("sync policyVersion %q, the set's %q", synced.PolicyVersion, set.Version)
	}

	granted, err := server.Decide(ctx, client.DecisionRequest{AccessPointID: door, PlatformUserID: "156", ServerJobID: "job-1", Record: true})
	must(t, err)
	if granted.Allowed != "granted" || granted.Reason != "OPEN" || granted.EventID == nil || *granted.PolicyVersion != 2 {
		t.Errorf("recorded decision: %+v", granted)
	}
	at := time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)
	blocked, err := server.Decide(ctx, client.DecisionRequest{AccessPointID: door, PlatformUserID: "666",
		Attributes: &client.PlayerAttributes{Groups: map[string]int{"456": 255}}, At: &at})
	must(t, err)
	if blocked.Allowed != "denied" || blocked.Reason != "BLOCKED" || blocked.Rule != "deny[0]" || blocked.EventID != nil || !blocked.At.Equal(at) {
		t.Errorf("explained decision: %+v", blocked)
	}
	if _, err := ops.Decide(ctx, client.DecisionRequest{AccessPointID: door, PlatformUserID: "156"}); !errors.As(err, &apiErr) || apiErr.Status != 403 {
		t.Errorf("a policies:write key decided: %v", err)
	}
}
