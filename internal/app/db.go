package app

import (
	"cmp"
	"context"
	"errors"
	"strings"
	"time"

	"github.com/gatehouse/gatehouse"
	"github.com/gatehouse/gatehouse/internal/demo"
	"github.com/gatehouse/gatehouse/internal/password"
	"github.com/gatehouse/gatehouse/internal/postgres"
	"github.com/gatehouse/gatehouse/internal/service"
	sharding "github.com/gatehouse/gatehouse/internal/shards"
	"github.com/gatehouse/gatehouse/internal/sqlite"
	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgconn"
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
// shards are the PostgreSQL primaries that hold organizations besides it
// (--shards; internal/shards), and need a PostgreSQL dsn.
func Open(ctx context.Context, dsn string, shards ...string) (*DB, error) {
	if len(shards) > 0 {
		return sharded(ctx, dsn, shards, sharding.Open)
	}
	if IsPostgres(dsn) {
		db, err := postgres.Open(ctx, dsn)
		if err == nil {
			err = unsharded(ctx, db)
		}
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
func OpenFound(ctx context.Context, dsn string, shards ...string) (*DB, error) {
	if IsPostgres(dsn) || len(shards) > 0 {
		return Open(ctx, dsn, shards...)
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
func OpenExisting(ctx context.Context, dsn string, shards ...string) (*DB, error) {
	if len(shards) > 0 {
		return sharded(ctx, dsn, shards, sharding.OpenExisting)
	}
	var (
		store gatehouse.Store
		err   error
	)
	if IsPostgres(dsn) {
		var db *postgres.DB
		if db, err = postgres.OpenExisting(ctx, dsn); err == nil {
			if err = unsharded(ctx, db); err != nil {
				db.Close()
			}
		}
		store = db
	} else {
		store, err = sqlite.OpenExisting(ctx, SQLitePath(dsn))
	}
	if err != nil {
		return nil, err
	}
	return &DB{store: store}, nil
}

// ErrShardsNeeded: the database places organizations on other primaries,
// and was opened without them.
var ErrShardsNeeded = errors.New("this database places organizations on other PostgreSQL primaries: give them with --shards (or GATEHOUSE_SHARDS), as gatehouse serve has them")

// ErrShardsNeedPostgres: --shards was given with a database that is not
// PostgreSQL.
var ErrShardsNeedPostgres = errors.New("--shards needs a postgres:// --db, and postgres:// shards")

// ErrShardAsDB: the database given as --db is a shard of another.
var ErrShardAsDB = errors.New("this database is a shard: give as --db the database that holds the directory, and this one among --shards")

// unsharded refuses db, opened without shards, when its directory places
// organizations elsewhere (a command would not find them, and would
// create their records in the wrong database), or when it is itself a
// shard (organizations made there would be in no directory).
func unsharded(ctx context.Context, db *postgres.DB) error {
	placed, err := db.Placements(ctx)
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) && pgErr.Code == "42P01" {
		return nil // before migration 0030: no directory, nothing placed, no shard
	}
	if err != nil {
		return err
	}
	if len(placed) > 0 {
		return ErrShardsNeeded
	}
	if _, shard, err := db.ShardOfMain(ctx); err != nil || shard {
		return cmp.Or(err, ErrShardAsDB)
	}
	return nil
}

// sharded opens dsn with its shards through open (sharding.Open or
// OpenExisting).
func sharded(ctx context.Context, dsn string, shards []string, open func(context.Context, string, []string) (*sharding.Router, error)) (*DB, error) {
	for _, s := range append([]string{dsn}, shards...) {
		if !IsPostgres(s) {
			return nil, ErrShardsNeedPostgres
		}
	}
	r, err := open(ctx, dsn, shards)
	if err != nil {
		return nil, err
	}
	return &DB{store: r}, nil
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

// ErrNotSharded: shards were asked of a database opened without --shards.
var ErrNotSharded = errors.New("no shards: give the other PostgreSQL primaries with --shards (or GATEHOUSE_SHARDS)")

// Shards returns the status of every shard, --db's first. ErrNotSharded
// when the database was opened without shards.
func (db *DB) Shards(ctx context.Context) ([]sharding.Status, error) {
	r, ok := db.store.(*sharding.Router)
	if !ok {
		return nil, ErrNotSharded
	}
	return r.Status(ctx)
}

// MoveOrganization moves the organization org, with every record of it,
// to the shard whose id is to, online (sharding.Router.Move); say is told
// of each step. ErrNotSharded when the database was opened without shards.
func (db *DB) MoveOrganization(ctx context.Context, org, to uuid.UUID, say func(format string, args ...any)) (sharding.MoveReport, error) {
	r, ok := db.store.(*sharding.Router)
	if !ok {
		return sharding.MoveReport{}, ErrNotSharded
	}
	return r.Move(ctx, org, to, say)
}

// ErrReplicaWithShards: --db-replica was given with --shards, whose
// organizations live on other primaries than the replica's.
var ErrReplicaWithShards = errors.New("--db-replica serves one database: with --shards, give none")

// UseReplica sends the event and location lists to a PostgreSQL read
// replica at dsn. ErrNoReplica when the database is not PostgreSQL;
// ErrReplicaWithShards when it has shards.
func (db *DB) UseReplica(ctx context.Context, dsn string) error {
	if _, ok := db.store.(*sharding.Router); ok {
		return ErrReplicaWithShards
	}
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
