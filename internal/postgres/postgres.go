// Package postgres implements gatehouse.Store on PostgreSQL through pgx and
// its connection pool, for several stateless instances on one database.
package postgres

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	mrand "math/rand/v2"
	"net"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/gatehouse/gatehouse"
	"github.com/gatehouse/gatehouse/internal/clock"
	"github.com/gatehouse/gatehouse/internal/sqlstore"
	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
)

// DB is a Gatehouse store on PostgreSQL. It implements gatehouse.Store.
type DB struct {
	// Now is the clock for created, received and revoked times. It defaults to time.Now.
	Now func() time.Time

	pool    *pgxpool.Pool
	replica *pgxpool.Pool // serves event and location lists; pool when there is none

	orgs   sqlstore.OrgCache  // organization id → seq
	terms  sqlstore.TermCache // search terms known to be stored
	spans  sqlstore.SpanCache // server job spans known to be stored
	values valueCache         // keys of event_values read or stored (values.go)
	months sync.Map           // the first instants of the months this instance made or saw made (withMonths)
	search gatehouse.SearchBudgets
	// prefixKeys, set by tests, replaces qPrefixKeys.
	prefixKeys int

	// beforeIngestCommit, set by tests, runs in every ingest transaction
	// just before it commits: the feed's test holds commits back with it.
	beforeIngestCommit func()
	// afterIngestResolve, set by tests, runs in every ingest between the
	// read of its places and its write.
	afterIngestResolve func()
	// alertRules is set once the alert rules' table is known to exist
	// (migration 0022; a database is migrated forward only).
	alertRules atomic.Bool
	// acquireCheck, when set (CheckAcquire), runs before each connection
	// is taken from the pool.
	acquireCheck atomic.Pointer[func(context.Context, *pgx.Conn) error]
}

var _ gatehouse.Store = (*DB)(nil)

// Defaults applied when the DSN does not set them: a slow or unreachable
// database must make requests fail fast, never hang.
const (
	connectTimeout   = 5 * time.Second
	statementTimeout = "15s"
)

// Open connects a pool to the database at dsn (postgres:// or
// postgresql://). Pool settings in the DSN (pool_max_conns, …) are
// honoured. It does not change the schema: call Migrate.
func Open(ctx context.Context, dsn string) (*DB, error) {
	db := &DB{Now: time.Now, search: gatehouse.SearchBudgets{First: qScanBudget, Max: qScanMax, Terms: qMaxTerms}}
	pool, err := newPool(ctx, dsn, db.prepareConn)
	if err != nil {
		return nil, err
	}
	db.pool, db.replica = pool, pool
	if err := db.Ping(ctx); err != nil {
		pool.Close()
		return nil, err
	}
	return db, nil
}

// OpenExisting connects to the database at dsn for a command that only
// reads: rather than migrate a database whose schema is older than this
// binary's (or absent), it refuses it.
//
// Errors: those of Open; sqlstore.ErrNotMigrated when the schema is not
// up to date.
func OpenExisting(ctx context.Context, dsn string) (*DB, error) {
	db, err := Open(ctx, dsn)
	if err != nil {
		return nil, err
	}
	if err := db.checkSchema(ctx); err != nil {
		db.Close()
		return nil, err
	}
	return db, nil
}

// CheckAcquire makes every statement and transaction on the primary
// pass check first, with its context and the connection it takes (which
// check may use, and must not hold on to): an error fails it before it
// reaches the database. A router of shards fences an organization being
// moved with it (internal/shards).
func (db *DB) CheckAcquire(check func(context.Context, *pgx.Conn) error) {
	db.acquireCheck.Store(&check)
}

// prepareConn is the pool's PrepareConn: it runs the check of
// CheckAcquire and keeps the connection whatever it says.
func (db *DB) prepareConn(ctx context.Context, conn *pgx.Conn) (bool, error) {
	if check := db.acquireCheck.Load(); check != nil {
		if err := (*check)(ctx, conn); err != nil {
			return true, err
		}
	}
	return true, nil
}

// ForgetOrganization drops what the store remembers of the organization
// id (uuid.Nil: of every one): a shard move deletes it from the database
// it left, and may bring it back later under another key.
func (db *DB) ForgetOrganization(id uuid.UUID) { db.orgs.Forget(id) }

func newPool(ctx context.Context, dsn string, prepare func(context.Context, *pgx.Conn) (bool, error)) (*pgxpool.Pool, error) {
	cfg, err := pgxpool.ParseConfig(dsn)
	if err != nil {
		return nil, fmt.Errorf("postgres: %w", err)
	}
	if !strings.Contains(dsn, "pool_max_conns") {
		cfg.MaxConns = int32(4 * runtime.GOMAXPROCS(0))
	}
	if cfg.ConnConfig.ConnectTimeout == 0 {
		cfg.ConnConfig.ConnectTimeout = connectTimeout
	}
	if _, ok := cfg.ConnConfig.RuntimeParams["statement_timeout"]; !ok {
		cfg.ConnConfig.RuntimeParams["statement_timeout"] = statementTimeout
	}
	// JIT compiles a plan whose estimated cost is high, which the
	// planner of a query over many monthly partitions often thinks:
	// Gatehouse's statements are short, and compiling cost more than
	// running (250–340 ms of JIT each time the player rollup's fold
	// looked for new events, every second or so). A URL may turn it on.
	if _, ok := cfg.ConnConfig.RuntimeParams["jit"]; !ok {
		cfg.ConnConfig.RuntimeParams["jit"] = "off"
	}
	cfg.ConnConfig.RuntimeParams["timezone"] = "UTC"
	cfg.HealthCheckPeriod = 5 * time.Second
	cfg.PrepareConn = prepare
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("postgres: %w", wrap(err))
	}
	return pool, nil
}

// UseReplica sends the event and location lists — the read traffic of the
// API — to a read replica at dsn. Everything else, key lookups included,
// stays on the primary, so a revocation never waits for replication. A
// replica lags: an event just ingested may appear on the next poll.
func (db *DB) UseReplica(ctx context.Context, dsn string) (err error) {
	defer sqlstore.Label(&err, "Store.UseReplica")
	pool, err := newPool(ctx, dsn, nil)
	if err != nil {
		return err
	}
	if err := pool.Ping(ctx); err != nil {
		pool.Close()
		return fmt.Errorf("postgres replica: %w: %w", gatehouse.ErrUnavailable, err)
	}
	db.replica = pool
	return nil
}

// Ping reports whether the database answers.
func (db *DB) Ping(ctx context.Context) (err error) {
	defer sqlstore.Label(&err, "Store.Ping")
	if err := db.pool.Ping(ctx); err != nil {
		return fmt.Errorf("postgres: %w: %w", gatehouse.ErrUnavailable, err)
	}
	return nil
}

// Close closes the pools.
func (db *DB) Close() (err error) {
	defer sqlstore.Label(&err, "Store.Close")
	if db.replica != db.pool {
		db.replica.Close()
	}
	db.pool.Close()
	return nil
}

// Secret returns the service secret, generating it once for every
// instance on the database.
func (db *DB) Secret(ctx context.Context) (_ []byte, err error) {
	defer sqlstore.Label(&err, "Store.Secret")
	candidate := make([]byte, 32)
	rand.Read(candidate)
	return db.settingOnce(ctx, "secret", candidate)
}

// txAttempts bounds how often a transaction PostgreSQL aborted to break a
// deadlock or a serialization conflict is run again before the caller is
// told to retry later (ErrUnavailable).
const txAttempts = 4

// withTx runs fn in a transaction, committing when fn returns nil. When
// PostgreSQL aborts the transaction as a deadlock victim or a
// serialization failure, nothing of it was kept, so the whole of fn runs
// again in a new transaction, up to txAttempts times in all: fn must
// therefore set its results afresh on each run.
func (db *DB) withTx(ctx context.Context, fn func(pgx.Tx) error) error {
	return withTxOn(ctx, db.pool, fn)
}

// beginner is the pool, or one connection taken from it.
type beginner interface {
	Begin(ctx context.Context) (pgx.Tx, error)
}

// withTxOn is withTx on a connection the caller holds.
func withTxOn(ctx context.Context, on beginner, fn func(pgx.Tx) error) error {
	return retrying(ctx, func() error { return pgx.BeginFunc(ctx, on, fn) })
}

// retrying runs fn, a transaction, again while PostgreSQL aborts it for
// another's sake (aborted), up to txAttempts times.
func retrying(ctx context.Context, fn func() error) error {
	var err error
	for attempt := range txAttempts {
		if attempt > 0 && !backOff(ctx, attempt) {
			break
		}
		if err = fn(); !aborted(err) {
			break
		}
	}
	return wrap(err)
}

// aborted reports whether PostgreSQL rolled back a transaction that may
// well succeed if run again: a serialization failure or a deadlock.
func aborted(err error) bool {
	var pgErr *pgconn.PgError
	return errors.As(err, &pgErr) && (pgErr.Code == "40001" || pgErr.Code == "40P01")
}

// backOff waits a short random time, longer with each attempt, so that the
// transactions that collided do not collide again in step. It reports
// false when ctx ends first.
func backOff(ctx context.Context, attempt int) bool {
	return clock.Sleep(ctx, time.Duration(1+mrand.IntN(10*attempt))*time.Millisecond)
}

// wrap marks errors that mean "try again later" as gatehouse.ErrUnavailable
// and leaves domain errors alone.
func wrap(err error) error {
	if sqlstore.Classified(err) {
		return err
	}
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		switch {
		case pgErr.Code == "57014", // query_canceled: statement_timeout
			pgErr.Code == "40001", pgErr.Code == "40P01", // still aborted after withTx's attempts
			pgErr.Code == "55P03",                // lock_not_available
			strings.HasPrefix(pgErr.Code, "57P"), // admin shutdown, crash, cannot connect now
			strings.HasPrefix(pgErr.Code, "08"),  // connection exceptions
			strings.HasPrefix(pgErr.Code, "53"):  // insufficient resources
			return fmt.Errorf("%w: %w", gatehouse.ErrUnavailable, err)
		}
		return err
	}
	if connectionLost(err) {
		return fmt.Errorf("%w: %w", gatehouse.ErrUnavailable, err)
	}
	return err
}

// connectionLost reports whether err says the database could not be
// reached or the connection broke, as opposed to a bug in a query.
func connectionLost(err error) bool {
	var netErr net.Error
	var connErr *pgconn.ConnectError
	switch {
	case errors.As(err, &netErr), errors.As(err, &connErr), pgconn.SafeToRetry(err), pgconn.Timeout(err),
		errors.Is(err, context.DeadlineExceeded), errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF),
		errors.Is(err, net.ErrClosed), errors.Is(err, syscall.ECONNRESET), errors.Is(err, syscall.EPIPE),
		errors.Is(err, syscall.ECONNREFUSED):
		return true
	}
	msg := err.Error()
	return strings.Contains(msg, "closed pool") || strings.Contains(msg, "conn closed")
}

// orgSeq returns the integer key of an organization, or ErrNotFound.
func (db *DB) orgSeq(ctx context.Context, q querier, id uuid.UUID) (int64, error) {
	seq, err := db.orgs.Seq(id, pgx.ErrNoRows, func() (seq int64, err error) {
		err = q.QueryRow(ctx, "SELECT seq FROM organizations WHERE id = $1", id).Scan(&seq)
		return seq, err
	})
	return seq, wrap(err)
}

// querier is what the pool and a transaction have in common.
type querier interface {
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
	Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error)
}

func utc(t time.Time) time.Time { return t.UTC() }

func optUTC(t *time.Time) *time.Time {
	if t == nil {
		return nil
	}
	u := t.UTC()
	return &u
}

// Writers implements gatehouse.ParallelWriter: a quarter of the pool
// (at least 2), so that recorded decisions keep several commits in
// flight, which PostgreSQL flushes to disk together, and leave the rest
// of the pool to everything else.
func (db *DB) Writers() int {
	return max(2, int(db.pool.Config().MaxConns)/4)
}
