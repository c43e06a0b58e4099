package cli_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/gatehouse/gatehouse"
)

// TestWebhookCommands: webhook create prints the secret once, list shows
// the endpoint without it, delete removes it; private targets need
// --webhooks-allow-private, as serve does.
func TestWebhookCommands(t *testing.T) {
	g := newGH(t)
	var org record
	g.json(&org, "org", "create", "--name", "Acme")
	var created struct {
		ID, URL, Secret string
		Types           []string
		Filters         map[string]string
	}
	g.json(&created, "webhook", "create", "--org", org.ID, "--url", "https://hooks.example.com/x",
		"--types", "event.created,command.updated", "--filter", "type=ACCESS_DENIED", "--filter", "allowed=denied")
	if !strings.HasPrefix(created.Secret, "whsec_") || len(created.Types) != 2 || created.Filters["type"] != "ACCESS_DENIED" || created.Filters["allowed"] != "denied" {
		t.Errorf("created %+v", created)
	}
	out, _, err := g.run(nil, "webhook", "list", "--org", org.ID)
	if err != nil || !strings.HasPrefix(out, created.ID+"  https://hooks.example.com/x  event.created,command.updated  enabled") || strings.Contains(out, "whsec_") {
		t.Errorf("list = %q, %v", out, err)
	}
	_, _, err = g.run(nil, "webhook", "create", "--org", org.ID, "--url", "http://127.0.0.1:9/x")
	if !errors.Is(err, gatehouse.ErrInvalid) {
		t.Errorf("a loopback target without the flag: %v", err)
	}
	if _, _, err := g.run(nil, "webhook", "create", "--org", org.ID, "--url", "http://127.0.0.1:9/x", "--webhooks-allow-private"); err != nil {
		t.Errorf("a loopback target with the flag: %v", err)
	}
	if _, _, err := g.run(nil, "webhook", "create", "--org", org.ID, "--url", "https://x.example", "--filter", "nonsense"); !isUsage(err) {
		t.Errorf("a filter without =: %v", err)
	}
	var rotated struct {
		Secret                  string
		PreviousSecretExpiresAt *time.Time
	}
	g.json(&rotated, "webhook", "rotate-secret", "--org", org.ID, "--overlap", "2h", created.ID)
	if !strings.HasPrefix(rotated.Secret, "whsec_") || rotated.Secret == created.Secret || rotated.PreviousSecretExpiresAt == nil {
		t.Errorf("rotate-secret = %+v", rotated)
	}
	if _, _, err := g.run(nil, "webhook", "rotate-secret", "--org", org.ID, "--overlap", "8d", created.ID); !errors.Is(err, gatehouse.ErrInvalid) {
		t.Errorf("an overlap past 7 days: %v", err)
	}
	out, _, err = g.run(nil, "webhook", "delete", "--org", org.ID, created.ID)
	if err != nil || !strings.Contains(out, "deleted webhook "+created.ID) {
		t.Errorf("delete = %q, %v", out, err)
	}
	if _, _, err := g.run(nil, "webhook", "delete", "--org", org.ID, created.ID); !errors.Is(err, gatehouse.ErrNotFound) {
		t.Errorf("delete again: %v", err)
	}
}
