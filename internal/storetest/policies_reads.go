package storetest

import (
	"bytes"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/gatehouse/gatehouse"
	"github.com/google/uuid"
)

// testPolicySet: a universe's set is the organization's access points in
// the locations of that universe, ordered by id (the uuid's bytes), with
// their location and current policy or nil; it follows moves, renames and
// a location changing universe.
func testPolicySet(t *testing.T, f *fixture) {
	a, b := f.org("Acme"), f.org("Beta")
	setUniverse := func(org, loc uuid.UUID, universe string) {
		t.Helper()
		_, err := f.s.SetLocationUniverse(ctx, gatehouse.SystemEntry(gatehouse.AuditLocationUniverseSet), org, loc, universe)
		must(t, err)
	}
	hq, annex, other, none := f.location(a.ID, "HQ"), f.location(a.ID, "Annex"), f.location(a.ID, "Other"), f.location(a.ID, "Nowhere")
	setUniverse(a.ID, hq.ID, "42")
	setUniverse(a.ID, annex.ID, "42")
	setUniverse(a.ID, other.ID, "7")
	beta := f.location(b.ID, "Beta HQ")
	setUniverse(b.ID, beta.ID, "42")
	f.accessPoint(b.ID, beta.ID, "Beta door")

	policies := map[uuid.UUID]gatehouse.Policy{}
	type member struct {
		ap  gatehouse.AccessPoint
		loc gatehouse.Location
	}
	var in42 []member
	for i := range 6 {
		loc := hq
		if i%2 == 1 {
			loc = annex
		}
		ap := f.accessPoint(a.ID, loc.ID, fmt.Sprintf("Door %d", i))
		in42 = append(in42, member{ap, loc})
		if i%3 != 2 {
			policies[ap.ID] = f.put(a.ID, ap.ID, policy(t, fmt.Sprint(i+1)), nil)
		}
	}
	gate := f.accessPoint(a.ID, other.ID, "Gate")
	policies[gate.ID] = f.put(a.ID, gate.ID, policy(t, "100"), nil)
	f.accessPoint(a.ID, none.ID, "Shed")

	check := func(what, universe string, members []member) {
		t.Helper()
		set, err := f.s.PolicySet(ctx, a.ID, universe)
		must(t, err)
		want := slices.Clone(members)
		slices.SortFunc(want, func(x, y member) int { return bytes.Compare(x.ap.ID[:], y.ap.ID[:]) })
		if len(set) != len(want) {
			t.Fatalf("%s: %d access points, want %d: %+v", what, len(set), len(want), set)
		}
		for i, m := range want {
			got := set[i]
			if got.AccessPoint != (gatehouse.NamedRef{ID: m.ap.ID, Name: m.ap.Name}) || got.Location != (gatehouse.NamedRef{ID: m.loc.ID, Name: m.loc.Name}) {
				t.Errorf("%s: [%d] = %+v %+v, want %s in %s", what, i, got.AccessPoint, got.Location, m.ap.Name, m.loc.Name)
			}
			if p, ok := policies[m.ap.ID]; !ok {
				if got.Policy != nil {
					t.Errorf("%s: %s has policy %+v, want none", what, m.ap.Name, got.Policy)
				}
			} else {
				wantPolicy(t, what+": "+m.ap.Name, got.Policy, p, p.Version, time.Time(*p.UpdatedAt))
			}
		}
		// The members are the set without the bodies, in the same order.
		got, err := f.s.PolicySetMembers(ctx, a.ID, universe)
		must(t, err)
		if len(got) != len(set) {
			t.Fatalf("%s: %d members, set of %d", what, len(got), len(set))
		}
		for i, ap := range set {
			want := gatehouse.PolicySetMember{AccessPoint: ap.AccessPoint, Location: ap.Location}
			if ap.Policy != nil {
				want.PolicyVersion = ap.Policy.Version
			}
			if got[i] != want {
				t.Errorf("%s: member [%d] = %+v, want %+v", what, i, got[i], want)
			}
		}
	}
	check("universe 42", "42", in42)
	check("universe 7", "7", []member{{gate, other}})
	check("a universe without locations", "99", nil)

	// The gate moves to HQ, one door is renamed and gets a new version.
	moved, err := f.s.MoveAccessPoint(ctx, gatehouse.SystemEntry(gatehouse.AuditAccessPointMoved), a.ID, gate.ID, hq.ID)
	must(t, err)
	renamed, err := f.s.RenameAccessPoint(ctx, gatehouse.SystemEntry(gatehouse.AuditAccessPointRenamed), a.ID, in42[0].ap.ID, "Main door")
	must(t, err)
	in42[0].ap = renamed
	f.now = f.now.Add(time.Second)
	policies[renamed.ID] = f.put(a.ID, renamed.ID, policy(t, "200"), nil)
	in42 = append(in42, member{moved, hq})
	check("universe 42 after a move and a rename", "42", in42)
	check("universe 7 after the move", "7", nil)

	// The annex joins universe 7: its access points go with it.
	setUniverse(a.ID, annex.ID, "7")
	var stay, went []member
	for _, m := range in42 {
		if m.loc.ID == annex.ID {
			went = append(went, m)
		} else {
			stay = append(stay, m)
		}
	}
	check("universe 42 without the annex", "42", stay)
	check("universe 7 with the annex", "7", went)
}

// testDecisionContext: one read gives the access point's and location's
// names, the location's universe, the current policy and exactly the
// unlocks of that access point active now: PENDING and unexpired,
// DELIVERED or EXECUTED and still running; not CANCELLED, EXPIRED or
// FAILED ones, not one whose unlock ended or whose wait ran out
// unclaimed, not another access point's.
func testDecisionContext(t *testing.T, f *fixture) {
	p := f.unlockPlace("acme")
	back := f.accessPoint(p.org.ID, p.loc.ID, "Back door")
	start := f.now
	f.heartbeat(p.org.ID, "s1")
	f.heartbeat(p.org.ID, "s2")

	// Five minutes ago: an unlock that ran and ended, one whose wait
	// expired (swept), and one whose wait ran out unswept.
	ended := f.create(f.command(p, gatehouse.ScopeServer, "s1"))
	f.take(p.org.ID, "s1", 0)
	f.ack(p.org.ID, "s1", gatehouse.Ack{CommandID: ended.ID, Result: gatehouse.AckExecuted})
	f.create(f.command(p, gatehouse.ScopeServer, "s9"))
	f.now = start.Add(2 * time.Minute)
	if _, err := f.s.SweepCommands(ctx, f.now); err != nil {
		t.Fatal(err)
	}
	f.create(f.command(p, gatehouse.ScopeServer, "s9")) // expires at start+3m, never swept

	now := start.Add(5 * time.Minute)
	f.now = now.Add(-10 * time.Second)
	f.heartbeat(p.org.ID, "s1")
	delivered := f.create(f.command(p, gatehouse.ScopeServer, "s1"))
	f.take(p.org.ID, "s1", 0)
	f.now = now.Add(-5 * time.Second)
	f.heartbeat(p.org.ID, "s2")
	executed := f.create(f.command(p, gatehouse.ScopePlayer, "s2"))
	f.take(p.org.ID, "s2", 0)
	f.ack(p.org.ID, "s2", gatehouse.Ack{CommandID: executed.ID, Result: gatehouse.AckExecuted})
	f.now = now
	f.create(f.command(p, gatehouse.ScopeUniverse, "s9")) // pending
	cancelled := f.create(f.command(p, gatehouse.ScopeUniverse, "s9"))
	if _, err := f.s.CancelCommand(ctx, cancelledEntry(), p.org.ID, cancelled.ID, now); err != nil {
		t.Fatal(err)
	}
	f.create(f.command(p, gatehouse.ScopePlayer)) // FAILED at issue
	atBack := f.command(p, gatehouse.ScopeServer, "s9")
	atBack.AccessPoint = gatehouse.NamedRef{ID: back.ID, Name: back.Name}
	f.create(atBack)
	for id, want := range map[uuid.UUID]gatehouse.CommandStatus{ended.ID: gatehouse.CommandExecuted, delivered.ID: gatehouse.CommandDelivered,
		executed.ID: gatehouse.CommandExecuted, cancelled.ID: gatehouse.CommandCancelled} {
		if got := f.find(p.org.ID, id); got.Status != want {
			t.Fatalf("command %s is %s, want %s", id, got.Status, want)
		}
	}
	expired := f.listCommands(p.org.ID, gatehouse.CommandFilter{Status: ptr(gatehouse.CommandExpired)}, 10)
	if len(expired) != 1 {
		t.Fatalf("%d EXPIRED commands, want 1", len(expired))
	}

	pol := f.put(p.org.ID, p.door.ID, policy(t, "1"), nil)
	dc, err := f.s.FindDecisionContext(ctx, p.org.ID, p.door.ID, now)
	must(t, err)
	if dc.AccessPoint != (gatehouse.NamedRef{ID: p.door.ID, Name: "Front door"}) || dc.Location != (gatehouse.NamedRef{ID: p.loc.ID, Name: "HQ"}) ||
		dc.UniverseID != universe {
		t.Errorf("context = %+v %+v universe %q", dc.AccessPoint, dc.Location, dc.UniverseID)
	}
	wantPolicy(t, "context", dc.Policy, pol, 1, now)
	wantUnlocks(t, "front door", dc.Unlocks,
		gatehouse.ActiveUnlock{Scope: gatehouse.ScopeUniverse, Until: gatehouse.Time(now.Add(30 * time.Second))},
		gatehouse.ActiveUnlock{Scope: gatehouse.ScopeServer, ServerJobID: "s1", Until: gatehouse.Time(now.Add(20 * time.Second))},
		gatehouse.ActiveUnlock{Scope: gatehouse.ScopePlayer, PlatformUserID: "7", Until: gatehouse.Time(now.Add(25 * time.Second))})

	// Later the unlocks that ran end; the pending one still waits.
	dc, err = f.s.FindDecisionContext(ctx, p.org.ID, p.door.ID, now.Add(26*time.Second))
	must(t, err)
	wantUnlocks(t, "front door 26 s later", dc.Unlocks,
		gatehouse.ActiveUnlock{Scope: gatehouse.ScopeUniverse, Until: gatehouse.Time(now.Add(56 * time.Second))})

	dc, err = f.s.FindDecisionContext(ctx, p.org.ID, back.ID, now)
	must(t, err)
	if dc.AccessPoint != (gatehouse.NamedRef{ID: back.ID, Name: "Back door"}) || dc.Policy != nil {
		t.Errorf("back door context = %+v, policy %+v; want no policy", dc.AccessPoint, dc.Policy)
	}
	wantUnlocks(t, "back door", dc.Unlocks,
		gatehouse.ActiveUnlock{Scope: gatehouse.ScopeServer, ServerJobID: "s9", Until: gatehouse.Time(now.Add(30 * time.Second))})

	// A location without a universe.
	shed := f.accessPoint(p.org.ID, f.location(p.org.ID, "Yard").ID, "Shed")
	dc, err = f.s.FindDecisionContext(ctx, p.org.ID, shed.ID, now)
	must(t, err)
	if dc.UniverseID != "" || dc.Location.Name != "Yard" || dc.Policy != nil || len(dc.Unlocks) != 0 {
		t.Errorf("shed context = %+v", dc)
	}
}

// wantUnlocks compares unlocks in any order.
func wantUnlocks(t *testing.T, what string, got []gatehouse.ActiveUnlock, want ...gatehouse.ActiveUnlock) {
	t.Helper()
	key := func(u gatehouse.ActiveUnlock) string {
		return fmt.Sprintf("%s/%s/%s/%d", u.Scope, u.ServerJobID, u.PlatformUserID, time.Time(u.Until).UnixMilli())
	}
	keys := func(us []gatehouse.ActiveUnlock) []string {
		out := make([]string, len(us))
		for i, u := range us {
			out[i] = key(u)
		}
		slices.Sort(out)
		return out
	}
	if g, w := keys(got), keys(want); !slices.Equal(g, w) {
		t.Errorf("%s: unlocks %v, want %v", what, g, w)
	}
}
