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
