package cli_test

import (
	"errors"
	"slices"
	"testing"

	"github.com/gatehouse/gatehouse"
)

// TestLocationLimitsFromTheCLI: the operator limits a user's role to
// locations (user create, user invite and user set-role take
// --locations; set-role without it gives the whole organization back),
// a key made --as that user is limited to theirs, a limited key takes
// only the scopes such a key may hold, and the limited user may not act
// on the whole organization.
func TestLocationLimitsFromTheCLI(t *testing.T) {
	g := newGH(t)
	g.env["GATEHOUSE_PASSWORD"] = "correct horse battery staple"
	var org, hq, annex record
	g.json(&org, "org", "create", "--name", "Acme")
	g.json(&hq, "location", "create", "--org", org.ID, "--name", "HQ")
	g.json(&annex, "location", "create", "--org", org.ID, "--name", "Annex")
	type limited struct {
		Email     string
		Locations []string
	}
	var first, u limited
	g.json(&first, "user", "create", "--org", org.ID, "--email", "ada@acme.test")
	g.json(&u, "user", "create", "--org", org.ID, "--email", "hq@acme.test", "--role", "admin", "--locations", hq.ID)
	if !slices.Equal(u.Locations, []string{hq.ID}) || first.Locations == nil || len(first.Locations) != 0 {
		t.Fatalf("the users' locations: %+v, %+v", u, first)
	}
	var invited limited
	g.json(&invited, "user", "invite", "--org", org.ID, "--email", "new@acme.test", "--locations", hq.ID+","+annex.ID)
	if len(invited.Locations) != 2 {
		t.Errorf("the invited user's locations: %+v", invited)
	}
	if _, _, err := g.run(nil, "user", "create", "--org", org.ID, "--email", "bad@acme.test", "--locations", "HQ"); !errors.Is(err, gatehouse.ErrInvalid) {
		t.Errorf("--locations HQ (a name, not an id): %v", err)
	}
	var users []limited
	g.json(&users, "user", "list", "--org", org.ID)
	if !slices.ContainsFunc(users, func(l limited) bool { return l.Email == "hq@acme.test" && slices.Equal(l.Locations, []string{hq.ID}) }) {
		t.Errorf("user list: %+v", users)
	}

	var key struct{ Locations []string }
	g.json(&key, "key", "create", "--org", org.ID, "--name", "hq-bot", "--scopes", "events:read", "--as", "hq@acme.test")
	if !slices.Equal(key.Locations, []string{hq.ID}) {
		t.Errorf("a key made as the limited user is limited to %v, want HQ", key.Locations)
	}
	if _, _, err := g.run(nil, "key", "create", "--org", org.ID, "--name", "x", "--scopes", "server", "--locations", hq.ID); !errors.Is(err, gatehouse.ErrInvalid) {
		t.Errorf("a limited game server's key: %v", err)
	}
	if _, _, err := g.run(nil, "user", "invite", "--org", org.ID, "--email", "x@acme.test", "--as", "hq@acme.test"); !errors.Is(err, gatehouse.ErrOutsideReach) {
		t.Errorf("the limited admin invites: %v", err)
	}
	g.json(&u, "user", "set-role", "--org", org.ID, "--email", "hq@acme.test", "--role", "operator")
	if len(u.Locations) != 0 {
		t.Errorf("set-role without --locations left %v", u.Locations)
	}
}
