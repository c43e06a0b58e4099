package cli_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/gatehouse/gatehouse"
)

type auditRecord struct {
	ID, At, Action string
	Actor          struct{ Type, ID string }
	Target         struct{ Type, ID, Name string }
	Changes        map[string]struct{ From, To string }
}

// TestAuditList: every change the CLI makes is in the organization's
// log, by the operator (actor cli), newest first; the filters are the API's, and a bad
// one is refused.
func TestAuditList(t *testing.T) {
	g := newGH(t)
	var acme, beta, loc record
	g.json(&acme, "org", "create", "--name", "Acme")
	g.json(&beta, "org", "create", "--name", "Beta")
	g.json(&loc, "location", "create", "--org", acme.ID, "--name", "HQ")
	g.json(&loc, "location", "rename", loc.ID, "--name", "Head office")
	g.json(&acme, "org", "rename", acme.ID, "--name", "Acme Studios")

	var log []auditRecord
	g.json(&log, "audit", "list", "--org", acme.ID)
	var actions []string
	for _, e := range log {
		actions = append(actions, e.Action)
		if e.Actor.Type != "cli" || e.Actor.ID != "" {
			t.Errorf("%s by %+v, want the operator (cli)", e.Action, e.Actor)
		}
	}
	if want := "organization.renamed,location.renamed,location.created,organization.created"; strings.Join(actions, ",") != want {
		t.Fatalf("audit list = %s, want %s", strings.Join(actions, ","), want)
	}
	if c := log[1].Changes["name"]; c.From != "HQ" || c.To != "Head office" || log[1].Target.ID != loc.ID {
		t.Errorf("location.renamed: %+v", log[1])
	}
	g.json(&log, "audit", "list", "--org", acme.ID, "--action", "location.created", "--target-id", loc.ID, "--limit", "5")
	if len(log) != 1 || log[0].Action != "location.created" {
		t.Errorf("filtered: %+v", log)
	}
	g.json(&log, "audit", "list", "--org", beta.ID)
	if len(log) != 1 || log[0].Action != "organization.created" || log[0].Target.ID != beta.ID {
		t.Errorf("Beta's log: %+v", log)
	}
	if out, _, err := g.run(nil, "audit", "list", "--org", acme.ID, "--limit", "1"); err != nil || !strings.Contains(out, "organization.renamed") ||
		!strings.Contains(out, `"Acme" -> "Acme Studios"`) {
		t.Errorf("audit list for people: %q %v", out, err)
	}
	if _, _, err := g.run(nil, "audit", "list", "--org", acme.ID, "--action", "door.opened"); !errors.Is(err, gatehouse.ErrInvalid) {
		t.Errorf("an unknown action: %v", err)
	}
}
