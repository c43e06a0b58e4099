// Package sqlite implements gatehouse.Store on an embedded SQLite file,
// through the pure-Go modernc.org/sqlite driver (no cgo).
//
// The file is opened in WAL mode with foreign keys on. Writes go through a
// single connection (SQLite allows one writer at a time, and queueing in Go
// is cheaper than spinning on SQLITE_BUSY); reads use a small pool that runs
// beside the writer.
package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync/atomic"
	"time"

	"github.com/gatehouse/gatehouse"
	"github.com/gatehouse/gatehouse/internal/sqlstore"
	"github.com/google/uuid"
	sqlitedrv "modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

// DB is a Gatehouse store in one SQLite file. It implements gatehouse.Store.
type DB struct {
	// Now is the clock for created, received and revoked times. It defaults to time.Now.
	Now func() time.Time

	path  string
	write *sql.DB   // one connection: every transaction that writes
	read  *readPool // several connections: queries

	orgs   sqlstore.OrgCache  // organization id → seq
	terms  sqlstore.TermCache // search terms known to be stored
	spans  sqlstore.SpanCache // server job spans known to be stored
	search gatehouse.SearchBudgets
	hot    hotStmts // hotQueries prepared on the write connection
	// noRollups: the schema stops before the insight rollups (a test of
	// an older migration): stored events are not counted, and migration
	// 0021 counts them when it runs.
	noRollups atomic.Bool

	stopCheckpoints func()       // ends the checkpointer and waits for it
	commits         atomic.Int64 // write transactions committed, for the checkpointer
	// writingSince is when the open write transaction began (Unix
	// nanoseconds), zero when none is: the feed's completeThrough.
	writingSince atomic.Int64
	// wroteAt is when the last write transaction of this process began or
	// ended (Unix nanoseconds): RefreshStatistics waits for a lull.
	wroteAt atomic.Int64

	// beforeIngestCommit, set by tests, runs in every ingest transaction
	// just before it commits: the feed's test holds commits back with it.
	beforeIngestCommit func()
	// alertRules is set once the alert rules' table is known to exist
	// (migration 0022; a database is migrated forward only).
	alertRules atomic.Bool
}

// checkpointEvery is how often the checkpointer copies the pages that
// commits appended to the WAL into the database file.
const checkpointEvery = 25 * time.Millisecond

// checkpoints copies the WAL into the database file in the background,
// on a connection of its own, a little at a time (PASSIVE: beside the
// writer and the readers, blocking neither). SQLite otherwise checkpoints
// inside the commit that takes the WAL past 1,000 pages: the writer
// copied some 4 MB and synced twice while every transaction queued
// behind it, 7% of the commits of recorded decisions taking 3–20 ms.
//
// The writer's own checkpoint stays, as a backstop (writerCheckpointPages):
// under sustained writes the background one never finds the log wholly
// copied at a moment the writer could restart it from its start, and the
// file would grow without bound. It copies only what was appended since
// the last background round, but that is still two syncs with the queue
// waiting, so it runs once per 16 MB of log instead of once per 4 MB.
func (db *DB) checkpoints(path, mode string) (stop func(), err error) {
	conn, err := openPool(path, mode, "deferred", 1)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		defer conn.Close()
		t := time.NewTicker(checkpointEvery)
		defer t.Stop()
		var seen int64
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
				if n := db.commits.Load(); n != seen { // nothing new in the WAL otherwise
					seen = n
					conn.ExecContext(ctx, "PRAGMA wal_checkpoint(PASSIVE)") // busy or failed: the next tick tries again
				}
			}
		}
	}()
	return func() { cancel(); <-done }, nil
}

var _ gatehouse.Store = (*DB)(nil)

// Open opens (creating if needed) the SQLite database at path. It does not
// change the schema: call Migrate.
func Open(ctx context.Context, path string) (*DB, error) {
	return open(ctx, path, "rwc")
}

// OpenExisting opens the SQLite database at path for a command that only
// reads: unlike Open it never creates the file, and rather than migrate a
// database whose schema is older than this binary's, it refuses it.
//
// Errors: a *MissingFileError when there is no such file;
// sqlstore.ErrNotMigrated when its schema is not up to date.
func OpenExisting(ctx context.Context, path string) (*DB, error) {
	db, err := OpenFile(ctx, path)
	if err != nil {
		return nil, err
	}
	if err := db.checkSchema(ctx); err != nil {
		db.Close()
		return nil, err
	}
	return db, nil
}

// OpenFile opens the SQLite database at path as Open does, but never
// creates the file: a *MissingFileError (a gatehouse.ErrNotFound) when
// there is none. Call Migrate, as after Open, before a change.
func OpenFile(ctx context.Context, path string) (*DB, error) {
	if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
		abs, absErr := filepath.Abs(path)
		if absErr != nil {
			abs = path
		}
		return nil, &MissingFileError{Path: abs}
	}
	return open(ctx, path, "rw") // "rw": a file removed since the Stat is an error, not created
}

// MissingFileError is a database file that does not exist, named by its
// absolute path: what OpenFile and OpenExisting return rather than
// create it.
type MissingFileError struct{ Path string }

func (e *MissingFileError) Error() string        { return "there is no database file at " + e.Path }
func (e *MissingFileError) Is(target error) bool { return target == gatehouse.ErrNotFound }

// open opens the database at path in the SQLite open mode given ("rwc"
// creates the file, "rw" does not).
func open(ctx context.Context, path, mode string) (*DB, error) {
	if path == "" {
		return nil, errors.New("sqlite: empty database path")
	}
	db := &DB{Now: time.Now, path: path, search: gatehouse.SearchBudgets{First: qScanBudget, Max: qScanMax, Terms: qMaxTerms}}
	var err error
	if db.write, err = openPool(path, mode, "immediate", 1, fmt.Sprintf("wal_autocheckpoint(%d)", writerCheckpointPages)); err != nil {
		return nil, err
	}
	read, err := openPool(path, mode, "deferred", max(4, runtime.GOMAXPROCS(0)))
	if err != nil {
		db.write.Close()
		return nil, err
	}
	db.read = &readPool{DB: read}
	if db.stopCheckpoints, err = db.checkpoints(path, mode); err != nil {
		db.Close()
		return nil, err
	}
	if err := db.Ping(ctx); err != nil {
		db.Close()
		return nil, fmt.Errorf("sqlite: open %s: %w", path, err)
	}
	return db, nil
}

// writerCheckpointPages is the size of the WAL, in pages, at which the
// writer's commit checkpoints it itself (see checkpoints).
const writerCheckpointPages = 4000

// openPool opens a pool of conns connections, each with the pragmas every
// connection takes and then those given.
func openPool(path, mode, txlock string, conns int, pragmas ...string) (*sql.DB, error) {
	q := url.Values{}
	for _, p := range append([]string{
		"journal_mode(WAL)",
		"foreign_keys(1)",
		"busy_timeout(10000)",
		"synchronous(NORMAL)", // durable at checkpoints; WAL keeps the file consistent
		"cache_size(-32000)",  // 32 MB page cache per connection
		"temp_store(MEMORY)",
	}, pragmas...) {
		q.Add("_pragma", p)
	}
	q.Set("_txlock", txlock)
	q.Set("mode", mode)
	pool, err := sql.Open("sqlite", URI(path, q))
	if err != nil {
		return nil, fmt.Errorf("sqlite: %w", err)
	}
	pool.SetMaxOpenConns(conns)
	pool.SetMaxIdleConns(conns)
	pool.SetConnMaxIdleTime(0)
	return pool, nil
}

// Ping reports whether the database file answers a query.
func (db *DB) Ping(ctx context.Context) (err error) {
	defer sqlstore.Label(&err, "Store.Ping")
	var one int
	if err := db.read.QueryRowContext(ctx, "SELECT 1").Scan(&one); err != nil {
		return fmt.Errorf("%w: %w", gatehouse.ErrUnavailable, err)
	}
	return nil
}

// Close runs PRAGMA optimize (so the planner has statistics next time) and
// closes the database.
func (db *DB) Close() (err error) {
	defer sqlstore.Label(&err, "Store.Close")
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if db.stopCheckpoints != nil {
		db.stopCheckpoints()
	}
	db.write.ExecContext(ctx, "PRAGMA optimize")
	db.hot.close()
	return errors.Join(db.read.Close(), db.write.Close())
}

// Secret returns the service secret, generating it once.
func (db *DB) Secret(ctx context.Context) (_ []byte, err error) {
	defer sqlstore.Label(&err, "Store.Secret")
	var secret []byte
	err = db.withTx(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx,
			"INSERT INTO settings (name, value) VALUES ('secret', randomblob(32)) ON CONFLICT DO NOTHING"); err != nil {
			return err
		}
		return tx.QueryRowContext(ctx, "SELECT value FROM settings WHERE name = 'secret'").Scan(&secret)
	})
	return secret, err
}

// withTx runs fn in a write transaction, committing when fn returns nil.
func (db *DB) withTx(ctx context.Context, fn func(*sql.Tx) error) error {
	tx, since, err := db.beginWrite(ctx)
	if err != nil {
		return wrap(err)
	}
	defer db.endWrite(tx, since)
	if err := fn(tx); err != nil {
		return wrap(err)
	}
	if err := tx.Commit(); err != nil {
		return wrap(err)
	}
	db.commits.Add(1)
	return nil
}

// beginWrite begins a transaction on the write connection and notes when
// (writingSince), returning that instant; endWrite ends it, rolling it
// back unless it committed. The commit hands the connection to the next
// transaction before endWrite runs, so endWrite clears writingSince only
// if it is still this transaction's.
func (db *DB) beginWrite(ctx context.Context) (*sql.Tx, int64, error) {
	tx, err := db.write.BeginTx(ctx, nil)
	if err != nil {
		return nil, 0, err
	}
	since := db.Now().UnixNano()
	db.writingSince.Store(since)
	db.wroteAt.Store(since)
	return tx, since, nil
}

func (db *DB) endWrite(tx *sql.Tx, since int64) {
	tx.Rollback()
	db.writingSince.CompareAndSwap(since, 0)
	db.wroteAt.Store(db.Now().UnixNano())
}

// wrap marks errors that mean "try again later" as gatehouse.ErrUnavailable
// and leaves domain errors alone.
func wrap(err error) error {
	if sqlstore.Classified(err) {
		return err
	}
	var se *sqlitedrv.Error
	if errors.As(err, &se) {
		switch se.Code() & 0xff {
		case sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED, sqlite3.SQLITE_IOERR, sqlite3.SQLITE_FULL, sqlite3.SQLITE_CANTOPEN:
			return fmt.Errorf("%w: %w", gatehouse.ErrUnavailable, err)
		}
	}
	if errors.Is(err, context.DeadlineExceeded) || strings.Contains(err.Error(), "database is closed") {
		return fmt.Errorf("%w: %w", gatehouse.ErrUnavailable, err)
	}
	return err
}

// orgSeq returns the integer key of an organization, or ErrNotFound.
func (db *DB) orgSeq(ctx context.Context, q querier, id uuid.UUID) (int64, error) {
	if id == uuid.Nil {
		// The nil id is the internal organization that keeps the positions
		// of deleted rows (migration 0014): no one's to act on.
		return 0, fmt.Errorf("organization %s: %w", id, gatehouse.ErrNotFound)
	}
	seq, err := db.orgs.Seq(id, sql.ErrNoRows, func() (seq int64, err error) {
		err = q.QueryRowContext(ctx, "SELECT seq FROM organizations WHERE id = ?", id[:]).Scan(&seq)
		return seq, err
	})
	return seq, wrap(err)
}

// querier is what *sql.DB and *sql.Tx have in common.
type querier interface {
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
}

// queryAll runs query and reads every row with scan, in order; nil when
// there is none.
func queryAll[T any](ctx context.Context, q querier, scan func(*sql.Rows, *T) error, query string, args ...any) ([]T, error) {
	rows, err := q.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []T
	for rows.Next() {
		var v T
		if err := scan(rows, &v); err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, rows.Err()
}

func millis(t time.Time) int64 { return t.UnixMilli() }

func fromMillis(ms int64) time.Time { return time.UnixMilli(ms).UTC() }

func optMillis(t *time.Time) any {
	if t == nil {
		return nil
	}
	return t.UnixMilli()
}

func fromOptMillis(ms sql.NullInt64) *time.Time {
	if !ms.Valid {
		return nil
	}
	t := fromMillis(ms.Int64)
	return &t
}

func optString(s *string) any {
	if s == nil {
		return nil
	}
	return *s
}

func fromOptString(s sql.NullString) *string {
	if !s.Valid {
		return nil
	}
	return &s.String
}

func optUUID(u *uuid.UUID) any {
	if u == nil {
		return nil
	}
	return u[:]
}

// URI is the driver's name of the file at path with the settings q: the
// path escaped, since a ? or # in it would otherwise be read as the
// URI's query (a folder named "a?b" opened the file "a" instead).
func URI(path string, q url.Values) string {
	u := url.URL{Scheme: "file", Opaque: url.PathEscape(path), RawQuery: q.Encode()}
	return u.String()
}
