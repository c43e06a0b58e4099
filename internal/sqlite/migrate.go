package sqlite

import (
	"context"
	"database/sql"
	"embed"
	"fmt"
	"math"
	"slices"

	"github.com/gatehouse/gatehouse/internal/sqlstore"
)

//go:embed migrations/*.sql
var migrations embed.FS

const schemaTable = `CREATE TABLE IF NOT EXISTS schema_migrations (
	version INTEGER PRIMARY KEY, applied_at INTEGER NOT NULL) STRICT`

// Migrate applies the embedded migrations not yet applied, in order, each in
// its own transaction. Migrations are forward-only; running Migrate on an
// up-to-date database does nothing, and processes racing to migrate are
// serialised by SQLite's write lock.
func (db *DB) Migrate(ctx context.Context) (err error) {
	defer sqlstore.Label(&err, "Store.Migrate")
	return db.migrateThrough(ctx, math.MaxInt)
}

// migrateThrough applies the migrations up to version last: a test of a
// migration starts from the schema before it.
func (db *DB) migrateThrough(ctx context.Context, last int) error {
	return db.migrateWhere(ctx, func(version int) bool { return version <= last })
}

// migrateWhere applies, in order, the migrations whose version keep
// accepts and that are not applied yet.
func (db *DB) migrateWhere(ctx context.Context, keep func(version int) bool) error {
	ms, err := sqlstore.Migrations(migrations, "migrations/*.sql")
	if err != nil {
		return fmt.Errorf("sqlite: %w", err)
	}
	ms = slices.DeleteFunc(ms, func(m sqlstore.Migration) bool { return !keep(m.Version) })
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
	db.noRollups.Store(!keep(insightsMigration))
	return nil
}

// insightsMigration is the number of the migration that makes the
// insight rollups (0021_insights.sql).
const insightsMigration = 21

// checkSchema reports whether every embedded migration is applied,
// without changing anything.
//
// Errors: sqlstore.ErrNotMigrated when one is not.
func (db *DB) checkSchema(ctx context.Context) error {
	ms, err := sqlstore.Migrations(migrations, "migrations/*.sql")
	if err != nil {
		return fmt.Errorf("sqlite: %w", err)
	}
	var applied []int
	var tables int
	if err := db.read.QueryRowContext(ctx,
		"SELECT count(*) FROM sqlite_schema WHERE type = 'table' AND name = 'schema_migrations'").Scan(&tables); err != nil {
		return wrap(err)
	}
	if tables > 0 {
		rows, err := db.read.QueryContext(ctx, "SELECT version FROM schema_migrations")
		if err != nil {
			return wrap(err)
		}
		defer rows.Close()
		for rows.Next() {
			var v int
			if err := rows.Scan(&v); err != nil {
				return wrap(err)
			}
			applied = append(applied, v)
		}
		if err := rows.Err(); err != nil {
			return wrap(err)
		}
	}
	if err := sqlstore.CheckApplied(ms, applied); err != nil {
		return fmt.Errorf("sqlite: %s: %w", db.path, err)
	}
	return nil
}
