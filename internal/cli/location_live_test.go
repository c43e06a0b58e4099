package cli_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/gatehouse/gatehouse"
	"github.com/gatehouse/gatehouse/internal/sqlite"
	"github.com/google/uuid"
)

// TestLocationLive: location live prints each door's state (here: no
// policy, so it fails closed) and the live servers of the location's
// universe with their job ids and players, and with --json the live view
// of the API.
func TestLocationLive(t *testing.T) {
	g := newGH(t)
	org, aps := g.place("Front door")
	var loc record
	g.json(&loc, "location", "create", "--org", org.ID, "--name", "Club", "--universe-id", "4242")
	var door record
	g.json(&door, "access-point", "create", "--location", loc.ID, "--name", "VIP area")

	ctx := context.Background()
	db, err := sqlite.Open(ctx, g.db)
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	if err := db.Heartbeat(ctx, uuid.MustParse(org.ID), gatehouse.GameServer{JobID: "job-7f3a", UniverseID: "4242",
		Players: []string{"156", "157"}, StartedAt: now, SeenAt: now}, gatehouse.OrgServerCaps); err != nil {
		t.Fatal(err)
	}
	db.Close()

	out, _, err := g.run(nil, "location", "live", loc.ID)
	if err != nil || !strings.Contains(out, "universe 4242") || !strings.Contains(out, "VIP area") ||
		!strings.Contains(out, "no policy (fails closed)") || !strings.Contains(out, "1 live server\n") ||
		!strings.Contains(out, "server job-7f3a  2 players") {
		t.Errorf("location live: %q %v", out, err)
	}
	var live gatehouse.LocationLive
	g.json(&live, "location", "live", loc.ID)
	if live.Name != "Club" || len(live.AccessPoints) != 1 || live.AccessPoints[0].ID.String() != door.ID ||
		len(live.Servers) != 1 || live.Servers[0].JobID != "job-7f3a" || live.Servers[0].Players != 2 {
		t.Errorf("location live --json: %+v", live)
	}
	if _, _, err := g.run(nil, "location", "live", aps[0].ID); err == nil || !strings.Contains(err.Error(), "not found") {
		t.Errorf("location live of an access point's id: %v", err)
	}
}
