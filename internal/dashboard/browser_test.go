package dashboard_test

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gatehouse/gatehouse"
	"github.com/gatehouse/gatehouse/internal/demo"
	"github.com/gatehouse/gatehouse/internal/password"
	"github.com/gatehouse/gatehouse/internal/testenv"
	"github.com/google/uuid"
)

// TestBrowser drives the dashboard in Debian's chromium, headless, with
// playwright-core (browsertest/run.mjs): the operator's whole round from
// sign-in to sign-out, on the demo data, in real time, a remote unlock
// that a game server played here executes, and an access point's policy
// edited and tested. Screenshots of each
// page go to $GATEHOUSE_ARTIFACTS/dashboard (a temporary directory when
// unset; the test logs where). .ci/run installs chromium and the npm
// package; without them the test skips.
func TestBrowser(t *testing.T) {
	b := newBrowserRun(t, "dashboard")
	s := newSiteWithClock(t, time.Now)
	ctx := context.Background()
	org, _, err := demo.Seed(ctx, s.store, time.Now(), 600)
	if err != nil {
		t.Fatal(err)
	}
	hash, _ := password.Hash(testPassword)
	if _, err := s.store.CreateUser(ctx, gatehouse.SystemEntry(gatehouse.AuditUserAdded), gatehouse.User{OrgID: org.ID, Email: "operator@demo.test", Name: "Operator", Role: gatehouse.RoleAdmin, PasswordHash: hash, Proven: true}, nil); err != nil {
		t.Fatal(err)
	}

	if _, err := s.store.CreateUser(ctx, gatehouse.SystemEntry(gatehouse.AuditUserAdded), gatehouse.User{OrgID: org.ID, Email: "floor@demo.test", Name: "Floor operator", Role: gatehouse.RoleOperator, PasswordHash: hash, Proven: true}, nil); err != nil {
		t.Fatal(err)
	}
	// An audit entry as wide as they come: a key of every scope, made by
	// a user from an IPv6 address (the page must still fit at 1280 px).
	admin := gatehouse.WithActor(ctx, gatehouse.Actor{Type: gatehouse.ActorUser, ID: uuid.New(), Label: "operator@demo.test", OrgID: org.ID,
		Role: gatehouse.RoleAdmin, ClientAddress: "2001:db8:85a3:1234:5678:8a2e:370:7334", RequestID: "0123456789abcdef01234567"})
	if _, _, err := s.svc.CreateAPIKey(admin, gatehouse.NewAPIKey{OrgID: org.ID, Name: "warehouse-export-nightly-full-access", Scopes: gatehouse.Scopes}); err != nil {
		t.Fatal(err)
	}

	// A game server of the universe the script gives Downtown Club: it
	// executes what it receives, so the unlock the script issues settles.
	serving, stopServing := context.WithCancel(ctx)
	served := make(chan struct{})
	go func() {
		defer close(served)
		playGameServer(serving, s, org.ID, browserUniverse, browserJob)
	}()
	defer func() { stopServing(); <-served }()

	b.run(s, "run.mjs", "EMAIL=operator@demo.test", "OPERATOR_EMAIL=floor@demo.test", "PASSWORD="+testPassword,
		"UNIVERSE="+browserUniverse, "SERVER_JOB="+browserJob)
}

// browserRun runs scripts of browsertest in Debian's chromium, headless,
// with playwright-core. newBrowserRun skips the test (fails in CI)
// without node, chromium or the npm package, which .ci/run installs.
// Screenshots go to $GATEHOUSE_ARTIFACTS/dir, or a temporary directory
// when it is unset; the test logs where.
type browserRun struct {
	t                     *testing.T
	node, chromium, shots string
}

func newBrowserRun(t *testing.T, dir string) browserRun {
	t.Helper()
	b := browserRun{t: t, chromium: os.Getenv("GATEHOUSE_CHROMIUM")}
	if b.chromium == "" {
		b.chromium = "/usr/bin/chromium"
	}
	var err error
	if b.node, err = exec.LookPath("node"); err != nil {
		testenv.Missing(t, "node is not installed")
	}
	if _, err := os.Stat(b.chromium); err != nil {
		testenv.Missing(t, "chromium is not installed at %s (apt-get install chromium)", b.chromium)
	}
	if _, err := os.Stat("browsertest/node_modules/playwright-core"); err != nil {
		testenv.Missing(t, "playwright-core is not installed: npm ci --prefix internal/dashboard/browsertest")
	}
	b.shots = filepath.Join(os.Getenv("GATEHOUSE_ARTIFACTS"), dir)
	if os.Getenv("GATEHOUSE_ARTIFACTS") == "" {
		b.shots = t.TempDir()
	}
	if err := os.MkdirAll(b.shots, 0o755); err != nil {
		t.Fatal(err)
	}
	return b
}

// run runs script against the site with env beside BASE, CHROMIUM and
// SHOTS, and fails the test when it fails.
func (b browserRun) run(s *site, script string, env ...string) {
	b.t.Helper()
	run := exec.Command(b.node, script)
	run.Dir = "browsertest"
	run.Env = append(append(os.Environ(), "BASE="+s.url, "CHROMIUM="+b.chromium, "SHOTS="+b.shots), env...)
	var out, stderr bytes.Buffer
	run.Stdout, run.Stderr = &out, &stderr
	started := time.Now()
	err := run.Run()
	b.t.Logf("%s took %v", script, time.Since(started))
	b.t.Logf("%s: %s", script, strings.TrimSpace(out.String()))
	b.t.Logf("screenshots in %s", b.shots)
	if err != nil {
		b.t.Fatalf("%s: %v\n%s", script, err, stderr.String())
	}
}

// The game server TestBrowser plays, and its universe.
const (
	browserUniverse = "4242"
	browserJob      = "browser-job-1"
)

// playGameServer syncs as a game server of universe until ctx ends, as
// the SDK's loop does: each call long-polls for a second and
// acknowledges, as executed, the commands the previous one received.
func playGameServer(ctx context.Context, s *site, orgID uuid.UUID, universe, job string) {
	ctx = gatehouse.WithActor(ctx, gatehouse.Actor{Type: gatehouse.ActorKey, ID: uuid.New(), OrgID: orgID})
	wait := 1
	var cursor *string
	var acks []gatehouse.Ack
	var last string // the refusal logged last: each is logged once, as the SDK tells it once
	for ctx.Err() == nil {
		res, err := s.svc.Sync(ctx, orgID, gatehouse.SyncRequest{ServerJobID: job, UniverseID: universe, Players: []string{},
			Acks: acks, Cursor: cursor, WaitSeconds: &wait})
		if err != nil {
			// Until the script names the universe, every sync is refused.
			if ctx.Err() == nil && err.Error() != last {
				s.t.Logf("the game server's sync: %v", err)
				last = err.Error()
			}
			sleepCtx(ctx, 200*time.Millisecond)
			continue
		}
		cursor, acks, last = &res.Cursor, nil, ""
		for _, c := range res.Commands {
			if !c.Status.Settled() {
				acks = append(acks, gatehouse.Ack{CommandID: c.ID, Result: gatehouse.AckExecuted})
			}
		}
	}
}

func sleepCtx(ctx context.Context, d time.Duration) {
	select {
	case <-ctx.Done():
	case <-time.After(d):
	}
}
