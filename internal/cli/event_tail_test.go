package cli_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// event tail writes the feed as NDJSON, in the order stored; with a
// cursor file it resumes after what it wrote last time; its filters and
// cursor are checked, and their problems named by flag.
func TestEventTail(t *testing.T) {
	g := newGH(t)
	org, doors := g.place("Gate", "Vault")
	gate, vault := doors[0], doors[1]
	importLines := func(aps ...string) {
		t.Helper()
		var lines []string
		for i, ap := range aps {
			// Stored in this order, occurred in the opposite.
			lines = append(lines, fmt.Sprintf(`{"type":"ACCESS_GRANTED","occurredAt":"%sT10:00:00Z","accessPointId":%q}`, eventDays(-i), ap))
		}
		if _, _, err := g.run(strings.NewReader(strings.Join(lines, "\n")), "event", "import", "--org", org.ID); err != nil {
			t.Fatal(err)
		}
	}
	tail := func(args ...string) []string {
		t.Helper()
		out, _, err := g.run(nil, append([]string{"event", "tail", "--org", org.ID, "--follow=false"}, args...)...)
		if err != nil {
			t.Fatal(err)
		}
		var days []string
		for line := range strings.Lines(out) {
			var ev struct{ OccurredAt string }
			if err := json.Unmarshal([]byte(line), &ev); err != nil {
				t.Fatalf("not a JSON line: %q", line)
			}
			days = append(days, ev.OccurredAt[8:10])
		}
		return days
	}
	day := func(i int) string { return eventDays(-i)[8:10] }
	importLines(gate.ID, vault.ID, gate.ID)
	cursor := filepath.Join(t.TempDir(), "tail.cursor")
	if got, want := strings.Join(tail("--cursor-file", cursor), " "), day(0)+" "+day(1)+" "+day(2); got != want {
		t.Errorf("first tail: days %s, want the storage order %s", got, want)
	}
	importLines(vault.ID)
	if got := strings.Join(tail("--cursor-file", cursor), " "); got != day(0) {
		t.Errorf("resumed tail: days %s, want only the new event's %s", got, day(0))
	}
	if b, err := os.ReadFile(cursor); err != nil || len(strings.TrimSpace(string(b))) == 0 {
		t.Errorf("cursor file: %q, %v", b, err)
	}
	if got := len(tail("--access-point", vault.ID)); got != 2 {
		t.Errorf("--access-point: %d events, want 2", got)
	}
	_, _, err := g.run(nil, "event", "tail", "--org", org.ID, "--follow=false", "--type", "NOPE", "--after", "zz")
	if err == nil || !strings.Contains(err.Error(), "--type") || !strings.Contains(err.Error(), "--after") {
		t.Errorf("bad filters: %v, want both flags named", err)
	}
}
