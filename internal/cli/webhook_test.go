package cli_test

import (
	"errors"
	"strconv"
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

// TestWebhookReplayCommand: webhook replay needs a starting point (no
// default of the feed's start), counts first with --dry-run, and moves
// the endpoint from the start or a cursor.
func TestWebhookReplayCommand(t *testing.T) {
	g := newGH(t)
	var org record
	g.json(&org, "org", "create", "--name", "Acme")
	var created struct{ ID, Cursor string }
	g.json(&created, "webhook", "create", "--org", org.ID, "--url", "https://hooks.example.com/x")
	var loc, ap record
	g.json(&loc, "location", "create", "--org", org.ID, "--name", "HQ")
	g.json(&ap, "access-point", "create", "--location", loc.ID, "--name", "Gate")
	var lines []string
	for i := range 3 {
		lines = append(lines, `{"type":"ACCESS_DENIED","reason":"OUTSIDE_SCHEDULE","occurredAt":"`+eventDay+`T0`+strconv.Itoa(i+1)+`:04:05Z","accessPointId":"`+ap.ID+`"}`)
	}
	if _, _, err := g.run(strings.NewReader(strings.Join(lines, "\n")), "event", "import", "--org", org.ID, "-"); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{}, {"--after", ""}, {"--from", "beginning"}, {"--from", "start", "--after", created.Cursor}} {
		_, _, err := g.run(nil, append([]string{"webhook", "replay", "--org", org.ID, created.ID}, args...)...)
		if !isUsage(err) || !strings.Contains(err.Error(), "--from start") {
			t.Errorf("replay %v: %v, want a usage error naming the starting points", args, err)
		}
	}
	var counted struct {
		ReplayEvents int64
		DryRun       bool
	}
	g.json(&counted, "webhook", "replay", "--org", org.ID, "--from", "start", "--dry-run", created.ID)
	if !counted.DryRun || counted.ReplayEvents != 3 {
		t.Errorf("dry run = %+v", counted)
	}
	var replayed struct {
		ID, Cursor   string
		ReplayEvents int64
	}
	g.json(&replayed, "webhook", "replay", "--org", org.ID, "--from", "start", created.ID)
	if replayed.ID != created.ID || replayed.Cursor == "" || replayed.ReplayEvents != 3 {
		t.Errorf("replay from the start = %+v", replayed)
	}
	out, _, err := g.run(nil, "webhook", "replay", "--org", org.ID, "--after", created.Cursor, created.ID)
	if err != nil || !strings.Contains(out, "webhook "+created.ID+" replays 3 events") {
		t.Errorf("replay from its cursor = %q, %v", out, err)
	}
	if _, _, err := g.run(nil, "webhook", "replay", "--org", org.ID, "--after", "not-a-cursor", created.ID); !errors.Is(err, gatehouse.ErrInvalid) {
		t.Errorf("a bad cursor: %v", err)
	}
}
