package cli_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/gatehouse/gatehouse"
)

// TestAlertRuleCommands: alert-rule create makes threshold and audit
// rules (a standard-webhooks one prints its secret once), list shows
// them, test queues an alert that alerts list shows, delete removes the
// rule; a bad rule names its field.
func TestAlertRuleCommands(t *testing.T) {
	g := newGH(t)
	var org record
	g.json(&org, "org", "create", "--name", "Acme")
	var probing struct {
		ID        string
		Condition gatehouse.AlertCondition
		Secret    string
	}
	g.json(&probing, "alert-rule", "create", "--org", org.ID, "--name", "Door probing", "--format", "discord",
		"--url", "https://discord.com/api/webhooks/1/x", "--threshold", "10", "--window", "5m", "--group-by", "platformUserId",
		"--filter", "type=ACCESS_DENIED", "--cooldown", "15m")
	if probing.Condition.Threshold != 10 || probing.Condition.WindowSeconds != 300 || probing.Condition.Filters["type"] != "ACCESS_DENIED" || probing.Secret != "" {
		t.Errorf("created %+v", probing)
	}
	var changes struct{ ID, Secret string }
	g.json(&changes, "alert-rule", "create", "--org", org.ID, "--name", "Changes", "--format", "standard-webhooks",
		"--url", "https://hooks.example.com/alerts", "--audit-actions", "lockdown.started,policy.changed")
	if !strings.HasPrefix(changes.Secret, "whsec_") {
		t.Errorf("a standard-webhooks rule without its secret: %+v", changes)
	}
	out, _, err := g.run(nil, "alert-rule", "list", "--org", org.ID)
	if err != nil || !strings.Contains(out, probing.ID+"  Door probing  10 in 5m per platformUserId  discord") ||
		!strings.Contains(out, "audit lockdown.started,policy.changed") || strings.Contains(out, "whsec_") {
		t.Errorf("list = %q, %v", out, err)
	}
	if out, _, err := g.run(nil, "alert-rule", "test", "--org", org.ID, probing.ID); err != nil || !strings.Contains(out, "queued test alert") {
		t.Errorf("test = %q, %v", out, err)
	}
	out, _, err = g.run(nil, "alerts", "list", "--org", org.ID)
	if err != nil || !strings.Contains(out, "Door probing") || !strings.Contains(out, "pending (0 attempts)") {
		t.Errorf("alerts list = %q, %v", out, err)
	}
	if _, _, err := g.run(nil, "alert-rule", "create", "--org", org.ID, "--name", "x", "--format", "teams", "--url", "https://x.example",
		"--threshold", "0"); !errors.Is(err, gatehouse.ErrInvalid) {
		t.Errorf("a bad rule: %v", err)
	}
	out, _, err = g.run(nil, "alert-rule", "delete", "--org", org.ID, probing.ID)
	if err != nil || !strings.Contains(out, "deleted alert rule "+probing.ID) {
		t.Errorf("delete = %q, %v", out, err)
	}
	if _, _, err := g.run(nil, "alert-rule", "delete", "--org", org.ID, probing.ID); !errors.Is(err, gatehouse.ErrNotFound) {
		t.Errorf("delete again: %v", err)
	}
}
