package postgres

import (
	"context"
	"embed"
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/gatehouse/gatehouse/internal/sqlstore"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

//go:embed migrations/*.sql
var migrations embed.FS

// migrationLock is the advisory lock key that serialises migrations of
// instances starting at once.
const migrationLock = 0x6761746568 // "gateh"

// Migrate applies the embedded migrations not yet applied, in order, each
// in its own transaction under an advisory lock, so several instances may
// start (and migrate) at once. Migrations are forward-only.
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
		return fmt.Errorf("postgres: %w", err)
	}
	ms = slices.DeleteFunc(ms, func(m sqlstore.Migration) bool { return !keep(m.Version) })
	err = sqlstore.Migrate(ctx, ms, func(ctx context.Context, m sqlstore.Migration) error {
		return db.withTx(ctx, func(tx pgx.Tx) error {
			// A migration that rewrites data (a rollup built from every
			// event) takes as long as the data needs: the statement
			// timeout of requests (statementTimeout) would cut it short
			// on a large database.
			if _, err := tx.Exec(ctx, "SET LOCAL statement_timeout = 0"); err != nil {
				return err
			}
			if _, err := tx.Exec(ctx, "SELECT pg_advisory_xact_lock($1)", migrationLock); err != nil {
				return err
			}
			if _, err := tx.Exec(ctx, `CREATE TABLE IF NOT EXISTS schema_migrations (
				version integer PRIMARY KEY, applied_at timestamptz NOT NULL)`); err != nil {
				return err
			}
			var done bool
			if err := tx.QueryRow(ctx, "SELECT EXISTS (SELECT 1 FROM schema_migrations WHERE version = $1)", m.Version).Scan(&done); err != nil || done {
				return err
			}
			if _, err := tx.Exec(ctx, m.SQL); err != nil {
				return err
			}
			_, err := tx.Exec(ctx, "INSERT INTO schema_migrations (version, applied_at) VALUES ($1, $2)", m.Version, db.Now())
			return err
		})
	})
	if err != nil {
		return fmt.Errorf("postgres: %w", err)
	}
	return nil
}

// checkSchema reports whether every embedded migration is applied,
// without changing anything.
//
// Errors: sqlstore.ErrNotMigrated when one is not.
func (db *DB) checkSchema(ctx context.Context) error {
	ms, err := sqlstore.Migrations(migrations, "migrations/*.sql")
	if err != nil {
		return fmt.Errorf("postgres: %w", err)
	}
	rows, _ := db.pool.Query(ctx, "SELECT version FROM schema_migrations")
	applied, err := pgx.CollectRows(rows, pgx.RowTo[int])
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) && pgErr.Code == "42P01" { // undefined_table: never migrated
		applied, err = nil, nil
	}
	if err != nil {
		return wrap(err)
	}
	if err := sqlstore.CheckApplied(ms, applied); err != nil {
		return fmt.Errorf("postgres: %w", err)
	}
	return nil
}
