package cli_test

import (
	"strings"
	"testing"
)

// TestAccessPointRenameAndMove: access-point rename and move take the id
// as their argument; the access point's organization is found by a query;
// a location of another organization is not found; each change is in the
// audit log once, by the operator (actor cli), and repeating it records nothing.
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
		if e.Actor.Type != "cli" {
			t.Errorf("%s by %+v, want the operator (cli)", e.Action, e.Actor)
		}
	}
	if want := "access_point.renamed,access_point.moved,access_point.renamed,access_point.created"; strings.Join(actions, ",") != want {
		t.Fatalf("audit list = %s, want %s", strings.Join(actions, ","), want)
	}
	if c := log[1].Changes["locationId"]; c.From != hq.ID || c.To != annex.ID {
		t.Errorf("access_point.moved: %+v", log[1])
	}
}
