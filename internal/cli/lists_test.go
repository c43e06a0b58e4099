package cli_test

import (
	"strings"
	"testing"
)

// TestLocationAndAccessPointLists: location list --org and access-point
// list --location print what was created, one JSON document with --json;
// a location id is enough, its organization is found by a query.
func TestLocationAndAccessPointLists(t *testing.T) {
	g := newGH(t)
	var org, other, hq, club, door record
	g.json(&org, "org", "create", "--name", "Acme")
	g.json(&other, "org", "create", "--name", "Rival")
	g.json(&hq, "location", "create", "--org", org.ID, "--name", "HQ")
	g.json(&club, "location", "create", "--org", org.ID, "--name", "Club")
	g.json(&door, "access-point", "create", "--location", hq.ID, "--name", "Front door")

	var locs []struct {
		ID, Name     string
		AccessPoints []record
	}
	g.json(&locs, "location", "list", "--org", org.ID)
	if len(locs) != 2 || locs[0].ID != club.ID || locs[1].ID != hq.ID || len(locs[1].AccessPoints) != 1 || locs[1].AccessPoints[0].ID != door.ID {
		t.Errorf("location list: %+v", locs)
	}
	var none []record
	g.json(&none, "location", "list", "--org", other.ID)
	if none == nil || len(none) != 0 {
		t.Errorf("another organization's location list: %+v, want []", none)
	}
	var aps []record
	g.json(&aps, "access-point", "list", "--location", hq.ID)
	if len(aps) != 1 || aps[0].ID != door.ID || aps[0].Name != "Front door" || aps[0].LocationID != hq.ID {
		t.Errorf("access-point list: %+v", aps)
	}
	out, _, err := g.run(nil, "access-point", "list", "--location", hq.ID)
	if err != nil || !strings.Contains(out, door.ID) || !strings.Contains(out, "Front door") {
		t.Errorf("access-point list, human: %q %v", out, err)
	}
	if _, _, err := g.run(nil, "access-point", "list", "--location", org.ID); err == nil || !strings.Contains(err.Error(), "not found") {
		t.Errorf("access-point list of an unknown location: %v", err)
	}
	if _, _, err := g.run(nil, "location", "list", "--org", hq.ID); err == nil || !strings.Contains(err.Error(), "not found") {
		t.Errorf("location list of an unknown organization: %v", err)
	}
}

// TestOrgAndLocationRename: org rename and location rename take the id as
// their argument and the new name as --name; a location's organization is
// found by a query; bad input is a usage error or the validation error.
func TestOrgAndLocationRename(t *testing.T) {
	g := newGH(t)
	var org, hq, renamed record
	g.json(&org, "org", "create", "--name", "Acme")
	g.json(&hq, "location", "create", "--org", org.ID, "--name", "HQ")

	g.json(&renamed, "org", "rename", org.ID, "--name", "Acme Studios")
	if renamed.ID != org.ID || renamed.Name != "Acme Studios" {
		t.Errorf("org rename: %+v", renamed)
	}
	g.json(&renamed, "location", "rename", "--name", "Headquarters", hq.ID)
	if renamed.ID != hq.ID || renamed.Name != "Headquarters" {
		t.Errorf("location rename: %+v", renamed)
	}
	var locs []record
	g.json(&locs, "location", "list", "--org", org.ID)
	if len(locs) != 1 || locs[0].Name != "Headquarters" {
		t.Errorf("after rename, location list: %+v", locs)
	}
	for _, args := range [][]string{
		{"org", "rename", "--name", "x"},                  // no id
		{"org", "rename", "not-a-uuid", "--name", "x"},    // bad id
		{"org", "rename", org.ID},                         // no name
		{"location", "rename", hq.ID, "--name", "a\x1bb"}, // control character
		{"location", "rename", org.ID, "--name", "x"},     // not a location
	} {
		if _, _, err := g.run(nil, args...); err == nil {
			t.Errorf("%q succeeded", args)
		}
	}
}

// TestAccessPointRenameAndMove: access-point rename and move take the id
// as their argument; the access point's organization is found by a query;
// a location of another organization is not found; each change is in the
// audit log once, by the system, and repeating it records nothing.
func TestAccessPointRenameAndMove(t *testing.T) {
	g := newGH(t)
	var org, other, hq, annex, theirs, door, got record
	g.json(&org, "org", "create", "--name", "Acme")
	g.json(&other, "org", "create", "--name", "Rival")
	g.json(&hq, "location", "create", "--org", org.ID, "--name", "HQ")
	g.json(&annex, "location", "create", "--org", org.ID, "--name", "Annex")
	g.json(&theirs, "location", "create", "--org", other.ID, "--name", "Theirs")
	g.json(&door, "access-point", "create", "--location", hq.ID, "--name", "Door")

	for range 2 {
		g.json(&got, "access-point", "rename", door.ID, "--name", "Front door")
		if got.ID != door.ID || got.Name != "Front door" || got.LocationID != hq.ID {
			t.Errorf("access-point rename: %+v", got)
		}
	}
	for range 2 {
		g.json(&got, "access-point", "move", "--location", annex.ID, door.ID)
		if got.ID != door.ID || got.Name != "Front door" || got.LocationID != annex.ID {
			t.Errorf("access-point move: %+v", got)
		}
	}
	out, _, err := g.run(nil, "access-point", "rename", door.ID, "--name", "Main door")
	if err != nil || !strings.Contains(out, door.ID) || !strings.Contains(out, `"Main door"`) {
		t.Errorf("access-point rename, human: %q %v", out, err)
	}
	var aps []record
	g.json(&aps, "access-point", "list", "--location", annex.ID)
	if len(aps) != 1 || aps[0].ID != door.ID || aps[0].Name != "Main door" {
		t.Errorf("after the move, access-point list: %+v", aps)
	}
	_, _, err = g.run(nil, "access-point", "move", door.ID, "--location", theirs.ID)
	if err == nil || !strings.Contains(err.Error(), "not found") {
		t.Errorf("move to another organization's location: %v", err)
	}
	for _, args := range [][]string{
		{"access-point", "rename", "--name", "x"},                     // no id
		{"access-point", "rename", door.ID},                           // no name
		{"access-point", "rename", door.ID, "--name", "a\x1bb"},       // control character
		{"access-point", "rename", hq.ID, "--name", "x"},              // not an access point
		{"access-point", "move", door.ID},                             // no location
		{"access-point", "move", door.ID, "--location", "not-a-uuid"}, // bad location
	} {
		if _, _, err := g.run(nil, args...); err == nil {
			t.Errorf("%q succeeded", args)
		}
	}

	var log []auditRecord
	g.json(&log, "audit", "list", "--org", org.ID, "--target-id", door.ID)
	var actions []string
	for _, e := range log {
		actions = append(actions, e.Action)
		if e.Actor.Type != "system" {
			t.Errorf("%s by %+v, want the system", e.Action, e.Actor)
		}
	}
	if want := "access_point.renamed,access_point.moved,access_point.renamed,access_point.created"; strings.Join(actions, ",") != want {
		t.Fatalf("audit list = %s, want %s", strings.Join(actions, ","), want)
	}
	if c := log[1].Changes["locationId"]; c.From != hq.ID || c.To != annex.ID {
		t.Errorf("access_point.moved: %+v", log[1])
	}
}
