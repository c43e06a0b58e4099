package sqlstore

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"strconv"
	"strings"
)

// ErrNotMigrated is returned when a database that must already exist has
// no schema, or an older one than this binary's, so that a read-only
// command never changes a database behind its operator's back.
var ErrNotMigrated = errors.New("the database schema is not up to date: run gatehouse migrate")

// Migration is one embedded schema change: a file named
// NNNN_description.sql, applied once, forward-only, in one transaction.
type Migration struct {
	Version int
	Name    string // the file's path in the embedded file system
	SQL     string
}

// Migrations reads the migrations of fsys matching pattern (such as
// "migrations/*.sql"), in the order of their names.
//
// Errors: a file whose name does not start with a number, or a number
// that two files share (Migrate records numbers, so the second file would
// be skipped without a word).
func Migrations(fsys fs.FS, pattern string) ([]Migration, error) {
	files, err := fs.Glob(fsys, pattern) // sorted
	if err != nil {
		return nil, err
	}
	ms := make([]Migration, 0, len(files))
	seen := make(map[int]string)
	for _, f := range files {
		name := f
		version, err := strconv.Atoi(strings.SplitN(path.Base(f), "_", 2)[0])
		if err != nil {
			return nil, fmt.Errorf("migration %s: name must start with a number", name)
		}
		if other, ok := seen[version]; ok {
			return nil, fmt.Errorf("migrations %s and %s share the number %d", other, name, version)
		}
		seen[version] = name
		body, err := fs.ReadFile(fsys, f)
		if err != nil {
			return nil, err
		}
		ms = append(ms, Migration{Version: version, Name: name, SQL: string(body)})
	}
	return ms, nil
}

// Migrate runs apply for each migration in order, stopping at the first
// error. apply must, in one transaction, skip a migration whose version is
// recorded as applied, else run its SQL and record its version.
//
// Errors: apply's, naming the migration.
func Migrate(ctx context.Context, ms []Migration, apply func(context.Context, Migration) error) error {
	for _, m := range ms {
		if err := apply(ctx, m); err != nil {
			return fmt.Errorf("migration %s: %w", m.Name, err)
		}
	}
	return nil
}

// CheckApplied reports whether every migration of ms is among the applied
// versions.
//
// Errors: ErrNotMigrated, naming the first migration missing.
func CheckApplied(ms []Migration, applied []int) error {
	done := make(map[int]bool, len(applied))
	for _, v := range applied {
		done[v] = true
	}
	for _, m := range ms {
		if !done[m.Version] {
			return fmt.Errorf("migration %s is not applied: %w", m.Name, ErrNotMigrated)
		}
	}
	return nil
}
