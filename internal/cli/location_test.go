package cli_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/gatehouse/gatehouse"
)

// TestLocationUniverse: a location names its universe at creation or
// later; "" clears it; location list shows it.
func TestLocationUniverse(t *testing.T) {
	g := newBackendGH(t)
	var org record
	g.json(&org, "org", "create", "--name", "Acme")
	var hq, club struct {
		ID, Name   string
		UniverseID *string
	}
	g.json(&hq, "location", "create", "--org", org.ID, "--name", "HQ", "--universe-id", "4242")
	if hq.UniverseID == nil || *hq.UniverseID != "4242" {
		t.Errorf("location create --universe-id: %+v", hq)
	}
	g.json(&club, "location", "create", "--org", org.ID, "--name", "Club")
	if club.UniverseID != nil {
		t.Errorf("location create without a universe: %+v", club)
	}
	if _, _, err := g.run(nil, "location", "create", "--org", org.ID, "--name", "Bad", "--universe-id", "42a"); !isUsage(err) {
		t.Errorf("a bad --universe-id: %v", err)
	}
	g.json(&club, "location", "set-universe", club.ID, "77")
	if club.UniverseID == nil || *club.UniverseID != "77" {
		t.Errorf("set-universe: %+v", club)
	}
	g.json(&hq, "location", "set-universe", hq.ID, "")
	if hq.UniverseID != nil {
		t.Errorf("set-universe \"\": %+v", hq)
	}
	for _, args := range [][]string{{club.ID, "-1"}, {club.ID, "0042"}, {club.ID}, {"nope", "1"}} {
		if _, _, err := g.run(nil, append([]string{"location", "set-universe"}, args...)...); !isUsage(err) {
			t.Errorf("set-universe %v: %v", args, err)
		}
	}
	if _, _, err := g.run(nil, "location", "set-universe", org.ID, "1"); !errors.Is(err, gatehouse.ErrNotFound) {
		t.Errorf("set-universe of an unknown location: %v", err)
	}
	var locs []struct {
		Name       string
		UniverseID *string
	}
	g.json(&locs, "location", "list", "--org", org.ID)
	if len(locs) != 2 || locs[0].Name != "Club" || locs[0].UniverseID == nil || *locs[0].UniverseID != "77" || locs[1].UniverseID != nil {
		t.Errorf("location list: %+v", locs)
	}
	out, _, err := g.run(nil, "location", "list", "--org", org.ID)
	if err != nil || !strings.Contains(out, "universe 77") || !strings.Contains(out, "no universe") {
		t.Errorf("location list for people: %q %v", out, err)
	}
	out, _, err = g.run(nil, "location", "set-universe", hq.ID, "5")
	if err != nil || !strings.Contains(out, "universe 5") {
		t.Errorf("set-universe for people: %q %v", out, err)
	}
	var entries []struct{ Action string }
	g.json(&entries, "audit", "list", "--org", org.ID, "--action", "location.universe_set")
	if len(entries) != 4 {
		t.Errorf("the audit of universes: %d entries, want 4", len(entries))
	}
}

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
