package cli_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/gatehouse/gatehouse"
)

// user-data erase removes exactly one player's events and prints the
// counts; org set-retention keeps the bounds and shows in org list.
func TestPrivacyCommands(t *testing.T) {
	g := newGH(t)
	org, doors := g.place("Gate")
	var lines []string
	for i, player := range []string{"261", "261", "262"} {
		lines = append(lines, fmt.Sprintf(`{"type":"ACCESS_DENIED","occurredAt":"2026-11-20T10:00:0%dZ","accessPointId":%q,"allowed":"denied","platformUserId":%q}`, i, doors[0].ID, player))
	}
	if _, _, err := g.run(strings.NewReader(strings.Join(lines, "\n")), "event", "import", "--org", org.ID); err != nil {
		t.Fatal(err)
	}
	var er struct{ Events, Commands int }
	g.json(&er, "user-data", "erase", "--org", org.ID, "261")
	if er.Events != 2 || er.Commands != 0 {
		t.Errorf("erase = %+v", er)
	}
	out, _, _ := g.run(nil, "event", "tail", "--org", org.ID, "--follow=false")
	if strings.Count(out, "\n") != 1 || strings.Contains(out, `"261"`) {
		t.Errorf("left after the erasure:\n%s", out)
	}
	if out, _, err := g.run(nil, "user-data", "erase", "--org", org.ID, "261"); err != nil || !strings.Contains(out, "erased 0 events") {
		t.Errorf("a second erasure: %q %v", out, err)
	}
	if _, _, err := g.run(nil, "user-data", "erase", "--org", org.ID); !isUsage(err) {
		t.Errorf("no player: %v", err)
	}

	var o struct{ RetentionDays int }
	g.json(&o, "org", "set-retention", org.ID, "730")
	if o.RetentionDays != 730 {
		t.Errorf("set-retention = %+v", o)
	}
	if _, _, err := g.run(nil, "org", "set-retention", org.ID, "30"); !errors.Is(err, gatehouse.ErrInvalid) {
		t.Errorf("30 days: %v", err)
	}
	if out, _, _ := g.run(nil, "org", "list"); !strings.Contains(out, " 730d ") {
		t.Errorf("org list = %q", out)
	}
}

// privacy erasure-webhook sets the webhook up once and shows the same
// path and secret after; --new replaces both.
func TestPrivacyErasureWebhookCommand(t *testing.T) {
	g := newGH(t)
	var org record
	g.json(&org, "org", "create", "--name", "Acme")
	var first, again, replaced struct{ Path, Secret string }
	g.json(&first, "privacy", "erasure-webhook", "--org", org.ID)
	g.json(&again, "privacy", "erasure-webhook", "--org", org.ID)
	g.json(&replaced, "privacy", "erasure-webhook", "--org", org.ID, "--new")
	if !strings.HasPrefix(first.Path, "/api/consumer/v1/integrations/roblox/erasure/") || first.Secret == "" || again != first {
		t.Errorf("first %+v, again %+v: want the same webhook shown twice", first, again)
	}
	if replaced.Path == first.Path || replaced.Secret == first.Secret {
		t.Errorf("--new kept %+v", replaced)
	}
}
