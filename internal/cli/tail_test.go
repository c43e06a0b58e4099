package cli_test

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// place creates an organization "Acme" with one location and the named
// access points.
func (g *gh) place(doors ...string) (org record, aps []record) {
	g.t.Helper()
	var loc record
	g.json(&org, "org", "create", "--name", "Acme")
	g.json(&loc, "location", "create", "--org", org.ID, "--name", "HQ")
	aps = make([]record, len(doors))
	for i, name := range doors {
		g.json(&aps[i], "access-point", "create", "--location", loc.ID, "--name", name)
	}
	return org, aps
}

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

// An import whose input pauses commits what it stored before it waits:
// the events are readable (here through event tail, another connection)
// while the producer is silent, and SQLite's one writer is free.
func TestEventImportCommitsWhileItsInputWaits(t *testing.T) {
	g := newGH(t)
	org, doors := g.place("Gate")
	door := doors[0]
	in, producer := io.Pipe()
	done := make(chan error, 1)
	go func() {
		_, _, err := g.run(in, "event", "import", "--org", org.ID)
		done <- err
	}()
	const first = 10_000 // one batch of the importer
	var lines strings.Builder
	for i := range first + 1 { // each another player's: no two are the same event
		fmt.Fprintf(&lines, `{"type":"ACCESS_GRANTED","occurredAt":"`+eventDay+`T10:00:00Z","accessPointId":%q,"platformUserId":"%d"}`+"\n", door.ID, i)
	}
	if _, err := io.WriteString(producer, lines.String()); err != nil {
		t.Fatal(err)
	}
	// The producer pauses: the first batch is stored and committed.
	deadline := time.Now().Add(20 * time.Second)
	for {
		out, _, err := g.run(nil, "event", "tail", "--org", org.ID, "--follow=false")
		if err != nil {
			t.Fatal(err)
		}
		if n := strings.Count(out, "\n"); n == first {
			break
		} else if time.Now().After(deadline) {
			t.Fatalf("%d events readable while the input waits, want the first batch's %d", n, first)
		}
		time.Sleep(50 * time.Millisecond)
	}
	producer.Close()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}
