package storetest

import (
	"testing"
	"time"

	"github.com/gatehouse/gatehouse"
	"github.com/google/uuid"
)

// Corrupter overwrites, behind the store's back, the stored body of the
// access point's current policy: what an older version that accepted a
// year past 9999, or a hand edit of the database, leaves behind.
type Corrupter func(t *testing.T, s gatehouse.Store, accessPointID uuid.UUID, body string)

// unreadableBody is a policy whose deny rule ends in year 10000, which
// Time cannot read back.
const unreadableBody = `{"mode":"RULES","schedule":null,"allow":[],"deny":[{"platformUserId":"1","until":"10000-01-01T23:58:59.000Z"}],"failMode":"CLOSED"}`

// RunUnreadablePolicy checks that a stored policy that cannot be decoded
// hurts only its own access point: reading it or deciding by it is
// ErrUnreadable, the universe's set skips it and says so (Unreadable,
// with its version) while the other access points of the set, and their
// decisions, are served, and PutPolicy replaces it, ifVersion included.
func RunUnreadablePolicy(t *testing.T, open Opener, corrupt Corrupter) {
	s, clock := open(t)
	f := &fixture{t: t, s: s, now: time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)}
	*clock = func() time.Time { return f.now }
	a := f.org("Acme")
	hq := f.location(a.ID, "HQ")
	_, err := s.SetLocationUniverse(ctx, gatehouse.SystemEntry(gatehouse.AuditLocationUniverseSet), a.ID, hq.ID, "42")
	must(t, err)
	good, bad := f.accessPoint(a.ID, hq.ID, "Good"), f.accessPoint(a.ID, hq.ID, "Bad")
	f.put(a.ID, good.ID, policy(t, "1"), nil)
	f.put(a.ID, bad.ID, policy(t, "1"), nil)
	f.put(a.ID, bad.ID, policy(t, "2"), nil)
	corrupt(t, s, bad.ID, unreadableBody)

	_, err = s.FindPolicy(ctx, a.ID, bad.ID)
	wantErr(t, "FindPolicy of the unreadable policy", err, gatehouse.ErrUnreadable)
	_, err = s.FindDecisionContext(ctx, a.ID, bad.ID, f.now)
	wantErr(t, "FindDecisionContext of the unreadable policy", err, gatehouse.ErrUnreadable)
	if p, err := s.FindPolicy(ctx, a.ID, good.ID); err != nil || p == nil || p.Version != 1 {
		t.Errorf("FindPolicy of the other access point = %+v, %v", p, err)
	}
	if dc, err := s.FindDecisionContext(ctx, a.ID, good.ID, f.now); err != nil || dc.Policy == nil {
		t.Errorf("FindDecisionContext of the other access point = %+v, %v", dc, err)
	}
	set, err := s.PolicySet(ctx, a.ID, "42")
	must(t, err)
	if len(set) != 2 {
		t.Fatalf("set of %d access points, want 2: %+v", len(set), set)
	}
	for _, ap := range set {
		switch ap.AccessPoint.ID {
		case good.ID:
			if ap.Unreadable != nil || ap.Policy == nil || ap.Policy.Version != 1 {
				t.Errorf("readable member %+v", ap)
			}
		case bad.ID:
			if ap.Unreadable == nil || ap.Policy == nil || ap.Policy.Version != 2 || ap.AccessPoint.Name != "Bad" {
				t.Errorf("unreadable member %+v, want Unreadable with version 2", ap)
			}
		}
	}

	_, err = s.PutPolicy(ctx, policyEntry(), a.ID, bad.ID, policy(t, "3"), ptr(int64(1)), f.now)
	wantErr(t, "PutPolicy over the unreadable version 2 with ifVersion 1", err, gatehouse.ErrConflict)
	p3 := policy(t, "3")
	wantPolicy(t, "PutPolicy over the unreadable policy", ptr(f.put(a.ID, bad.ID, p3, ptr(int64(2)))), p3, 3, f.now)
	got, err := s.FindPolicy(ctx, a.ID, bad.ID)
	must(t, err)
	wantPolicy(t, "FindPolicy after the repair", got, p3, 3, f.now)
}
