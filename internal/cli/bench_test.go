package cli_test

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gatehouse/gatehouse/internal/cli"
)

// TestBenchSeedAndRun seeds a small synthetic log, serves it, and runs
// every query class briefly, with the store ceiling. It checks the
// benchmark works, not how fast anything is.
func TestBenchSeedAndRun(t *testing.T) {
	g := newGH(t)
	var seeded struct {
		Orgs []struct {
			ID     string
			Events int
		}
		Key string
	}
	g.json(&seeded, "bench", "seed", "--events", "6000", "--orgs", "3", "--seed", "7")
	if len(seeded.Orgs) != 3 || seeded.Orgs[0].Events != 3000 || seeded.Orgs[1].Events+seeded.Orgs[2].Events != 3000 {
		t.Fatalf("seeded %+v", seeded.Orgs)
	}
	base, stop := g.serve()
	defer stop()
	out, stderr, err := g.run(nil, "bench", "run", "--url", base, "--key", seeded.Key, "--org", seeded.Orgs[0].ID,
		"--duration", "30ms", "--concurrency", "2", "--json")
	if err != nil {
		t.Fatalf("bench run: %v\n%s", err, stderr)
	}
	var report struct {
		Results []struct {
			Class  string
			API    struct{ Requests, Errors int }
			Driver *struct{ Requests int }
		}
	}
	if err := json.Unmarshal([]byte(out), &report); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	var classes []string
	for _, r := range report.Results {
		classes = append(classes, r.Class)
		if r.API.Requests == 0 || r.API.Errors > 0 || (r.Class != "post_1000" && !strings.HasPrefix(r.Class, "insights_") && (r.Driver == nil || r.Driver.Requests == 0)) {
			t.Errorf("class %s: %+v", r.Class, r)
		}
	}
	if len(classes) != 33 || !strings.Contains(strings.Join(classes, ","), "page_50_allowed") || !strings.Contains(strings.Join(classes, ","), "insights_week") {
		t.Errorf("classes run: %v", classes)
	}
}

// TestBenchSeedOut writes a client-style log to a file, imports it with
// event import, and checks every event is stored; with --out - the log
// alone goes to stdout.
func TestBenchSeedOut(t *testing.T) {
	g := newGH(t)
	file := filepath.Join(t.TempDir(), "events.ndjson")
	var seeded struct {
		Orgs []struct {
			ID     string
			Events int
		}
		Key, Out string
	}
	g.json(&seeded, "bench", "seed", "--events", "3000", "--orgs", "2", "--ids", "v4", "--order", "shuffled", "--jobs", "50", "--out", file)
	if len(seeded.Orgs) != 2 || seeded.Orgs[0].Events != 1500 || seeded.Orgs[1].Events != 0 || seeded.Key == "" || seeded.Out != file {
		t.Fatalf("seeded %+v", seeded)
	}
	var sum struct{ Imported, Duplicates, Rejected int }
	g.json(&sum, "event", "import", "--org", seeded.Orgs[0].ID, file)
	if sum.Imported != 1500 || sum.Duplicates != 0 || sum.Rejected != 0 {
		t.Fatalf("import: %+v", sum)
	}

	out, stderr, err := newGH(t).run(nil, "bench", "seed", "--events", "200", "--orgs", "1", "--out", "-")
	if err != nil {
		t.Fatalf("bench seed --out -: %v\n%s", err, stderr)
	}
	if lines := strings.Split(strings.TrimSpace(out), "\n"); len(lines) != 200 || !strings.HasPrefix(lines[0], `{"id":`) {
		t.Errorf("stdout holds %d lines, first %q", len(lines), lines[0])
	}
	if !strings.Contains(stderr, "gatehouse event import --db ") || !strings.Contains(stderr, "bench key") {
		t.Errorf("stderr: %s", stderr)
	}

	for _, bad := range [][]string{{"--ids", "v1"}, {"--order", "random"}, {"--jobs", "0"}} {
		if _, _, err := newGH(t).run(nil, append([]string{"bench", "seed", "--events", "10"}, bad...)...); cli.ExitStatus(err) != 2 {
			t.Errorf("%v: %v, want a usage error", bad, err)
		}
	}
}
