package cli

import (
	"context"
	"errors"
	"io/fs"
	"os"

	"github.com/gatehouse/gatehouse/internal/app"
	"github.com/gatehouse/gatehouse/internal/service"
)

// runMigrate brings the database to this binary's schema, creating a
// database file that does not exist, and says which of the two it did.
func runMigrate(ctx context.Context, e *env) error {
	f := newFlags(e, "migrate")
	created := false
	open := func(ctx context.Context, dsn string, shards ...string) (*app.DB, error) {
		if !app.IsPostgres(dsn) {
			_, err := os.Stat(app.SQLitePath(dsn))
			created = errors.Is(err, fs.ErrNotExist)
		}
		return app.Open(ctx, dsn, shards...)
	}
	return withOpenedService(ctx, f, 0, open, func(*service.Service, []string) error {
		if created {
			return f.print(map[string]string{"status": "migrated"}, "created the database %s with the current schema", *f.db)
		}
		return f.print(map[string]string{"status": "migrated"}, "database %s is up to date", *f.db)
	})
}
