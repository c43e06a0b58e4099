package cli_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gatehouse/gatehouse"
	"github.com/gatehouse/gatehouse/internal/cli"
	"github.com/gatehouse/gatehouse/internal/testenv"
	"github.com/jackc/pgx/v5"
)

// gh runs one gatehouse command in-process against db and returns stdout.
type gh struct {
	t   *testing.T
	db  string
	env map[string]string
}

func newGH(t *testing.T) *gh {
	return &gh{t: t, db: filepath.Join(t.TempDir(), "gatehouse.db"), env: map[string]string{}}
}

func (g *gh) getenv(k string) string { return g.env[k] }

func (g *gh) run(stdin io.Reader, args ...string) (string, string, error) {
	g.t.Helper()
	var out, errOut bytes.Buffer
	if stdin == nil {
		stdin = strings.NewReader("")
	}
	err := cli.Run(context.Background(), append(args, "--db", g.db), g.getenv, stdin, &out, &errOut)
	return out.String(), errOut.String(), err
}

// json runs a command with --json and decodes its single document.
func (g *gh) json(v any, args ...string) {
	g.t.Helper()
	out, stderr, err := g.run(nil, append(args, "--json")...)
	if err != nil {
		g.t.Fatalf("gatehouse %s: %v\n%s", strings.Join(args, " "), err, stderr)
	}
	dec := json.NewDecoder(strings.NewReader(out))
	if err := dec.Decode(v); err != nil || dec.More() {
		g.t.Fatalf("gatehouse %s printed %q, not one JSON document (%v)", strings.Join(args, " "), out, err)
	}
}

type record struct {
	ID, Name, Key, Prefix, Status, LocationID string
	Scopes                                    []string
}

// eventDay is the date of the tests' events, yesterday in UTC: within
// any organization's retention, whatever day the tests run, and never
// ahead of the clock.
var eventDay = eventDays(0)

// eventDays is the date days after eventDay.
func eventDays(days int) string {
	return time.Now().UTC().AddDate(0, 0, days-1).Format(time.DateOnly)
}

type summary struct {
	Imported, Duplicates, Rejected int
	Errors                         []struct {
		Line  int
		Error string
	}
}

func TestEndToEnd(t *testing.T) {
	t.Run("sqlite", func(t *testing.T) { endToEnd(t, newGH(t)) })
	t.Run("postgres", func(t *testing.T) {
		g := newGH(t)
		g.db = testenv.PostgresDSN(t)
		endToEnd(t, g)
		// event import gathered the planner's statistics of what it
		// stored: this server's autovacuum is off.
		conn, err := pgx.Connect(context.Background(), g.db)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close(context.Background())
		var analyzed bool
		err = conn.QueryRow(context.Background(), `SELECT last_analyze IS NOT NULL FROM pg_stat_user_tables
			WHERE relid = 'events'::regclass`).Scan(&analyzed)
		if err != nil || !analyzed {
			t.Errorf("events analyzed after an import: %v, %v", analyzed, err)
		}
	})
}

func endToEnd(t *testing.T, g *gh) {
	var org, loc, ap, key record
	g.json(&org, "org", "create", "--name", "Acme Studio")
	g.json(&loc, "location", "create", "--org", org.ID, "--name", "HQ")
	g.json(&ap, "access-point", "create", "--location", loc.ID, "--name", "Front door")
	g.json(&key, "key", "create", "--org", org.ID, "--name", "warehouse", "--scopes", "events:read,events:write", "--expires-in", "720h")
	if ap.LocationID != loc.ID || !strings.HasPrefix(key.Key, key.Prefix) || len(key.Key) != 41 || key.Status != "active" {
		t.Fatalf("records: %+v %+v", ap, key)
	}

	other := record{}
	g.json(&other, "org", "create", "--name", "Other")
	var otherLoc, otherAP record
	g.json(&otherLoc, "location", "create", "--org", other.ID, "--name", "HQ")
	g.json(&otherAP, "access-point", "create", "--location", otherLoc.ID, "--name", "Front door")

	ev := func(id, apID string) string {
		return fmt.Sprintf(`{"id":%q,"type":"ACCESS_DENIED","reason":"OUTSIDE_SCHEDULE","occurredAt":"`+eventDay+`T03:04:05Z","accessPointId":%q,"platformUserId":"42"}`, id, apID)
	}
	lines := []string{
		ev("01a1ffff-0000-7000-8000-000000000001", ap.ID),
		`{"type":`, // 2: malformed JSON
		"",         // blank lines are skipped but counted
		`{"type":"ACCESS_GRANTED","accessPointId":"` + ap.ID + `"}`, // 4: missing occurredAt
		ev("01a1ffff-0000-7000-8000-000000000002", otherAP.ID),      // 5: another organization's door
		`{"type":"ACCESS_GRANTED","occurredAt":"` + eventDay + `T03:04:05Z","accessPointId":"` + ap.ID + `","x":"` + strings.Repeat("y", 1<<20) + `"}`, // 6: too long
		ev("01a1ffff-0000-7000-8000-000000000001", ap.ID), // 7: duplicate of line 1
		ev("01a1ffff-0000-7000-8000-000000000003", ap.ID),
		ev("01a1ffff-0000-7000-8000-000000000005", ap.ID) + "]",                                                 // 9: data after the object
		strings.Replace(ev("01a1ffff-0000-7000-8000-000000000006", ap.ID), "{", `{"type":"ACCESS_GRANTED",`, 1), // 10: type given twice
	}
	file := filepath.Join(t.TempDir(), "events.ndjson")
	if err := os.WriteFile(file, []byte(strings.Join(lines, "\n")), 0o600); err != nil {
		t.Fatal(err)
	}
	var sum summary
	g.json(&sum, "event", "import", "--org", org.ID, file)
	if sum.Imported != 2 || sum.Duplicates != 1 || sum.Rejected != 6 {
		t.Fatalf("summary %+v", sum)
	}
	var badLines []int
	for _, e := range sum.Errors {
		badLines = append(badLines, e.Line)
	}
	if fmt.Sprint(badLines) != "[2 4 5 6 9 10]" || !strings.Contains(sum.Errors[1].Error, "occurredAt") ||
		!strings.Contains(sum.Errors[5].Error, "type: is given more than once") {
		t.Errorf("errors %+v", sum.Errors)
	}
	// Importing the same file again stores nothing new, and having
	// imported nothing while it rejected lines, exits 1 after its summary.
	out, _, err := g.run(nil, "event", "import", "--org", org.ID, file, "--json")
	if json.Unmarshal([]byte(out), &sum) != nil || sum.Imported != 0 || sum.Duplicates != 3 || sum.Rejected != 6 {
		t.Errorf("second import %s", out)
	}
	if cli.ExitStatus(err) != 1 {
		t.Errorf("second import: %v, want exit status 1", err)
	}
	// Standard input works as "-".
	out, _, err = g.run(strings.NewReader(ev("01a1ffff-0000-7000-8000-000000000004", ap.ID)), "event", "import", "--org", org.ID, "-")
	if err != nil || !strings.Contains(out, "imported 1 events") {
		t.Errorf("import from stdin: %q %v", out, err)
	}

	// Insights count what was imported, once, and only this organization's.
	var counts []struct {
		Key, Label      string
		Granted, Denied int
	}
	g.json(&counts, "insights", "--org", org.ID, "--group-by", "accessPointId", "--date-from", eventDay)
	if len(counts) != 1 || counts[0].Key != ap.ID || counts[0].Label != "Front door" || counts[0].Denied != 3 {
		t.Errorf("insights by access point: %+v", counts)
	}
	out, _, err = g.run(nil, "insights", "--org", org.ID, "--group-by", "platformUserId", "--date-from", eventDay)
	if err != nil || !strings.Contains(out, "42") {
		t.Errorf("insights for people: %q %v", out, err)
	}
	if _, _, err := g.run(nil, "insights", "--org", org.ID, "--group-by", "door"); !errors.Is(err, gatehouse.ErrInvalid) {
		t.Errorf("an unknown grouping: %v", err)
	}

	// The raw key is printed by key create only.
	out, _, err = g.run(nil, "key", "list", "--org", org.ID, "--json")
	if err != nil || strings.Contains(out, key.Key) || !strings.Contains(out, key.Prefix) {
		t.Errorf("key list: %v\n%s", err, out)
	}

	// Serve, read the imported events with the key, stop with a drain.
	base, stop := g.serve()
	res := httpGet(t, base+"/api/consumer/v1/events?reason=OUTSIDE_SCHEDULE", key.Key)
	var list struct{ Data []struct{ ID string } }
	if err := json.Unmarshal(res, &list); err != nil || len(list.Data) != 3 {
		t.Fatalf("GET /events: %s", res)
	}
	var revoked record
	g.json(&revoked, "key", "revoke", key.ID)
	if revoked.Status != "revoked" {
		t.Errorf("revoked key status %q", revoked.Status)
	}
	deadline := time.Now().Add(time.Second)
	for {
		req, _ := http.NewRequest("GET", base+"/api/consumer/v1/events", nil)
		req.Header.Set("Authorization", "Bearer "+key.Key)
		r, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		r.Body.Close()
		if r.StatusCode == 401 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("a revoked key was still accepted after 1 s: %d", r.StatusCode)
		}
		time.Sleep(50 * time.Millisecond)
	}
	if err := stop(); err != nil {
		t.Errorf("serve returned %v after SIGTERM", err)
	}
}

// serve starts "gatehouse serve" on a free port and returns its URL and a
// function that stops it as SIGTERM would and returns Run's error.
func (g *gh) serve(extra ...string) (string, func() error) {
	g.t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	pr, pw := io.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- cli.Run(ctx, append([]string{"serve", "--db", g.db, "--addr", "127.0.0.1:0"}, extra...), g.getenv, strings.NewReader(""), io.Discard, pw)
		pw.Close()
	}()
	select {
	case a := <-listeningAddr(pr):
		stop := func() error { cancel(); return <-done }
		g.t.Cleanup(func() { cancel() })
		return "http://" + a, stop
	case err := <-done:
		g.t.Fatalf("serve exited: %v", err)
	case <-time.After(10 * time.Second):
		g.t.Fatal("serve did not start")
	}
	return "", nil
}

func httpGet(t *testing.T, url, key string) []byte {
	t.Helper()
	req, _ := http.NewRequest("GET", url, nil)
	req.Header.Set("Authorization", "Bearer "+key)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return b
}

func TestUsageErrors(t *testing.T) {
	g := newGH(t)
	for _, args := range [][]string{
		{"frobnicate"},
		{"org", "create"},
		{"org", "create", "--name", "x", "--bogus"},
		{"key", "create", "--org", "not-a-uuid", "--name", "k", "--scopes", "events:read"},
		{"key", "create", "--org", "01a1ffff-0000-7000-8000-000000000001", "--name", "k", "--scopes", "events:delete"},
		{"key", "create", "--org", "01a1ffff-0000-7000-8000-000000000001", "--name", "k", "--scopes", "events:read", "--expires-in", "1h", "--expires-at", "2030-01-01T00:00:00Z"},
		{"key", "revoke"},
		{"serve", "--rate-limit", "fast"},
		{"serve", "--trusted-proxies", "10.0.0.0/33"},
		{"serve", "--opencloud-url", "apis.roblox.com"},
		{"serve", "--opencloud-url", "ftp://apis.roblox.com"},
		{"serve", "--db-replica", "postgres://replica/db"}, // a replica of a SQLite file
		{"serve", "--oidc-issuer", "accounts.example.com", "--oidc-client-id", "g", "--public-url", "https://gh.example.com"},
		{"serve", "--oidc-issuer", "http://accounts.example.com", "--oidc-client-id", "g", "--public-url", "https://gh.example.com"}, // http off loopback
		{"serve", "--oidc-issuer", "https://accounts.example.com", "--public-url", "https://gh.example.com"},                         // no client id
		{"serve", "--oidc-issuer", "https://accounts.example.com", "--oidc-client-id", "g"},                                          // no --public-url
		{"serve", "--oidc-client-id", "g"}, // no issuer
	} {
		_, _, err := g.run(nil, args...)
		var usage *cli.UsageError
		if !errors.As(err, &usage) || err.Error() == "" {
			t.Errorf("gatehouse %s: %v, want a usage error", strings.Join(args, " "), err)
		}
	}
	// A record that does not exist is an error, not a usage error.
	_, _, err := g.run(nil, "key", "revoke", "01a1ffff-0000-7000-8000-000000000001")
	var usage *cli.UsageError
	if err == nil || errors.As(err, &usage) {
		t.Errorf("revoke of an unknown key: %v", err)
	}
}

func TestFlagBeatsEnvironment(t *testing.T) {
	dir := t.TempDir()
	envDB, flagDB := filepath.Join(dir, "env.db"), filepath.Join(dir, "flag.db")
	getenv := func(k string) string {
		if k == "GATEHOUSE_DB" {
			return envDB
		}
		return ""
	}
	run := func(args ...string) string {
		t.Helper()
		var out bytes.Buffer
		if err := cli.Run(context.Background(), args, getenv, strings.NewReader(""), &out, io.Discard); err != nil {
			t.Fatal(err)
		}
		return out.String()
	}
	run("org", "create", "--name", "InEnv")
	run("org", "create", "--name", "InFlag", "--db", flagDB)
	if got := run("org", "list"); !strings.Contains(got, "InEnv") || strings.Contains(got, "InFlag") {
		t.Errorf("GATEHOUSE_DB database lists %q", got)
	}
	if got := run("org", "list", "--db", "sqlite:"+flagDB); !strings.Contains(got, "InFlag") || strings.Contains(got, "InEnv") {
		t.Errorf("--db database lists %q", got)
	}
}

// listeningAddr reads a server's JSON log and sends the address of its
// "listening" line.
func listeningAddr(log io.Reader) <-chan string {
	addr := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(log)
		for sc.Scan() {
			var line struct{ Msg, Addr string }
			if json.Unmarshal(sc.Bytes(), &line) == nil && line.Msg == "listening" {
				addr <- line.Addr
			}
		}
	}()
	return addr
}

// newBackendGH is newGH on the backend GATEHOUSE_TEST_BACKEND names:
// sqlite (the default) or postgres, like the API's tests.
func newBackendGH(t *testing.T) *gh {
	t.Helper()
	g := newGH(t)
	switch backend := os.Getenv("GATEHOUSE_TEST_BACKEND"); backend {
	case "", "sqlite":
	case "postgres":
		g.db = testenv.PostgresDSN(t)
	default:
		t.Fatalf("GATEHOUSE_TEST_BACKEND=%q: want sqlite or postgres", backend)
	}
	return g
}

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
