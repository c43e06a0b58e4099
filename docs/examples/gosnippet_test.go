package examples_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/gatehouse/gatehouse"
	"github.com/gatehouse/gatehouse/internal/apitest"
	"github.com/gatehouse/gatehouse/internal/ratelimit"
)

// goSnippet is the first Go block of the guide's "Go" section.
var goSnippet = regexp.MustCompile("(?s)\n## Go\n.*?```go\n(.*?)```")

// TestGoSnippetRuns compiles and runs the Go snippet of
// docs/guide/examples.md, as a reader would paste it into a function that
// returns an error, against a live server holding what the demo data
// holds: denials with a reason and without one.
func TestGoSnippetRuns(t *testing.T) {
	doc, err := os.ReadFile("../guide/examples.md")
	if err != nil {
		t.Fatal(err)
	}
	m := goSnippet.FindSubmatch(doc)
	if m == nil {
		t.Fatal("no Go block under ## Go in docs/guide/examples.md")
	}
	a := apitest.Start(t, ratelimit.Limit{Rate: gatehouse.Rate{Count: 1000, Per: time.Second}, Burst: 1000})
	now := time.Now() // the snippet works by the real clock: the last week, an attempt now
	if d := now.Sub(a.Clock.Now()); d > 0 {
		a.Clock.Advance(d)
	}
	events := []gatehouse.NewEvent{
		{ID: gatehouse.NewID(), Type: gatehouse.EventAccessDenied, Allowed: ptr(gatehouse.Denied), Reason: ptr("OUTSIDE_SCHEDULE"),
			OccurredAt: gatehouse.Truncate(now.Add(-time.Hour)), AccessPointID: a.AccessPointID},
		{ID: gatehouse.NewID(), Type: gatehouse.EventAccessDenied, Allowed: ptr(gatehouse.Denied),
			OccurredAt: gatehouse.Truncate(now.Add(-2 * time.Hour)), AccessPointID: a.AccessPointID},
	}
	if _, err := a.Store.IngestEvents(context.Background(), a.OrgID, events); err != nil {
		t.Fatal(err)
	}
	snippet := strings.ReplaceAll(string(m[1]), "http://localhost:8080", a.URL)
	program := `package main

import (
	"context"
	"errors"
	"fmt"
	"log"
	"os"
	"time"

	"github.com/gatehouse/gatehouse/client"
)

var _, _, _ = errors.As, log.Printf, time.Now // whichever the snippet does not use

func main() {
	if err := run(context.Background(), os.Args[1]); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

func run(ctx context.Context, accessPointID string) error {
` + snippet + `	return nil
}
`
	file := filepath.Join(t.TempDir(), "main.go")
	if err := os.WriteFile(file, []byte(program), 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("go", "run", file, a.AccessPointID.String())
	cmd.Env = append(os.Environ(), "GATEHOUSE_KEY="+a.Key)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("the snippet failed: %v\n%s\n%s", err, out, program)
	}
	for _, want := range []string{"OUTSIDE_SCHEDULE", " -\n", "1 accepted"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("the snippet printed %q, want %q in it", out, want)
		}
	}
}
