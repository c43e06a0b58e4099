package storetest

import (
	"testing"

	"github.com/gatehouse/gatehouse"
)

// testRenameAccessPoint: a rename within the organization is recorded
// once with the name before and after; events keep the name they were
// recorded with; another organization's access point is unknown; an
// unchanged name and a failed rename record nothing.
func testRenameAccessPoint(t *testing.T, f *fixture) {
	a, b := f.org("Acme"), f.org("Beta")
	hq := f.location(a.ID, "HQ")
	door := f.accessPoint(a.ID, hq.ID, "Door")
	f.ingest(a.ID, f.attempt(door, gatehouse.EventAccessGranted, 1))
	renamed := gatehouse.SystemEntry(gatehouse.AuditAccessPointRenamed)

	got, err := f.s.RenameAccessPoint(ctx, renamed, a.ID, door.ID, "Front door")
	must(t, err)
	if got.ID != door.ID || got.Name != "Front door" || got.LocationID != hq.ID || !got.CreatedAt.Equal(door.CreatedAt) {
		t.Errorf("renamed = %+v", got)
	}
	if l, err := f.s.FindLocation(ctx, a.ID, hq.ID); err != nil || len(l.AccessPoints) != 1 || l.AccessPoints[0].Name != "Front door" {
		t.Errorf("location after the rename = %+v, %v", l, err)
	}
	page, err := f.s.ListEvents(ctx, a.ID, gatehouse.EventFilter{Limit: 10})
	must(t, err)
	if page.Events[0].AccessPoint.Name != "Door" {
		t.Errorf("the recorded event was renamed to %q", page.Events[0].AccessPoint.Name)
	}

	_, err = f.s.RenameAccessPoint(ctx, renamed, a.ID, door.ID, "Front door") // unchanged
	must(t, err)
	_, err = f.s.RenameAccessPoint(ctx, renamed, b.ID, door.ID, "Mine")
	wantErr(t, "rename another organization's access point", err, gatehouse.ErrNotFound)
	_, err = f.s.RenameAccessPoint(ctx, renamed, a.ID, hq.ID, "Mine")
	wantErr(t, "rename a location as an access point", err, gatehouse.ErrNotFound)
	_, err = f.s.RenameAccessPoint(ctx, renamed, a.ID, door.ID, "Door\x1b[2J")
	wantErr(t, "escape sequence in a new name", err, gatehouse.ErrInvalid, "name")

	log := f.log(a.ID, gatehouse.AuditFilter{Action: gatehouse.AuditAccessPointRenamed})
	if len(log) != 1 {
		t.Fatalf("%d access_point.renamed entries, want 1: %+v", len(log), log)
	}
	if e := log[0]; e.Target != (gatehouse.AuditTarget{Type: gatehouse.TargetAccessPoint, ID: door.ID, Name: "Front door"}) ||
		len(e.Changes) != 1 || e.Changes["name"] != (gatehouse.AuditChange{From: "Door", To: "Front door"}) {
		t.Errorf("entry = %+v", e)
	}
	if n := len(f.log(b.ID, gatehouse.AuditFilter{Action: gatehouse.AuditAccessPointRenamed})); n != 0 {
		t.Errorf("the other organization's log has %d renames", n)
	}
}

// testMoveAccessPoint: an access point moves to another location of its
// organization, recorded once with the location before and after; events
// keep the location they were recorded with (and filters by location
// still find them there); a location or access point of another
// organization is unknown and moves nothing.
func testMoveAccessPoint(t *testing.T, f *fixture) {
	a, b := f.org("Acme"), f.org("Beta")
	hq, annex := f.location(a.ID, "HQ"), f.location(a.ID, "Annex")
	foreign := f.location(b.ID, "Theirs")
	door := f.accessPoint(a.ID, hq.ID, "Door")
	f.ingest(a.ID, f.attempt(door, gatehouse.EventAccessGranted, 1))
	moved := gatehouse.SystemEntry(gatehouse.AuditAccessPointMoved)

	_, err := f.s.MoveAccessPoint(ctx, moved, a.ID, door.ID, foreign.ID)
	wantErr(t, "move to another organization's location", err, gatehouse.ErrNotFound)
	_, err = f.s.MoveAccessPoint(ctx, moved, b.ID, door.ID, foreign.ID)
	wantErr(t, "move another organization's access point", err, gatehouse.ErrNotFound)
	_, err = f.s.MoveAccessPoint(ctx, moved, a.ID, door.ID, gatehouse.NewID())
	wantErr(t, "move to an unknown location", err, gatehouse.ErrNotFound)
	_, err = f.s.MoveAccessPoint(ctx, moved, a.ID, door.ID, hq.ID) // where it is
	must(t, err)
	if n := len(f.log(a.ID, gatehouse.AuditFilter{Action: gatehouse.AuditAccessPointMoved})); n != 0 {
		t.Fatalf("refused and no-op moves recorded %d entries", n)
	}

	got, err := f.s.MoveAccessPoint(ctx, moved, a.ID, door.ID, annex.ID)
	must(t, err)
	if got.ID != door.ID || got.Name != "Door" || got.LocationID != annex.ID {
		t.Errorf("moved = %+v", got)
	}
	if l, err := f.s.FindLocation(ctx, a.ID, hq.ID); err != nil || len(l.AccessPoints) != 0 {
		t.Errorf("the old location still lists %+v, %v", l.AccessPoints, err)
	}
	if l, err := f.s.FindLocation(ctx, a.ID, annex.ID); err != nil || len(l.AccessPoints) != 1 || l.AccessPoints[0].ID != door.ID {
		t.Errorf("the new location lists %+v, %v", l.AccessPoints, err)
	}
	page, err := f.s.ListEvents(ctx, a.ID, gatehouse.EventFilter{Limit: 10, LocationID: &hq.ID})
	must(t, err)
	if len(page.Events) != 1 || page.Events[0].Location != (gatehouse.NamedRef{ID: hq.ID, Name: "HQ"}) {
		t.Errorf("the recorded event moved: %+v", page.Events)
	}

	log := f.log(a.ID, gatehouse.AuditFilter{Action: gatehouse.AuditAccessPointMoved})
	if len(log) != 1 {
		t.Fatalf("%d access_point.moved entries, want 1: %+v", len(log), log)
	}
	if e := log[0]; e.Target != (gatehouse.AuditTarget{Type: gatehouse.TargetAccessPoint, ID: door.ID, Name: "Door"}) ||
		len(e.Changes) != 1 || e.Changes["locationId"] != (gatehouse.AuditChange{From: hq.ID.String(), To: annex.ID.String()}) {
		t.Errorf("entry = %+v", e)
	}
}
