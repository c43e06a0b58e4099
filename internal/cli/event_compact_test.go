package cli_test

import (
	"strings"
	"testing"

	"github.com/gatehouse/gatehouse/internal/testenv"
)

// TestEventCompact: on PostgreSQL, the command rebuilds the past months of
// a log that spans two years (bench seed) and says how many; a second run
// finds none left.
func TestEventCompact(t *testing.T) {
	g := newGH(t)
	g.db = testenv.PostgresDSN(t)
	if _, _, err := g.run(nil, "bench", "seed", "--events", "2000", "--orgs", "1"); err != nil {
		t.Fatal(err)
	}
	var got struct{ Months int }
	g.json(&got, "event", "compact")
	if got.Months < 20 {
		t.Errorf("event compact rebuilt %d months of a two-year log, want 20 or more", got.Months)
	}
	out, _, err := g.run(nil, "event", "compact")
	if err != nil || !strings.Contains(out, "rebuilt the indexes of 0 months of events") {
		t.Errorf("event compact again: %v\n%s", err, out)
	}
}
