package sqlite

import (
	"context"
	"path"

	"github.com/gatehouse/gatehouse/internal/sqlstore"
)

// MigrationFiles lists the embedded migrations by file name, in order.
func MigrationFiles() []string {
	ms, _ := sqlstore.Migrations(migrations, "migrations/*.sql")
	files := make([]string, len(ms))
	for i, m := range ms {
		files[i] = path.Base(m.Name)
	}
	return files
}

// MigrateThroughForTest applies the migrations up to version last.
func (db *DB) MigrateThroughForTest(ctx context.Context, last int) error {
	return db.migrateThrough(ctx, last)
}

// ExecForTest runs a statement on the write connection.
func (db *DB) ExecForTest(ctx context.Context, query string, args ...any) error {
	_, err := db.write.ExecContext(ctx, query, args...)
	return err
}
