package cli_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"io/fs"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gatehouse/gatehouse"
	"github.com/gatehouse/gatehouse/internal/cli"
	"github.com/gatehouse/gatehouse/internal/demo"
	"github.com/gatehouse/gatehouse/internal/sqlite"
	"github.com/gatehouse/gatehouse/internal/testenv"
)

func TestDemoSeedIsReused(t *testing.T) {
	ctx := context.Background()
	db, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "demo.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if err := db.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	now := time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)
	org, created, err := demo.Seed(ctx, db, now, 1500)
	if err != nil || !created {
		t.Fatalf("first seed: %v %v", created, err)
	}
	again, created, err := demo.Seed(ctx, db, now, 1500)
	if err != nil || created || again.ID != org.ID {
		t.Fatalf("second seed: %v %v %v", again.ID, created, err)
	}
	orgs, _ := db.ListOrganizations(ctx)
	if len(orgs) != 1 {
		t.Errorf("%d organizations after two seeds", len(orgs))
	}
	// Count by walking all pages, and check the mix the demo promises.
	counts := map[string]int{}
	var f = gatehouse.EventFilter{Limit: 500}
	for {
		page, err := db.ListEvents(ctx, org.ID, f)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range page.Events {
			counts[string(e.Type)]++
			if e.Scope != nil {
				counts[string(*e.Scope)]++
			}
			if e.Command != nil {
				counts["command "+string(e.Command.Status)]++
			}
			if e.Reason != nil {
				counts["reason "+*e.Reason]++ // REMOTE_UNLOCK is also a type
			}
			if time.Time(e.OccurredAt).Before(now.AddDate(0, 0, -90)) || time.Time(e.OccurredAt).After(now) {
				t.Fatalf("event outside the last 90 days: %v", time.Time(e.OccurredAt))
			}
		}
		if page.Next == nil {
			break
		}
		f.After = page.Next
	}
	total := counts["ACCESS_GRANTED"] + counts["ACCESS_DENIED"] + counts["REMOTE_UNLOCK"]
	if total != 1500 || counts["ACCESS_DENIED"] < 150 || counts["REMOTE_UNLOCK"] < 10 {
		t.Errorf("event mix %v", counts)
	}
	for _, want := range []string{"UNIVERSE", "SERVER", "PLAYER", "reason OUTSIDE_SCHEDULE", "reason NOT_ON_ALLOWLIST", "reason ACCESS_POINT_DISABLED",
		"reason BLOCKED", "reason REMOTE_UNLOCK", "command EXECUTED"} {
		if counts[want] == 0 {
			t.Errorf("the demo has no %s: %v", want, counts)
		}
	}
}

// demoRun is gatehouse demo running in-process until the test ends.
type demoRun struct {
	stdout string // what it printed before serving
	stop   func() // cancels it as SIGTERM would, and waits
}

// startDemoRun runs gatehouse demo on db on a free port, in-process, and
// returns once it listens.
func startDemoRun(t *testing.T, db string, args ...string) demoRun {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	var stdout testenv.LogBuffer
	pr, pw := io.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- cli.Run(ctx, append([]string{"demo", "--db", db, "--addr", "127.0.0.1:0"}, args...),
			func(string) string { return "" }, strings.NewReader(""), &stdout, pw)
		pw.Close()
	}()
	var once sync.Once
	stop := func() { once.Do(func() { cancel(); <-done }) }
	t.Cleanup(stop)
	select {
	case <-listeningAddr(pr):
		return demoRun{stdout: stdout.String(), stop: stop}
	case err := <-done:
		t.Fatalf("demo exited: %v\n%s", err, stdout.String())
	case <-time.After(60 * time.Second):
		t.Fatal("demo did not start")
	}
	return demoRun{}
}

// demoJSON is what demo --json prints.
type demoJSON struct {
	Organization struct{ ID string }
	Key          record
	ReplacedKeys []string
	Variables    map[string]string
	Curl         []string
	Unlock       []string
	Policy       []string
}

func startDemoJSON(t *testing.T, db string) (demoJSON, demoRun) {
	t.Helper()
	run := startDemoRun(t, db, "--json")
	var out demoJSON
	if err := json.Unmarshal([]byte(run.stdout), &out); err != nil {
		t.Fatalf("demo --json printed %q: %v", run.stdout, err)
	}
	return out, run
}

var (
	shellUse    = regexp.MustCompile(`\$\{?([A-Z][A-Z0-9_]*)`)
	shellAssign = regexp.MustCompile(`(?m)^\s*(?:export\s+)?([A-Z][A-Z0-9_]*)=(\$\()?`)
	// read -r NAME: a line a guide reads from a program it started (its
	// receiver's URL, a delivery).
	shellRead  = regexp.MustCompile(`\bread -r (?:-t \d+ )?([A-Z][A-Z0-9_]*)`)
	shellBlock = regexp.MustCompile("(?s)```sh\n(.*?)```")
)

// demoEndpoints are the scopes of the requests the README documents.
var demoEndpoints = map[string]gatehouse.Scope{
	"GET /events":    gatehouse.ScopeEventsRead,
	"POST /events":   gatehouse.ScopeEventsWrite,
	"GET /locations": gatehouse.ScopeLocationsRead,
}

// TestDemoReplacesItsKey: every run prints a new key (the old one cannot be
// shown again) and revokes the previous one, so the organization has one
// active demo key, and says so.
func TestDemoReplacesItsKey(t *testing.T) {
	db := filepath.Join(t.TempDir(), "demo.db")
	first, run := startDemoJSON(t, db)
	if first.Key.Name != "demo" || len(first.ReplacedKeys) != 0 {
		t.Errorf("first run: key %q, replaced %v", first.Key.Name, first.ReplacedKeys)
	}
	run.stop()

	second := startDemoRun(t, db) // the human output this time
	g := &gh{t: t, db: db, env: map[string]string{}}
	var keys []record
	g.json(&keys, "key", "list", "--org", first.Organization.ID)
	var active []string
	for _, k := range keys {
		if k.Name == "demo" && k.Status == "active" {
			active = append(active, k.Prefix)
		}
	}
	if len(active) != 1 || active[0] == first.Key.Prefix {
		t.Errorf("active demo keys after two runs: %v, want the second run's alone", active)
	}
	keyLine := regexp.MustCompile(`(?m)^  KEY=(gk_\S+)$`).FindStringSubmatch(second.stdout)
	apiLine := regexp.MustCompile(`(?m)^  API=(\S+)$`).FindStringSubmatch(second.stdout)
	if keyLine == nil || apiLine == nil {
		t.Fatalf("the second run prints no KEY= and API= lines:\n%s", second.stdout)
	}
	if !strings.Contains(second.stdout, first.Key.Prefix) || !strings.Contains(second.stdout, "revoked") {
		t.Errorf("the second run does not say it revoked %s:\n%s", first.Key.Prefix, second.stdout)
	}
	if !strings.Contains(second.stdout, `"demo" (`+strings.Join(first.Key.Scopes, ", ")+")") {
		t.Errorf("the second run does not name its key's scopes %v:\n%s", first.Key.Scopes, second.stdout)
	}
	if got := httpStatus(t, apiLine[1]+"/events?limit=1", first.Key.Key); got != http.StatusUnauthorized {
		t.Errorf("the first run's key after the second run: %d, want 401", got)
	}
	if got := httpStatus(t, apiLine[1]+"/events?limit=1", keyLine[1]); got != http.StatusOK {
		t.Errorf("the second run's key: %d", got)
	}
	if len(active) == 1 && !strings.HasPrefix(keyLine[1], active[0]) {
		t.Errorf("the active demo key is %s, not the one the second run printed", active[0])
	}
}

func httpStatus(t *testing.T, url, key string) int {
	t.Helper()
	req, _ := http.NewRequest("GET", url, nil)
	req.Header.Set("Authorization", "Bearer "+key)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	return res.StatusCode
}

// TestDemoChecksItsAddressesFirst: an address in use stops the demo with
// an error naming the flag, before it creates a database, an organization
// or a key, and without revoking the key of the demo that holds the port.
func TestDemoChecksItsAddressesFirst(t *testing.T) {
	taken, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer taken.Close()
	for _, args := range [][]string{
		{"--addr", taken.Addr().String()},
		{"--metrics-addr", taken.Addr().String()},
	} {
		db := filepath.Join(t.TempDir(), "demo.db")
		var stdout bytes.Buffer
		err := cli.Run(context.Background(), append([]string{"demo", "--db", db, "--addr", "127.0.0.1:0"}, args...),
			func(string) string { return "" }, strings.NewReader(""), &stdout, io.Discard)
		if err == nil || !strings.Contains(err.Error(), args[0]+" "+taken.Addr().String()) || !strings.Contains(err.Error(), "in use") {
			t.Errorf("demo %v: %v, want an error naming %s as in use", args, err, args[0])
		}
		if _, statErr := os.Stat(db); !errors.Is(statErr, fs.ErrNotExist) {
			t.Errorf("demo %v created the database before failing (%v)", args, statErr)
		}
		if stdout.Len() > 0 {
			t.Errorf("demo %v printed %q before failing", args, stdout.String())
		}
	}

	// A second demo on the database and port of a running one.
	db := filepath.Join(t.TempDir(), "demo.db")
	out, _ := startDemoJSON(t, db)
	addr := strings.TrimPrefix(strings.TrimSuffix(out.Variables["API"], "/api/consumer/v1"), "http://")
	if addr == "" {
		t.Fatalf("the demo prints no API variable: %v", out.Variables)
	}
	// Should it listen after all, the deadline ends it.
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	err = cli.Run(ctx, []string{"demo", "--db", db, "--addr", addr},
		func(string) string { return "" }, strings.NewReader(""), io.Discard, io.Discard)
	if err == nil || !strings.Contains(err.Error(), "in use") {
		t.Errorf("a second demo on %s: %v", addr, err)
	}
	if got := httpStatus(t, out.Variables["API"]+"/events?limit=1", out.Key.Key); got != http.StatusOK {
		t.Errorf("the running demo's key after a second demo failed to start: %d", got)
	}
	g := &gh{t: t, db: db, env: map[string]string{}}
	var keys []record
	g.json(&keys, "key", "list", "--org", out.Organization.ID)
	if len(keys) != 1 {
		t.Errorf("%d keys after a demo that could not listen, want 1", len(keys))
	}
}
