package cli_test

import (
	"strings"
	"testing"

	"github.com/gatehouse/gatehouse/internal/cli"
)

// TestKeySetRate: key set-rate changes a key's rate and "default" clears
// it; a bad rate is a usage error that changes nothing.
func TestKeySetRate(t *testing.T) {
	g := newGH(t)
	var org, key record
	g.json(&org, "org", "create", "--name", "Acme")
	g.json(&key, "key", "create", "--org", org.ID, "--name", "game-servers", "--scopes", "server,events:write")
	var got struct {
		ID        string
		RateLimit *string
	}
	g.json(&got, "key", "set-rate", key.ID, "--rate-limit", "150/s")
	if got.ID != key.ID || got.RateLimit == nil || *got.RateLimit != "150/s" {
		t.Fatalf("set-rate 150/s: %+v", got)
	}
	out, _, err := g.run(nil, "key", "set-rate", key.ID, "--rate-limit", "default")
	if err != nil || !strings.Contains(out, "the server's default") {
		t.Fatalf("set-rate default: %v %q", err, out)
	}
	var keys []struct {
		ID        string
		RateLimit *string
	}
	g.json(&keys, "key", "list", "--org", org.ID)
	if len(keys) != 1 || keys[0].RateLimit != nil {
		t.Fatalf("after default: %+v", keys)
	}
	for _, args := range [][]string{
		{"key", "set-rate", key.ID, "--rate-limit", "fast"},
		{"key", "set-rate", key.ID},
		{"key", "set-rate", "--rate-limit", "1/s"},
	} {
		if _, _, err := g.run(nil, args...); cli.ExitStatus(err) != 2 {
			t.Errorf("gatehouse %s: %v, want a usage error", strings.Join(args, " "), err)
		}
	}
	if _, _, err := g.run(nil, "key", "set-rate", "01a203e2-9b00-7000-8a1b-2c3d4e5f6a01", "--rate-limit", "1/s"); err == nil {
		t.Error("set-rate of an unknown key succeeded")
	}
}

// TestKeyListMarksKeysExpiringSoon: a key that expires within 14 days is
// marked in the text (with a warning on stderr) and in --json.
func TestKeyListMarksKeysExpiringSoon(t *testing.T) {
	g := newGH(t)
	var org, soon, later record
	g.json(&org, "org", "create", "--name", "Acme")
	g.json(&soon, "key", "create", "--org", org.ID, "--name", "soon", "--scopes", "events:read", "--expires-in", "72h")
	g.json(&later, "key", "create", "--org", org.ID, "--name", "later", "--scopes", "events:read", "--expires-in", "720h")
	var keys []struct {
		ID          string
		ExpiresSoon bool
	}
	g.json(&keys, "key", "list", "--org", org.ID)
	for _, k := range keys {
		if want := k.ID == soon.ID; k.ExpiresSoon != want {
			t.Errorf("key %s: expiresSoon %v, want %v", k.ID, k.ExpiresSoon, want)
		}
	}
	out, errOut, err := g.run(nil, "key", "list", "--org", org.ID)
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		if marked := strings.Contains(line, "replace it"); marked != strings.HasPrefix(line, soon.ID) {
			t.Errorf("line %q: marked %v", line, marked)
		}
	}
	if !strings.Contains(errOut, "1 key(s) expire within 14 days") {
		t.Errorf("stderr %q, want a warning", errOut)
	}
}
