package cli_test

import (
	"encoding/json"
	"strings"
	"testing"
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
		if r.API.Requests == 0 || r.API.Errors > 0 || (r.Class != "post_1000" && (r.Driver == nil || r.Driver.Requests == 0)) {
			t.Errorf("class %s: %+v", r.Class, r)
		}
	}
	if len(classes) != 17 || !strings.Contains(strings.Join(classes, ","), "page_50_allowed") {
		t.Errorf("classes run: %v", classes)
	}
}
