package cli_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

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
