package app

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/gatehouse/gatehouse"
	"github.com/gatehouse/gatehouse/internal/demo"
	"github.com/gatehouse/gatehouse/internal/password"
	"github.com/gatehouse/gatehouse/internal/postgres"
	"github.com/gatehouse/gatehouse/internal/service"
	"github.com/gatehouse/gatehouse/internal/sqlite"
)

// DB is an open database. It holds the Store so that nothing outside this
// package and the stores does: a door gets a service.Service from it.
type DB struct {
	store gatehouse.Store
}

// ErrNoReplica: a read replica was asked of a database that is not PostgreSQL.
var ErrNoReplica = errors.New("a read replica needs a postgres:// database")

// Open opens and migrates the database named by dsn: a postgres:// or
// postgresql:// URL, or a SQLite file given as sqlite:PATH or a plain path.
func Open(ctx context.Context, dsn string) (*DB, error) {
	if IsPostgres(dsn) {
		db, err := postgres.Open(ctx, dsn)
		return migrated(ctx, db, err)
	}
	db, err := sqlite.Open(ctx, SQLitePath(dsn))
	return migrated(ctx, db, err)
}

// OpenFound opens and migrates the database named by dsn, as Open does,
// for a command that changes existing records: a SQLite file that does not
// exist is a *sqlite.MissingFileError, not created. A PostgreSQL database
// is never created by Gatehouse, only its tables, so Open and OpenFound
// are the same for it.
func OpenFound(ctx context.Context, dsn string) (*DB, error) {
	if IsPostgres(dsn) {
		return Open(ctx, dsn)
	}
	db, err := sqlite.OpenFile(ctx, SQLitePath(dsn))
	return migrated(ctx, db, err)
}

// migratable is a store that migrates its schema.
type migratable interface {
	gatehouse.Store
	Migrate(context.Context) error
}

// migrated takes what a store's Open returned and migrates the store,
// closing it when that fails.
func migrated[S migratable](ctx context.Context, db S, err error) (*DB, error) {
	if err != nil {
		return nil, err
	}
	if err := db.Migrate(ctx); err != nil {
		db.Close()
		return nil, err
	}
	return &DB{store: db}, nil
}

// OpenExisting opens the database named by dsn, as Open does, for a
// command that only reads: it neither creates nor migrates it, and says so
// when the file is missing or the schema is not up to date.
func OpenExisting(ctx context.Context, dsn string) (*DB, error) {
	var (
		store gatehouse.Store
		err   error
	)
	if IsPostgres(dsn) {
		store, err = postgres.OpenExisting(ctx, dsn)
	} else {
		store, err = sqlite.OpenExisting(ctx, SQLitePath(dsn))
	}
	if err != nil {
		return nil, err
	}
	return &DB{store: store}, nil
}

// IsPostgres reports whether dsn names a PostgreSQL database rather than
// a SQLite file.
func IsPostgres(dsn string) bool {
	return strings.HasPrefix(dsn, "postgres://") || strings.HasPrefix(dsn, "postgresql://")
}

// SQLitePath is the file a SQLite dsn names: sqlite:PATH or a plain path.
func SQLitePath(dsn string) string { return strings.TrimPrefix(dsn, "sqlite:") }

// Use wraps a store a test has opened (and set the clock of).
func Use(store gatehouse.Store) *DB { return &DB{store: store} }

// Close releases the database.
func (db *DB) Close() error { return db.store.Close() }

// UseReplica sends the event and location lists to a PostgreSQL read
// replica at dsn. ErrNoReplica when the database is not PostgreSQL.
func (db *DB) UseReplica(ctx context.Context, dsn string) error {
	r, ok := db.store.(interface {
		UseReplica(context.Context, string) error
	})
	if !ok {
		return ErrNoReplica
	}
	return r.UseReplica(ctx, dsn)
}

// Service returns the service of an operator's command: it signs no
// cursor and no session, so it needs no secret, and it hashes passwords
// with argon2id.
func (db *DB) Service(now func() time.Time) *service.Service {
	return db.ServiceWith(now, func(*service.Config) {})
}

// ServiceWith is Service with edit applied to its configuration: a
// command that needs one of the servers' settings (webhook targets).
func (db *DB) ServiceWith(now func() time.Time, edit func(*service.Config)) *service.Service {
	cfg := service.Config{Store: db.store, Hasher: password.Hasher{}, Now: now}
	edit(&cfg)
	return service.New(cfg)
}

// SeedDemo creates the demo organization with events of the last weeks,
// once (see demo.Seed); created is false when it existed.
func (db *DB) SeedDemo(ctx context.Context, now time.Time, events int) (org gatehouse.Organization, created bool, err error) {
	return demo.Seed(ctx, db.store, now, events)
}
