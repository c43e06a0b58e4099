package service_test

import (
	"context"
	"errors"
	"net/url"
	"slices"
	"testing"

	"github.com/gatehouse/gatehouse"
)

// TestArchiveIsBookkeeping: an archived access point (or one of an
// archived location) still decides by its policy, recorded decisions
// included, and stays in its universe's policy set; a running lockdown
// of an archived location is still released. What it refuses are new
// writes that name it, each with a StateError: a rename, a move (to or
// from), a new access point, a universe, a lockdown. The live view and
// the menus leave it out; the names of insights and imports keep it.
func TestArchiveIsBookkeeping(t *testing.T) {
	f := newUnlock(t)
	ctx := context.Background()
	open := gatehouse.Policy{Mode: gatehouse.ModeOpen}
	_, err := f.svc.SetPolicy(ctx, f.org.ID, f.door.ID, open, nil)
	must(t, err)
	locs, err := f.svc.AllLocations(ctx, f.org.ID, false)
	must(t, err)
	hq := locs[0]
	annex, err := f.svc.CreateLocation(ctx, f.org.ID, "Annex")
	must(t, err)
	lockdown, err := f.svc.StartLockdown(f.operator, f.org.ID, gatehouse.LockdownRequest{Scope: gatehouse.LockdownLocation,
		LocationID: &hq.ID, Reason: "Drill"})
	must(t, err)

	if _, err := f.svc.ArchiveAccessPoint(ctx, f.org.ID, f.door.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := f.svc.ArchiveLocation(ctx, f.org.ID, hq.ID); err != nil {
		t.Fatal(err)
	}
	_, err = f.svc.ReleaseLockdown(f.operator, f.org.ID, lockdown.ID)
	must(t, err)
	res, err := f.svc.Decide(f.key, f.org.ID, gatehouse.DecisionRequest{AccessPointID: f.door.ID, Record: true,
		DecisionInput: gatehouse.DecisionInput{PlatformUserID: "7", ServerJobID: "job-1"}})
	if err != nil || res.Allowed != gatehouse.Granted || res.EventID == nil {
		t.Errorf("a recorded decision of the archived access point: %+v, %v", res, err)
	}
	set, err := f.svc.PolicySet(f.key, f.org.ID, "42")
	must(t, err)
	if !slices.ContainsFunc(set.AccessPoints, func(p gatehouse.AccessPointPolicy) bool { return p.AccessPoint.ID == f.door.ID }) {
		t.Errorf("the policy set lost the archived access point: %+v", set.AccessPoints)
	}
	live, err := f.svc.LocationLive(ctx, f.org.ID, hq.ID)
	if err != nil || len(live.AccessPoints) != 0 {
		t.Errorf("the live view of the archived location: %+v, %v", live.AccessPoints, err)
	}

	refused := func(what string, err error) {
		t.Helper()
		var se *gatehouse.StateError
		if !errors.As(err, &se) || !errors.Is(err, gatehouse.ErrConflict) {
			t.Errorf("%s: %v, want a StateError", what, err)
		}
	}
	_, err = f.svc.RenameLocation(ctx, f.org.ID, hq.ID, "Head office")
	refused("rename the archived location", err)
	_, err = f.svc.SetLocationUniverse(ctx, f.org.ID, hq.ID, "43")
	refused("set the universe of the archived location", err)
	_, err = f.svc.CreateAccessPoint(ctx, f.org.ID, hq.ID, "Back door")
	refused("an access point in the archived location", err)
	_, err = f.svc.RenameAccessPoint(ctx, f.org.ID, f.door.ID, "Main door")
	refused("rename the archived access point", err)
	_, err = f.svc.MoveAccessPoint(ctx, f.org.ID, f.door.ID, annex.ID)
	refused("move the archived access point", err)
	_, err = f.svc.StartLockdown(f.operator, f.org.ID, gatehouse.LockdownRequest{Scope: gatehouse.LockdownLocation, LocationID: &hq.ID, Reason: "Drill"})
	refused("lock the archived location down", err)
	_, _, err = f.svc.IssueCommand(f.operator, f.org.ID, f.universe(), "")
	refused("unlock the archived access point", err)
	side, err := f.svc.CreateAccessPoint(ctx, f.org.ID, annex.ID, "Side door")
	must(t, err)
	_, err = f.svc.MoveAccessPoint(ctx, f.org.ID, side.ID, hq.ID)
	refused("move an access point into the archived location", err)
	if _, err := f.svc.MoveAccessPoint(ctx, f.org.ID, side.ID, gatehouse.NewID()); !errors.Is(err, gatehouse.ErrNotFound) {
		t.Errorf("move to an unknown location: %v", err)
	}

	if menus, err := f.svc.AllLocations(ctx, f.org.ID, false); err != nil || len(menus) != 1 || menus[0].Name != "Annex" {
		t.Errorf("the menus: %+v, %v", menus, err)
	}
	q, err := gatehouse.ParseInsightQuery(url.Values{"groupBy": {"accessPointId"}}, f.now, "")
	must(t, err)
	counts, _, err := f.svc.Insights(ctx, f.org.ID, q, 10)
	if err != nil || len(counts) != 1 || counts[0].Label == nil || *counts[0].Label != "Front door" {
		t.Errorf("insights of the archived access point: %+v, %v", counts, err)
	}
}
