package storetest

import (
	"testing"

	"github.com/gatehouse/gatehouse"
)

// testLocationUniverse: a location's universe is set, read back by every
// read of locations, changed and cleared, each change recorded once with
// the value before and after; an unchanged one records nothing; another
// organization's location is ErrNotFound. NamesUniverse follows the
// organization's own locations only. FindAccessPoint reads an access
// point of the organization only.
func testLocationUniverse(t *testing.T, f *fixture) {
	a, b := f.org("Acme"), f.org("Beta")
	hq := f.location(a.ID, "HQ")
	if hq.UniverseID != nil {
		t.Errorf("a new location names universe %q", *hq.UniverseID)
	}
	door := f.accessPoint(a.ID, hq.ID, "Door")
	set := gatehouse.SystemEntry(gatehouse.AuditLocationUniverseSet)

	names := func(org gatehouse.Organization, universe string, want bool) {
		t.Helper()
		if got, err := f.s.NamesUniverse(ctx, org.ID, universe); err != nil || got != want {
			t.Errorf("NamesUniverse(%s, %s) = %v, %v; want %v", org.Name, universe, got, err, want)
		}
	}
	names(a, "42", false)
	got, err := f.s.SetLocationUniverse(ctx, set, a.ID, hq.ID, "42")
	must(t, err)
	names(a, "42", true)
	names(a, "420", false)
	names(b, "42", false)
	if got, err := f.s.NamesUniverse(ctx, gatehouse.NewID(), "42"); err != nil || got {
		t.Errorf("an unknown organization names universe 42: %v, %v", got, err)
	}
	if got.ID != hq.ID || got.Name != "HQ" || got.UniverseID == nil || *got.UniverseID != "42" || len(got.AccessPoints) != 1 {
		t.Errorf("set = %+v", got)
	}
	if l, err := f.s.FindLocation(ctx, a.ID, hq.ID); err != nil || l.UniverseID == nil || *l.UniverseID != "42" {
		t.Errorf("FindLocation = %+v, %v", l, err)
	}
	if page, _, err := f.s.ListLocations(ctx, a.ID, 10, nil, false, nil); err != nil || len(page) != 1 || page[0].UniverseID == nil || *page[0].UniverseID != "42" {
		t.Errorf("ListLocations = %+v, %v", page, err)
	}
	_, err = f.s.SetLocationUniverse(ctx, set, a.ID, hq.ID, "42") // unchanged
	must(t, err)
	_, err = f.s.SetLocationUniverse(ctx, set, b.ID, hq.ID, "7")
	wantErr(t, "set another organization's location", err, gatehouse.ErrNotFound)
	_, err = f.s.SetLocationUniverse(ctx, set, a.ID, gatehouse.NewID(), "7")
	wantErr(t, "set an unknown location", err, gatehouse.ErrNotFound)
	got, err = f.s.SetLocationUniverse(ctx, set, a.ID, hq.ID, "")
	must(t, err)
	if got.UniverseID != nil {
		t.Errorf("cleared = %+v", got)
	}
	if l, _ := f.s.FindLocation(ctx, a.ID, hq.ID); l.UniverseID != nil {
		t.Errorf("still names universe %q after a clear", *l.UniverseID)
	}
	names(a, "42", false)
	log := f.log(a.ID, gatehouse.AuditFilter{Action: gatehouse.AuditLocationUniverseSet})
	if len(log) != 2 {
		t.Fatalf("%d location.universe_set entries, want 2: %+v", len(log), log)
	}
	if e := log[1]; e.Target != (gatehouse.AuditTarget{Type: gatehouse.TargetLocation, ID: hq.ID, Name: "HQ"}) ||
		len(e.Changes) != 1 || e.Changes["universeId"] != (gatehouse.AuditChange{From: "", To: "42"}) {
		t.Errorf("first entry = %+v", e)
	}
	if e := log[0]; e.Changes["universeId"] != (gatehouse.AuditChange{From: "42", To: ""}) {
		t.Errorf("second entry = %+v", e)
	}
	if n := len(f.log(b.ID, gatehouse.AuditFilter{Action: gatehouse.AuditLocationUniverseSet})); n != 0 {
		t.Errorf("the other organization's log has %d entries", n)
	}

	ap, err := f.s.FindAccessPoint(ctx, a.ID, door.ID)
	if err != nil || ap.ID != door.ID || ap.Name != "Door" || ap.LocationID != hq.ID {
		t.Errorf("FindAccessPoint = %+v, %v", ap, err)
	}
	_, err = f.s.FindAccessPoint(ctx, b.ID, door.ID)
	wantErr(t, "another organization's access point", err, gatehouse.ErrNotFound)
	_, err = f.s.FindAccessPoint(ctx, a.ID, hq.ID)
	wantErr(t, "a location's id as an access point", err, gatehouse.ErrNotFound)
}

// testCreateCommandTenant: a command naming another organization's access
// point is ErrNotFound and stores nothing.
