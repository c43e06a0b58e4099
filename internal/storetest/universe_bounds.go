package storetest

import (
	"fmt"
	"testing"

	"github.com/gatehouse/gatehouse"
)

// bigPolicy is a checked policy of a thousand allow and deny rules:
// about 100 KB stored.
func bigPolicy(t *testing.T, salt int) gatehouse.Policy {
	t.Helper()
	p := gatehouse.Policy{Mode: gatehouse.ModeRules}
	for i := range gatehouse.MaxPolicyAllowRules {
		p.Allow = append(p.Allow, gatehouse.AllowRule{PlatformUserID: fmt.Sprintf("%d%09d", salt+100, i)})
	}
	for i := range gatehouse.MaxPolicyDenyRules {
		p.Deny = append(p.Deny, gatehouse.DenyRule{PlatformUserID: fmt.Sprintf("%d%09d", salt+100, i)})
	}
	p, err := p.Check()
	must(t, err)
	return p
}

// testUniverseBounds: a change that would put more than
// MaxUniversePolicyBytes of policies in one universe is
// ErrUniverseTooLarge and changes nothing, whether a policy grows, an
// access point with a policy moves in, or a location holding one joins;
// a policy that shrinks, and changes outside any universe, pass. More
// than MaxUniverseAccessPoints access points is ErrUniverseFull, created
// or moved in.
func testUniverseBounds(t *testing.T, f *fixture) {
	a := f.org("Acme")
	hq, shed := f.location(a.ID, "HQ"), f.location(a.ID, "Shed")
	_, err := f.s.SetLocationUniverse(ctx, gatehouse.SystemEntry(gatehouse.AuditLocationUniverseSet), a.ID, hq.ID, "42")
	must(t, err)
	size := len(gatehouse.PolicyBody(bigPolicy(t, 0)))
	fits := gatehouse.MaxUniversePolicyBytes / size
	doors := make([]gatehouse.AccessPoint, fits)
	for i := range fits {
		doors[i] = f.accessPoint(a.ID, hq.ID, fmt.Sprintf("Door %d", i))
		f.put(a.ID, doors[i].ID, bigPolicy(t, i), nil)
	}
	one := f.accessPoint(a.ID, hq.ID, "One too many")
	_, err = f.s.PutPolicy(ctx, policyEntry(), a.ID, one.ID, bigPolicy(t, fits), nil, f.now)
	wantErr(t, fmt.Sprintf("policy %d of %d bytes", fits+1, size), err, gatehouse.ErrUniverseTooLarge)
	if p, err := f.s.FindPolicy(ctx, a.ID, one.ID); err != nil || p != nil {
		t.Errorf("the refused policy was stored: %+v, %v", p, err)
	}

	outside := f.accessPoint(a.ID, shed.ID, "Outside")
	f.put(a.ID, outside.ID, bigPolicy(t, fits+1), nil) // no universe: no bound
	_, err = f.s.MoveAccessPoint(ctx, gatehouse.SystemEntry(gatehouse.AuditAccessPointMoved), a.ID, outside.ID, hq.ID)
	wantErr(t, "moving a large policy into the universe", err, gatehouse.ErrUniverseTooLarge)
	_, err = f.s.SetLocationUniverse(ctx, gatehouse.SystemEntry(gatehouse.AuditLocationUniverseSet), a.ID, shed.ID, "42")
	wantErr(t, "a location holding a large policy joining the universe", err, gatehouse.ErrUniverseTooLarge)
	if set, err := f.s.PolicySetMembers(ctx, a.ID, "42"); err != nil || len(set) != fits+1 {
		t.Errorf("universe 42 after the refusals: %d members, %v; want %d", len(set), err, fits+1)
	}
	f.put(a.ID, doors[0].ID, policy(t, "1"), nil) // shrinking passes
	f.put(a.ID, doors[1].ID, policy(t, "1"), nil)
	f.put(a.ID, one.ID, bigPolicy(t, fits), nil)

	club := f.location(a.ID, "Club")
	_, err = f.s.SetLocationUniverse(ctx, gatehouse.SystemEntry(gatehouse.AuditLocationUniverseSet), a.ID, club.ID, "7")
	must(t, err)
	for i := range gatehouse.MaxUniverseAccessPoints {
		f.accessPoint(a.ID, club.ID, fmt.Sprintf("Gate %d", i))
	}
	_, err = f.s.CreateAccessPoint(ctx, gatehouse.SystemEntry(gatehouse.AuditAccessPointCreated), a.ID, club.ID, "Gate too many")
	wantErr(t, "access point 1001", err, gatehouse.ErrUniverseFull)
	spare := f.accessPoint(a.ID, shed.ID, "Spare")
	_, err = f.s.MoveAccessPoint(ctx, gatehouse.SystemEntry(gatehouse.AuditAccessPointMoved), a.ID, spare.ID, club.ID)
	wantErr(t, "moving access point 1001 in", err, gatehouse.ErrUniverseFull)
	if set, err := f.s.PolicySetMembers(ctx, a.ID, "7"); err != nil || len(set) != gatehouse.MaxUniverseAccessPoints {
		t.Errorf("universe 7: %d members, %v", len(set), err)
	}
}
