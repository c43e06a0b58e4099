package postgres

import (
	"context"
	"embed"
	"fmt"
	"io/fs"
	"path"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5"
)

//go:embed migrations/*.sql
var migrations embed.FS

// migrationLock is the advisory lock key that serialises migrations of
// instances starting at once.
const migrationLock = 0x6761746568 // "gateh"

// Migrate applies the embedded migrations not yet applied, in order, each
// in its own transaction under an advisory lock, so several instances may
// start (and migrate) at once. Migrations are forward-only.
func (db *DB) Migrate(ctx context.Context) error {
	files, err := fs.Glob(migrations, "migrations/*.sql")
	if err != nil {
		return err
	}
	for _, f := range files {
		version, err := strconv.Atoi(strings.SplitN(path.Base(f), "_", 2)[0])
		if err != nil {
			return fmt.Errorf("postgres: migration %s: name must start with a number", f)
		}
		body, err := migrations.ReadFile(f)
		if err != nil {
			return err
		}
		err = db.withTx(ctx, func(tx pgx.Tx) error {
			if _, err := tx.Exec(ctx, "SELECT pg_advisory_xact_lock($1)", migrationLock); err != nil {
				return err
			}
			if _, err := tx.Exec(ctx, `CREATE TABLE IF NOT EXISTS schema_migrations (
				version integer PRIMARY KEY, applied_at timestamptz NOT NULL)`); err != nil {
				return err
			}
			var done bool
			if err := tx.QueryRow(ctx, "SELECT EXISTS (SELECT 1 FROM schema_migrations WHERE version = $1)", version).Scan(&done); err != nil || done {
				return err
			}
			if _, err := tx.Exec(ctx, string(body)); err != nil {
				return err
			}
			_, err := tx.Exec(ctx, "INSERT INTO schema_migrations (version, applied_at) VALUES ($1, $2)", version, db.Now())
			return err
		})
		if err != nil {
			return fmt.Errorf("postgres: migration %s: %w", f, err)
		}
	}
	return nil
}
