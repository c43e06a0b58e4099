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

	"github.com/gatehouse/gatehouse/internal/cli"
)

// A file whose lines carry no id, imported twice, stores its events once;
// a file of which nothing is imported while lines are rejected exits 1,
// counting every rejected line.
func TestImportTwiceWithoutIDs(t *testing.T) {
	g := newGH(t)
	org, doors := g.place("Gate")
	var lines []string
	for i := range 3 {
		lines = append(lines, fmt.Sprintf(`{"type":"ACCESS_DENIED","occurredAt":"`+eventDay+`T10:00:0%dZ","accessPointId":%q,"allowed":"denied","platformUserId":"7"}`, i, doors[0].ID))
	}
	file := filepath.Join(t.TempDir(), "events.ndjson")
	if err := os.WriteFile(file, []byte(strings.Join(lines, "\n")), 0o600); err != nil {
		t.Fatal(err)
	}
	var sum summary
	g.json(&sum, "event", "import", "--org", org.ID, file)
	if sum.Imported != 3 {
		t.Fatalf("first import %+v", sum)
	}
	g.json(&sum, "event", "import", "--org", org.ID, file)
	if sum.Imported != 0 || sum.Duplicates != 3 || sum.Rejected != 0 {
		t.Errorf("second import %+v, want 3 duplicates", sum)
	}
	out, _, _ := g.run(nil, "event", "tail", "--org", org.ID, "--follow=false")
	if n := strings.Count(out, "\n"); n != 3 {
		t.Errorf("%d events stored, want 3", n)
	}

	bad := strings.Repeat("{\"type\":\"NOPE\"}\n", 1500)
	out, _, err := g.run(strings.NewReader(bad), "event", "import", "--org", org.ID, "--json")
	if json.Unmarshal([]byte(out), &sum) != nil || sum.Imported != 0 || sum.Rejected != 1500 || len(sum.Errors) != 1000 {
		t.Errorf("an import of bad lines printed %.200s", out)
	}
	if cli.ExitStatus(err) != 1 {
		t.Errorf("an import that stored nothing and rejected lines: %v (exit %d), want exit 1", err, cli.ExitStatus(err))
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
