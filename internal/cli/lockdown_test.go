package cli_test

import (
	"strings"
	"testing"
)

// TestLockdownCommands: lockdown start (exactly one target, --for as an
// end), list --active and release, which answers the same when run
// again; a start without a reason is refused.
func TestLockdownCommands(t *testing.T) {
	g := newGH(t)
	var o, loc record
	g.json(&o, "org", "create", "--name", "Acme")
	g.json(&loc, "location", "create", "--org", o.ID, "--name", "HQ", "--universe-id", "4242")
	if _, stderr, err := g.run(nil, "lockdown", "start", "--org", o.ID, "--organization", "--location", loc.ID, "--reason", "x"); err == nil {
		t.Errorf("two targets were accepted: %s", stderr)
	}
	if _, _, err := g.run(nil, "lockdown", "start", "--org", o.ID, "--organization"); err == nil {
		t.Error("a lockdown without a reason was started")
	}
	var l struct {
		ID, Scope, Reason string
		Until, ReleasedAt *string
		Active            bool
		Location          *struct{ Name string }
	}
	g.json(&l, "lockdown", "start", "--org", o.ID, "--location", loc.ID, "--reason", "Raid on the vault", "--for", "1h")
	if l.Scope != "LOCATION" || l.Location == nil || l.Location.Name != "HQ" || !l.Active || l.Until == nil {
		t.Fatalf("started %+v", l)
	}
	out, _, err := g.run(nil, "lockdown", "list", "--org", o.ID, "--active")
	if err != nil || !strings.Contains(out, l.ID) || !strings.Contains(out, "RUNNING") || !strings.Contains(out, "location HQ") {
		t.Errorf("list --active: %v\n%s", err, out)
	}
	var released, again struct {
		Active     bool
		ReleasedAt *string
		ReleasedBy *struct{ Type string }
	}
	g.json(&released, "lockdown", "release", "--org", o.ID, l.ID)
	g.json(&again, "lockdown", "release", "--org", o.ID, l.ID)
	if released.Active || released.ReleasedAt == nil || again.ReleasedAt == nil || *again.ReleasedAt != *released.ReleasedAt {
		t.Errorf("released %+v, again %+v", released, again)
	}
	// The lockdown keeps its three kinds of releaser; the audit log names
	// the operator.
	if released.ReleasedBy == nil || released.ReleasedBy.Type != "system" {
		t.Errorf("released by %+v, want the system", released.ReleasedBy)
	}
	if a := lastActor(g, o.ID); a.Type != "cli" || a.Name == "" {
		t.Errorf("the release's audit entry is by %+v, want the operator (cli)", a)
	}
	if out, _, _ := g.run(nil, "lockdown", "list", "--org", o.ID, "--active"); strings.Contains(out, l.ID) {
		t.Errorf("still active: %s", out)
	}
	// command show tells a lockdown's commands by their lockdown: they
	// have no access point or duration to print.
	var cmds []struct{ ID, Type string }
	g.json(&cmds, "command", "list", "--org", o.ID)
	for _, c := range cmds {
		out, _, err := g.run(nil, "command", "show", c.ID)
		if err != nil || c.Type != "LOCKDOWN" || !strings.Contains(out, "of location HQ ("+l.ID+")") ||
			strings.Contains(out, "access point:") || strings.Contains(out, "00000000-") {
			t.Errorf("command show of %s %s: %v\n%s", c.Type, c.ID, err, out)
		}
	}
	if len(cmds) != 2 {
		t.Errorf("%d commands for a lockdown started and released", len(cmds))
	}
}
