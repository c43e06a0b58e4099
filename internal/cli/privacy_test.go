package cli_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/gatehouse/gatehouse"
)

// user-data erase removes exactly one player's events and prints the
// counts; org set-retention keeps the bounds and shows in org list.
func TestPrivacyCommands(t *testing.T) {
	g := newGH(t)
	org, doors := g.place("Gate")
	var lines []string
	for i, player := range []string{"261", "261", "262"} {
		lines = append(lines, fmt.Sprintf(`{"type":"ACCESS_DENIED","occurredAt":"`+eventDay+`T10:00:0%dZ","accessPointId":%q,"allowed":"denied","platformUserId":%q}`, i, doors[0].ID, player))
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

// event import refuses, by line, an event older than the organization's
// retention, which retention would delete minutes later, and imports
// the rest.
func TestImportRefusesEventsPastRetention(t *testing.T) {
	g := newGH(t)
	org, doors := g.place("Gate")
	line := func(at time.Time) string {
		return fmt.Sprintf(`{"type":"ACCESS_DENIED","occurredAt":%q,"accessPointId":%q,"platformUserId":"7"}`, at.UTC().Format(time.RFC3339Nano), doors[0].ID)
	}
	recent := time.Now().Add(-time.Hour)
	lines := []string{line(recent), line(recent.AddDate(0, 0, -401)), line(recent.Add(time.Second))}
	out, _, err := g.run(strings.NewReader(strings.Join(lines, "\n")), "event", "import", "--org", org.ID, "--json")
	var sum summary
	if err != nil || json.Unmarshal([]byte(out), &sum) != nil {
		t.Fatalf("import: %v\n%s", err, out)
	}
	if sum.Imported != 2 || sum.Rejected != 1 || len(sum.Errors) != 1 || sum.Errors[0].Line != 2 ||
		!strings.Contains(sum.Errors[0].Error, "occurredAt") || !strings.Contains(sum.Errors[0].Error, "older than the retention of 400 days") {
		t.Errorf("import printed %s, want 2 imported and line 2 refused as older than the retention", out)
	}
}
