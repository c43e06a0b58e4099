package cli_test

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gatehouse/gatehouse/internal/testenv"
	"github.com/jackc/pgx/v5"
)

// readOnly are the commands that only read: none may create or migrate the
// database it is pointed at.
var readOnly = [][]string{
	{"org", "list"},
	{"key", "list", "--org", "0193a1b2-0000-7000-8000-000000000001"},
	{"bench", "bytes"},
}

func TestReadOnlyCommandsDoNotCreateADatabase(t *testing.T) {
	for _, args := range readOnly {
		t.Run(strings.Join(args[:2], " "), func(t *testing.T) {
			g := newGH(t)
			g.db = filepath.Join(t.TempDir(), "nonexistent.db")
			_, _, err := g.run(nil, args...)
			if err == nil || !strings.Contains(err.Error(), g.db) {
				t.Errorf("on a missing file: %v, want an error naming %s", err, g.db)
			}
			if _, statErr := os.Stat(g.db); !errors.Is(statErr, fs.ErrNotExist) {
				t.Errorf("%s exists after the command (%v): it created the database", g.db, statErr)
			}
		})
	}
}

func TestReadOnlyCommandsDoNotMigrate(t *testing.T) {
	t.Run("sqlite", func(t *testing.T) {
		g := newGH(t)
		if err := os.WriteFile(g.db, nil, 0o600); err != nil { // an empty file is an empty SQLite database
			t.Fatal(err)
		}
		for _, args := range readOnly {
			if _, _, err := g.run(nil, args...); err == nil || !strings.Contains(err.Error(), "run gatehouse migrate") {
				t.Errorf("%s on an unmigrated file: %v, want an error saying to run gatehouse migrate", args[:2], err)
			}
		}
		// Had a command migrated the file, this one would succeed.
		if _, _, err := g.run(nil, readOnly[0]...); err == nil || !strings.Contains(err.Error(), "run gatehouse migrate") {
			t.Errorf("the file after the commands: %v; want it still unmigrated", err)
		}
	})
	t.Run("postgres", func(t *testing.T) {
		g := newGH(t)
		g.db = testenv.PostgresDSN(t)
		for _, args := range readOnly {
			if _, _, err := g.run(nil, args...); err == nil || !strings.Contains(err.Error(), "run gatehouse migrate") {
				t.Errorf("%s on an unmigrated database: %v, want an error saying to run gatehouse migrate", args[:2], err)
			}
		}
		conn, err := pgx.Connect(context.Background(), g.db)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close(context.Background())
		var tables int
		if err := conn.QueryRow(context.Background(),
			"SELECT count(*) FROM information_schema.tables WHERE table_schema = current_schema()").Scan(&tables); err != nil || tables != 0 {
			t.Errorf("%d tables in the schema after the commands (%v), want none", tables, err)
		}
	})
}
