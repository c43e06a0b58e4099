package cli_test

import (
	"errors"
	"os"
	"os/user"
	"strings"
	"testing"

	"github.com/gatehouse/gatehouse"
)

type auditActor struct{ Type, ID, Email, Name string }

// lastActor is the actor of the organization's newest audit entry.
func lastActor(g *gh, orgID string) auditActor {
	g.t.Helper()
	var log []struct {
		Action string
		Actor  auditActor
	}
	g.json(&log, "audit", "list", "--org", orgID, "--limit", "1")
	if len(log) != 1 {
		g.t.Fatalf("audit list: %+v", log)
	}
	return log[0].Actor
}

// TestChangesNameWhoMadeThem: a change is credited to the dashboard user
// of --as, else of GATEHOUSE_ACTOR, else to the operating-system user and
// host as an actor "cli"; never to "system".
func TestChangesNameWhoMadeThem(t *testing.T) {
	g := newGH(t)
	g.env["GATEHOUSE_PASSWORD"] = "correct horse battery staple"
	var acme, admin, viewer, loc record
	g.json(&acme, "org", "create", "--name", "Acme")
	g.json(&admin, "user", "create", "--org", acme.ID, "--email", "ada@acme.test", "--role", "admin")
	g.json(&viewer, "user", "create", "--org", acme.ID, "--email", "vic@acme.test", "--role", "viewer")

	g.json(&loc, "location", "create", "--org", acme.ID, "--name", "HQ", "--as", "ADA@acme.test")
	if a := lastActor(g, acme.ID); a.Type != "user" || a.ID != admin.ID || a.Email != "ada@acme.test" {
		t.Errorf("with --as: %+v, want the user ada@acme.test", a)
	}

	g.env["GATEHOUSE_ACTOR"] = "ada@acme.test"
	g.json(&loc, "location", "create", "--org", acme.ID, "--name", "Annex")
	if a := lastActor(g, acme.ID); a.Type != "user" || a.ID != admin.ID {
		t.Errorf("with GATEHOUSE_ACTOR: %+v, want the user ada@acme.test", a)
	}
	// Commands that name their organization otherwise act for its user too:
	// by the record's id, and through a shared --org helper.
	g.json(&loc, "location", "rename", loc.ID, "--name", "Annex 2")
	if a := lastActor(g, acme.ID); a.Type != "user" || a.ID != admin.ID {
		t.Errorf("location rename with GATEHOUSE_ACTOR: %+v, want the user ada@acme.test", a)
	}
	var grant record
	g.json(&grant, "grant", "create", "--org", acme.ID, "--player", "42", "--location", loc.ID, "--for", "1h")
	g.json(&grant, "grant", "revoke", "--org", acme.ID, grant.ID)
	if a := lastActor(g, acme.ID); a.Type != "user" || a.ID != admin.ID {
		t.Errorf("grant revoke with GATEHOUSE_ACTOR: %+v, want the user ada@acme.test", a)
	}
	// The flag wins over the variable, and a viewer may not change records.
	_, _, err := g.run(nil, "location", "create", "--org", acme.ID, "--name", "Shed", "--as", "vic@acme.test")
	if !errors.Is(err, gatehouse.ErrForbidden) {
		t.Errorf("--as a viewer: %v, want forbidden", err)
	}
	g.env["GATEHOUSE_ACTOR"] = "nobody@acme.test"
	if _, _, err := g.run(nil, "location", "create", "--org", acme.ID, "--name", "Shed"); err == nil ||
		!strings.Contains(err.Error(), "nobody@acme.test is not a dashboard user of the organization") {
		t.Errorf("GATEHOUSE_ACTOR of no user: %v", err)
	}
	delete(g.env, "GATEHOUSE_ACTOR")

	g.json(&loc, "location", "create", "--org", acme.ID, "--name", "Garage")
	want := osUserAndHost(t)
	if a := lastActor(g, acme.ID); a.Type != "cli" || a.ID != "" || a.Name != want {
		t.Errorf("with neither: %+v, want {cli %s}", a, want)
	}
}

func osUserAndHost(t *testing.T) string {
	t.Helper()
	u, err := user.Current()
	if err != nil {
		t.Skip("no operating-system user:", err)
	}
	host, err := os.Hostname()
	if err != nil {
		t.Skip("no host name:", err)
	}
	return u.Username + "@" + host
}

// TestErrorsEndInWords: an error that wraps a code word after a sentence
// prints the sentence alone, and still is that error.
func TestErrorsEndInWords(t *testing.T) {
	g := newGH(t)
	g.env["GATEHOUSE_PASSWORD"] = "correct horse battery staple"
	var acme, u record
	g.json(&acme, "org", "create", "--name", "Acme")
	g.json(&u, "user", "create", "--org", acme.ID, "--email", "ada@acme.test", "--role", "admin")
	_, _, err := g.run(nil, "user", "remove", "--org", acme.ID, "--email", "ada@acme.test")
	if !errors.Is(err, gatehouse.ErrConflict) || !strings.HasSuffix(err.Error(), "make another user admin first") {
		t.Errorf("removing the last admin: %q, want it to end \"make another user admin first\"", err)
	}
}
