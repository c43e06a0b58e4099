package cli_test

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/gatehouse/gatehouse"
)

type messagingRecord struct {
	UniverseID, Hint, CreatedAt string
}

// TestMessagingCommands: the key comes from stdin only, is answered by
// its hint and never printed, listed per organization, and removed.
func TestMessagingCommands(t *testing.T) {
	g := newGH(t)
	var acme, beta record
	g.json(&acme, "org", "create", "--name", "Acme")
	g.json(&beta, "org", "create", "--name", "Beta")
	const key = "oc-api-key-0123456789-abcdefWXYZ"
	out, stderr, err := g.run(strings.NewReader(key+"\n"), "messaging", "set", "--org", acme.ID, "--universe-id", "42", "--json")
	if err != nil {
		t.Fatalf("messaging set: %v\n%s", err, stderr)
	}
	var set messagingRecord
	if err := json.Unmarshal([]byte(out), &set); err != nil || strings.Contains(out+stderr, key) || set.Hint != "WXYZ" || set.UniverseID != "42" {
		t.Errorf("messaging set printed %q %q: want the hint, never the key", out, stderr)
	}
	if out, _, err := g.run(strings.NewReader("another-key-0123456789-beta"), "messaging", "set", "--org", beta.ID, "--universe-id", "7"); err != nil || !strings.Contains(out, "…beta") {
		t.Errorf("messaging set for people: %q %v", out, err)
	}
	var list []messagingRecord
	g.json(&list, "messaging", "list", "--org", acme.ID)
	if len(list) != 1 || list[0].UniverseID != "42" || list[0].Hint != "WXYZ" || list[0].CreatedAt == "" {
		t.Errorf("messaging list = %+v", list)
	}
	if out, _, err := g.run(nil, "messaging", "list", "--org", acme.ID); err != nil || !strings.HasPrefix(out, "42  …WXYZ  ") || strings.Count(out, "\n") != 1 {
		t.Errorf("messaging list for people: %q %v", out, err)
	}

	for _, args := range [][]string{
		{"messaging", "set", "--org", acme.ID, "--universe-id", "42", key}, // the key as an argument
		{"messaging", "set", "--org", acme.ID},                             // no universe
		{"messaging", "set", "--universe-id", "42"},                        // no organization
	} {
		if _, _, err := g.run(strings.NewReader(key), args...); !isUsage(err) {
			t.Errorf("gatehouse %s: %v, want a usage error", strings.Join(args, " "), err)
		}
	}
	if _, _, err := g.run(nil, "messaging", "set", "--org", acme.ID, "--universe-id", "42"); !isUsage(err) {
		t.Errorf("messaging set with nothing on stdin: %v, want a usage error", err)
	}
	if _, _, err := g.run(strings.NewReader("short"), "messaging", "set", "--org", acme.ID, "--universe-id", "42"); !errors.Is(err, gatehouse.ErrInvalid) {
		t.Errorf("a key too short: %v, want ErrInvalid", err)
	}

	if _, _, err := g.run(nil, "messaging", "remove", "--org", beta.ID, "--universe-id", "42"); !errors.Is(err, gatehouse.ErrNotFound) {
		t.Errorf("removing from another organization: %v, want ErrNotFound", err)
	}
	if out, _, err := g.run(nil, "messaging", "remove", "--org", acme.ID, "--universe-id", "42"); err != nil || !strings.Contains(out, "universe 42") {
		t.Errorf("messaging remove: %q %v", out, err)
	}
	g.json(&list, "messaging", "list", "--org", acme.ID)
	if len(list) != 0 {
		t.Errorf("after remove, messaging list = %+v", list)
	}
	var audit []struct{ Action string }
	g.json(&audit, "audit", "list", "--org", acme.ID, "--action", "messaging.set")
	if len(audit) != 1 {
		t.Errorf("audit of messaging.set: %+v", audit)
	}
}
