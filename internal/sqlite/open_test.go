package sqlite_test

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gatehouse/gatehouse"
	"github.com/gatehouse/gatehouse/internal/sqlite"
	"github.com/gatehouse/gatehouse/internal/sqlstore"
)

func TestOpenExistingNeitherCreatesNorMigrates(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "gatehouse.db")
	if _, err := sqlite.OpenExisting(ctx, path); !errors.Is(err, gatehouse.ErrNotFound) || !strings.Contains(err.Error(), path) {
		t.Errorf("a missing file: %v, want ErrNotFound naming the path", err)
	}
	if _, err := os.Stat(path); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("the missing file after OpenExisting: %v, want still missing", err)
	}
	db, err := sqlite.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	db.Close()
	if _, err := sqlite.OpenExisting(ctx, path); !errors.Is(err, sqlstore.ErrNotMigrated) {
		t.Errorf("an unmigrated file: %v, want ErrNotMigrated", err)
	}
	if db, err = sqlite.Open(ctx, path); err != nil {
		t.Fatal(err)
	}
	err = db.Migrate(ctx)
	db.Close()
	if err != nil {
		t.Fatal(err)
	}
	db, err = sqlite.OpenExisting(ctx, path)
	if err != nil {
		t.Fatalf("a migrated file: %v", err)
	}
	defer db.Close()
	if _, err := db.ListOrganizations(ctx); err != nil {
		t.Errorf("reading it: %v", err)
	}
}

// The writer's commits checkpoint the WAL themselves only as a backstop
// past writerCheckpointPages (the background checkpointer does the
// copying), and only the writer's setting changes.
func TestWriterCheckpointsOnlyAsBackstop(t *testing.T) {
	ctx := context.Background()
	db, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "gatehouse.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	writer, reader, err := db.WriterCheckpointPagesForTest(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if writer != sqlite.WriterCheckpointPages || writer <= 1000 || reader != 1000 {
		t.Errorf("wal_autocheckpoint: writer %d, reader %d; want %d (above SQLite's 1000) and 1000", writer, reader, sqlite.WriterCheckpointPages)
	}
}

// TestPathsWithQueryCharacters: a file in a folder whose name holds ?, #
// or % is the file opened, created and found again; the path went into
// the driver's URI unescaped, and a folder "a?b" opened the file "a".
func TestPathsWithQueryCharacters(t *testing.T) {
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "studio?mode=ro#1%20")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "gatehouse.db")
	db, err := sqlite.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	if err := db.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	db.Close()
	if _, err := os.Stat(path); err != nil {
		t.Fatalf("the database is not where it was asked: %v", err)
	}
	again, err := sqlite.OpenExisting(ctx, path)
	if err != nil {
		t.Fatalf("the file made is not found again: %v", err)
	}
	again.Close()
	if entries, _ := os.ReadDir(filepath.Dir(dir)); len(entries) != 1 {
		t.Errorf("the folder above holds %d entries, want the one folder", len(entries))
	}
}
