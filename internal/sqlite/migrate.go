package sqlite

import (
	"context"
	"database/sql"
	"embed"
	"fmt"
	"path"

	"github.com/gatehouse/gatehouse/internal/sqlstore"
)

//go:embed migrations/*.sql
var migrations embed.FS

// MigrationFiles lists the embedded migrations by file name, in order.
func MigrationFiles() []string {
	ms, _ := sqlstore.Migrations(migrations, "migrations/*.sql")
	files := make([]string, len(ms))
	for i, m := range ms {
		files[i] = path.Base(m.Name)
	}
	return files
}

const schemaTable = `CREATE TABLE IF NOT EXISTS schema_migrations (
	version INTEGER PRIMARY KEY, applied_at INTEGER NOT NULL) STRICT`

// Migrate applies the embedded migrations not yet applied, in order, each in
// its own transaction. Migrations are forward-only; running Migrate on an
// up-to-date database does nothing, and processes racing to migrate are
// serialised by SQLite's write lock.
func (db *DB) Migrate(ctx context.Context) error {
	ms, err := sqlstore.Migrations(migrations, "migrations/*.sql")
	if err != nil {
		return fmt.Errorf("sqlite: %w", err)
	}
	if _, err := db.write.ExecContext(ctx, schemaTable); err != nil {
		return wrap(err)
	}
	err = sqlstore.Migrate(ctx, ms, func(ctx context.Context, m sqlstore.Migration) error {
		return db.withTx(ctx, func(tx *sql.Tx) error {
			var done int
			if err := tx.QueryRowContext(ctx, "SELECT count(*) FROM schema_migrations WHERE version = ?", m.Version).Scan(&done); err != nil || done > 0 {
				return err
			}
			if _, err := tx.ExecContext(ctx, m.SQL); err != nil {
				return err
			}
			_, err := tx.ExecContext(ctx, "INSERT INTO schema_migrations (version, applied_at) VALUES (?, ?)", m.Version, millis(db.Now()))
			return err
		})
	})
	if err != nil {
		return fmt.Errorf("sqlite: %w", err)
	}
	return nil
}
