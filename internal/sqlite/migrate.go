package sqlite

import (
	"context"
	"database/sql"
	"embed"
	"fmt"
	"io/fs"
	"path"
	"strconv"
	"strings"
)

//go:embed migrations/*.sql
var migrations embed.FS

// MigrationFiles lists the embedded migrations by file name, in order.
func MigrationFiles() []string {
	files, _ := fs.Glob(migrations, "migrations/*.sql")
	for i, f := range files {
		files[i] = path.Base(f)
	}
	return files
}

// Migrate applies the embedded migrations not yet applied, in order, each in
// its own transaction. Migrations are forward-only; running Migrate on an
// up-to-date database does nothing, and processes racing to migrate are
// serialised by SQLite's write lock.
func (db *DB) Migrate(ctx context.Context) error {
	files, err := fs.Glob(migrations, "migrations/*.sql")
	if err != nil {
		return err
	}
	if _, err := db.write.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS schema_migrations (
		version INTEGER PRIMARY KEY, applied_at INTEGER NOT NULL) STRICT`); err != nil {
		return wrap(err)
	}
	for _, f := range files { // fs.Glob returns names sorted
		version, err := strconv.Atoi(strings.SplitN(path.Base(f), "_", 2)[0])
		if err != nil {
			return fmt.Errorf("sqlite: migration %s: name must start with a number", f)
		}
		body, err := migrations.ReadFile(f)
		if err != nil {
			return err
		}
		err = db.withTx(ctx, func(tx *sql.Tx) error {
			var done int
			if err := tx.QueryRowContext(ctx, "SELECT count(*) FROM schema_migrations WHERE version = ?", version).Scan(&done); err != nil || done > 0 {
				return err
			}
			if _, err := tx.ExecContext(ctx, string(body)); err != nil {
				return err
			}
			_, err := tx.ExecContext(ctx, "INSERT INTO schema_migrations (version, applied_at) VALUES (?, ?)", version, millis(db.Now()))
			return err
		})
		if err != nil {
			return fmt.Errorf("sqlite: migration %s: %w", f, err)
		}
	}
	return nil
}
