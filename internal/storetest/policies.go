package storetest

import (
	"bytes"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/gatehouse/gatehouse"
	"github.com/google/uuid"
)

// policy is a checked policy (as the service hands it to the store) that
// allows platform user who during office hours in Berlin.
func policy(t *testing.T, who string) gatehouse.Policy {
	t.Helper()
	p, err := gatehouse.Policy{Mode: gatehouse.ModeRules,
		Schedule: &gatehouse.Schedule{TimeZone: "Europe/Berlin",
			Windows:    []gatehouse.Window{{Days: []string{"MON", "TUE"}, From: "09:00", To: "17:30"}, {Days: []string{"SAT"}, From: "22:00", To: "02:00"}},
			Exceptions: []gatehouse.Exception{{Date: "2026-12-25", Closed: true}}},
		Allow: []gatehouse.AllowRule{{PlatformUserID: who}, {GroupID: "456", MinRank: ptr(200)}},
		Deny:  []gatehouse.DenyRule{{PlatformUserID: "666", Until: ptr(gatehouse.Time(time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)))}},
	}.Check()
	must(t, err)
	return p
}

func policyEntry() gatehouse.AuditEntry { return gatehouse.SystemEntry(gatehouse.AuditPolicyChanged) }

// put stores p as the policy of the organization's access point now and
// fails the test on any error.
func (f *fixture) put(org, ap uuid.UUID, p gatehouse.Policy, ifVersion *int64) gatehouse.Policy {
	f.t.Helper()
	got, err := f.s.PutPolicy(ctx, policyEntry(), org, ap, p, ifVersion, f.now)
	must(f.t, err)
	return got
}

// wantPolicy checks got has want's rules, version and time.
func wantPolicy(t *testing.T, what string, got *gatehouse.Policy, want gatehouse.Policy, version int64, at time.Time) {
	t.Helper()
	if got == nil {
		t.Fatalf("%s: no policy, want version %d", what, version)
	}
	if !bytes.Equal(gatehouse.PolicyBody(*got), gatehouse.PolicyBody(want)) {
		t.Errorf("%s: rules %s, want %s", what, gatehouse.PolicyBody(*got), gatehouse.PolicyBody(want))
	}
	if got.Version != version || got.UpdatedAt == nil || !time.Time(*got.UpdatedAt).Equal(at) {
		t.Errorf("%s: version %d at %v, want %d at %v", what, got.Version, got.UpdatedAt, version, at)
	}
}

// testPolicyVersions: each change makes the next version with its time
// and one audit entry naming the access point and the versions; storing
// the current rules again changes and records nothing; ifVersion guards a
// change (0: none yet) and a stale one is ErrConflict that changes
// nothing.
func testPolicyVersions(t *testing.T, f *fixture) {
	a := f.org("Acme")
	door := f.accessPoint(a.ID, f.location(a.ID, "HQ").ID, "Door")
	if p, err := f.s.FindPolicy(ctx, a.ID, door.ID); err != nil || p != nil {
		t.Fatalf("FindPolicy of a new access point = %+v, %v; want none", p, err)
	}
	first := f.now
	p1, p2, p3 := policy(t, "1"), policy(t, "2"), policy(t, "3")
	wantPolicy(t, "first put", ptr(f.put(a.ID, door.ID, p1, ptr(int64(0)))), p1, 1, first)

	f.now = f.now.Add(time.Minute)
	wantPolicy(t, "unchanged put", ptr(f.put(a.ID, door.ID, p1, nil)), p1, 1, first)
	wantPolicy(t, "unchanged put with its version", ptr(f.put(a.ID, door.ID, p1, ptr(int64(1)))), p1, 1, first)
	if log := f.log(a.ID, gatehouse.AuditFilter{Action: gatehouse.AuditPolicyChanged}); len(log) != 1 {
		t.Errorf("%d policy.changed entries after an unchanged put, want 1", len(log))
	}

	for _, stale := range []int64{0, 2} {
		_, err := f.s.PutPolicy(ctx, policyEntry(), a.ID, door.ID, p2, &stale, f.now)
		wantErr(t, fmt.Sprintf("put with ifVersion %d at version 1", stale), err, gatehouse.ErrConflict)
	}
	_, err := f.s.PutPolicy(ctx, policyEntry(), a.ID, door.ID, p1, ptr(int64(0)), f.now)
	wantErr(t, "unchanged rules with a stale ifVersion", err, gatehouse.ErrConflict)
	got, err := f.s.FindPolicy(ctx, a.ID, door.ID)
	must(t, err)
	wantPolicy(t, "after conflicts", got, p1, 1, first)

	second := f.now
	wantPolicy(t, "second put", ptr(f.put(a.ID, door.ID, p2, ptr(int64(1)))), p2, 2, second)
	f.now = f.now.Add(time.Second)
	wantPolicy(t, "third put", ptr(f.put(a.ID, door.ID, p3, nil)), p3, 3, f.now)
	got, err = f.s.FindPolicy(ctx, a.ID, door.ID)
	must(t, err)
	wantPolicy(t, "FindPolicy", got, p3, 3, f.now)
	// Going back to older rules is a change like any other.
	f.now = f.now.Add(time.Second)
	wantPolicy(t, "back to the first rules", ptr(f.put(a.ID, door.ID, p1, ptr(int64(3)))), p1, 4, f.now)

	// The version in force at an instant: none before the first.
	if p, err := f.s.FindPolicyAt(ctx, a.ID, door.ID, first.Add(-time.Millisecond)); err != nil || p != nil {
		t.Errorf("FindPolicyAt before the first version = %+v, %v; want none", p, err)
	}
	for _, at := range []struct {
		at      time.Time
		version int64
		rules   gatehouse.Policy
		from    time.Time
	}{
		{first, 1, p1, first}, {second.Add(-time.Millisecond), 1, p1, first}, {second, 2, p2, second}, {f.now.Add(time.Hour), 4, p1, f.now},
	} {
		got, err := f.s.FindPolicyAt(ctx, a.ID, door.ID, at.at)
		must(t, err)
		wantPolicy(t, fmt.Sprintf("FindPolicyAt %s", at.at), got, at.rules, at.version, at.from)
	}

	log := f.log(a.ID, gatehouse.AuditFilter{Action: gatehouse.AuditPolicyChanged})
	if len(log) != 4 {
		t.Fatalf("%d policy.changed entries, want 4: %+v", len(log), log)
	}
	for i, want := range []gatehouse.AuditChange{{From: "3", To: "4"}, {From: "2", To: "3"}, {From: "1", To: "2"}, {To: "1"}} {
		e := log[i]
		if e.Target != (gatehouse.AuditTarget{Type: gatehouse.TargetAccessPoint, ID: door.ID, Name: "Door"}) ||
			len(e.Changes) != 1 || e.Changes["version"] != want {
			t.Errorf("entry %d = %+v, want version %+v", i, e, want)
		}
	}
	if got := f.log(a.ID, gatehouse.AuditFilter{TargetID: &door.ID}); len(got) != 5 { // created + 4 changes
		t.Errorf("%d entries for the access point, want 5", len(got))
	}
}

// testPolicyTenant: every policy method answers ErrNotFound for another
// organization's access point (and an unknown one) and changes nothing;
// a universe's set holds the organization's access points only.
func testPolicyTenant(t *testing.T, f *fixture) {
	a, b := f.org("Acme"), f.org("Beta")
	hq := f.location(a.ID, "HQ")
	_, err := f.s.SetLocationUniverse(ctx, gatehouse.SystemEntry(gatehouse.AuditLocationUniverseSet), a.ID, hq.ID, "42")
	must(t, err)
	door := f.accessPoint(a.ID, hq.ID, "Door")
	p := policy(t, "1")
	f.put(a.ID, door.ID, p, nil)

	for _, id := range []uuid.UUID{door.ID, gatehouse.NewID(), hq.ID} {
		_, err := f.s.PutPolicy(ctx, policyEntry(), b.ID, id, policy(t, "2"), nil, f.now)
		wantErr(t, "PutPolicy of another organization's access point", err, gatehouse.ErrNotFound)
		_, err = f.s.FindPolicy(ctx, b.ID, id)
		wantErr(t, "FindPolicy of another organization's access point", err, gatehouse.ErrNotFound)
		_, err = f.s.FindPolicyAt(ctx, b.ID, id, f.now)
		wantErr(t, "FindPolicyAt of another organization's access point", err, gatehouse.ErrNotFound)
		_, err = f.s.FindDecisionContext(ctx, b.ID, id, f.now)
		wantErr(t, "FindDecisionContext of another organization's access point", err, gatehouse.ErrNotFound)
	}
	for _, id := range []uuid.UUID{gatehouse.NewID(), hq.ID} {
		_, err := f.s.PutPolicy(ctx, policyEntry(), a.ID, id, p, nil, f.now)
		wantErr(t, "PutPolicy of an unknown access point", err, gatehouse.ErrNotFound)
		_, err = f.s.FindPolicy(ctx, a.ID, id)
		wantErr(t, "FindPolicy of an unknown access point", err, gatehouse.ErrNotFound)
		_, err = f.s.FindPolicyAt(ctx, a.ID, id, f.now)
		wantErr(t, "FindPolicyAt of an unknown access point", err, gatehouse.ErrNotFound)
		_, err = f.s.FindDecisionContext(ctx, a.ID, id, f.now)
		wantErr(t, "FindDecisionContext of an unknown access point", err, gatehouse.ErrNotFound)
	}
	if set, err := f.s.PolicySet(ctx, b.ID, "42"); err != nil || len(set) != 0 {
		t.Errorf("another organization's set of universe 42 = %+v, %v; want none", set, err)
	}
	got, err := f.s.FindPolicy(ctx, a.ID, door.ID)
	must(t, err)
	wantPolicy(t, "after another organization's put", got, p, 1, f.now)
	if n := len(f.log(b.ID, gatehouse.AuditFilter{Action: gatehouse.AuditPolicyChanged})); n != 0 {
		t.Errorf("the other organization's log has %d policy entries", n)
	}
}

// testConcurrentPolicyPuts: changes of one access point at once all
// succeed, each with a version of its own.
func testConcurrentPolicyPuts(t *testing.T, f *fixture) {
	a := f.org("Acme")
	door := f.accessPoint(a.ID, f.location(a.ID, "HQ").ID, "Door")
	const n = 8
	versions := make([]int64, n)
	errs := make([]error, n)
	bodies := make([]gatehouse.Policy, n)
	for i := range bodies {
		bodies[i] = policy(t, fmt.Sprint(i+1))
	}
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			got, err := f.s.PutPolicy(ctx, policyEntry(), a.ID, door.ID, bodies[i], nil, f.now)
			versions[i], errs[i] = got.Version, err
		})
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Errorf("put %d: %v", i, err)
		}
	}
	slices.Sort(versions)
	if want := []int64{1, 2, 3, 4, 5, 6, 7, 8}; !slices.Equal(versions, want) {
		t.Errorf("versions %v, want %v", versions, want)
	}
	got, err := f.s.FindPolicy(ctx, a.ID, door.ID)
	if err != nil || got == nil || got.Version != n {
		t.Errorf("FindPolicy = %+v, %v; want version %d", got, err, n)
	}
	if log := f.log(a.ID, gatehouse.AuditFilter{Action: gatehouse.AuditPolicyChanged}); len(log) != n {
		t.Errorf("%d policy.changed entries, want %d", len(log), n)
	}
}
