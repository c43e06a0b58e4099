package cli_test

import (
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// changesOfExisting are commands that change records which must exist
// already: none may create the database it is pointed at.
var changesOfExisting = [][]string{
	{"location", "create", "--org", "0193a1b2-0000-7000-8000-000000000001", "--name", "HQ"},
	{"user", "create", "--org", "0193a1b2-0000-7000-8000-000000000001", "--email", "a@b.test"},
	{"key", "revoke", "0193a1b2-0000-7000-8000-000000000002"},
	{"webhook", "create", "--org", "0193a1b2-0000-7000-8000-000000000001", "--url", "https://hooks.example.com/x"},
	{"event", "import", "--org", "0193a1b2-0000-7000-8000-000000000001", "-"},
}

func TestChangesDoNotCreateADatabase(t *testing.T) {
	for _, args := range changesOfExisting {
		t.Run(strings.Join(args[:2], " "), func(t *testing.T) {
			g := newGH(t)
			g.db = filepath.Join(t.TempDir(), "nonexistent.db")
			_, _, err := g.run(nil, args...)
			if err == nil || !strings.Contains(err.Error(), g.db) || !strings.Contains(err.Error(), "--db") {
				t.Errorf("on a missing file: %v, want an error naming %s and --db", err, g.db)
			}
			if _, statErr := os.Stat(g.db); !errors.Is(statErr, fs.ErrNotExist) {
				t.Errorf("%s exists after the command (%v): it created the database", g.db, statErr)
			}
		})
	}
}

// TestNoStrayDatabase runs the binary as an operator would, in a folder
// without a database and without --db: it names the file it looked for,
// by absolute path, says how to name another, and leaves the folder empty.
func TestNoStrayDatabase(t *testing.T) {
	dir := t.TempDir()
	cmd := exec.Command(gatehouseBinary(t), "location", "create", "--org", "0193a1b2-0000-7000-8000-000000000001", "--name", "HQ")
	cmd.Dir = dir
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "GATEHOUSE_") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	out, err := cmd.CombinedOutput()
	if err == nil {
		t.Fatalf("location create in an empty folder succeeded: %s", out)
	}
	want := filepath.Join(dir, "gatehouse.db")
	for _, s := range []string{want, "--db", "GATEHOUSE_DB"} {
		if !strings.Contains(string(out), s) {
			t.Errorf("the error %q does not name %s", out, s)
		}
	}
	if entries, err := os.ReadDir(dir); err != nil || len(entries) != 0 {
		t.Errorf("the folder after the command holds %v (%v), want nothing", entries, err)
	}
}

// TestCreatorsStartADatabase: the commands that may start a database
// still create a missing file.
func TestCreatorsStartADatabase(t *testing.T) {
	for _, args := range [][]string{{"migrate"}, {"org", "create", "--name", "Acme"}} {
		g := newGH(t)
		if _, _, err := g.run(nil, args...); err != nil {
			t.Errorf("%s on a missing file: %v", args, err)
		}
		if _, err := os.Stat(g.db); err != nil {
			t.Errorf("%s left no database: %v", args, err)
		}
	}
	// migrate says whether it made the file or found it, the file named
	// as a path or as sqlite:PATH.
	for _, prefix := range []string{"", "sqlite:"} {
		g := newGH(t)
		g.db = prefix + g.db
		for _, want := range []string{"created the database " + g.db + " with the current schema", "database " + g.db + " is up to date"} {
			if out, _, err := g.run(nil, "migrate"); err != nil || strings.TrimSpace(out) != want {
				t.Errorf("migrate said %q (%v), want %q", out, err, want)
			}
		}
	}
}
