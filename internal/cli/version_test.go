package cli_test

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/gatehouse/gatehouse"
	"github.com/gatehouse/gatehouse/internal/cli"
)

func TestVersion(t *testing.T) {
	g := newGH(t)
	out, _, err := g.run(nil, "version")
	if err != nil || out != "gatehouse "+gatehouse.Version()+" ("+runtime.Version()+")\n" {
		t.Errorf("version: %q %v", out, err)
	}
	var v struct{ Version, Go string }
	g.json(&v, "version")
	if v.Version != gatehouse.Version() || v.Go != runtime.Version() {
		t.Errorf("version --json: %+v", v)
	}
}

// TestStartUpLineNamesVersionAndDatabase: the "listening" line says which
// build runs on which database.
func TestStartUpLineNamesVersionAndDatabase(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "gatehouse.db")
	ctx, cancel := context.WithCancel(context.Background())
	pr, pw := io.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- cli.Run(ctx, []string{"serve", "--db", db, "--addr", "127.0.0.1:0"}, func(string) string { return "" }, strings.NewReader(""), io.Discard, pw)
		pw.Close()
	}()
	lines := make(chan map[string]any, 1)
	go func() {
		sc := bufio.NewScanner(pr)
		for sc.Scan() {
			var line map[string]any
			if json.Unmarshal(sc.Bytes(), &line) == nil && line["msg"] == "listening" {
				lines <- line
			}
		}
	}()
	select {
	case line := <-lines:
		if line["version"] != gatehouse.Version() || line["database"] != "sqlite:"+db {
			t.Errorf("start-up line %v", line)
		}
	case err := <-done:
		t.Fatalf("serve exited: %v", err)
	case <-time.After(10 * time.Second):
		t.Fatal("serve did not start")
	}
	cancel()
	if err := <-done; err != nil {
		t.Errorf("serve: %v", err)
	}
}

// TestKeyLifetimeInDays: --expires-in takes days, alone or with hours.
func TestKeyLifetimeInDays(t *testing.T) {
	g := newGH(t)
	var org struct{ ID string }
	g.json(&org, "org", "create", "--name", "Acme")
	for in, want := range map[string]time.Duration{"30d": 30 * 24 * time.Hour, "1d12h": 36 * time.Hour, "720h": 720 * time.Hour} {
		var k struct{ CreatedAt, ExpiresAt time.Time }
		g.json(&k, "key", "create", "--org", org.ID, "--name", "k "+in, "--scopes", "events:read", "--expires-in", in)
		if got := k.ExpiresAt.Sub(k.CreatedAt); got != want {
			t.Errorf("--expires-in %s: expires %v after creation, want %v", in, got, want)
		}
	}
	if _, errOut, err := g.run(nil, "key", "create", "--org", org.ID, "--name", "k", "--scopes", "events:read", "--expires-in", "1.5d"); err == nil || !strings.Contains(errOut, "30d") {
		t.Errorf("--expires-in 1.5d: %v %q", err, errOut)
	}
}
