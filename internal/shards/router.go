// Package shards spreads organizations over several PostgreSQL primaries
// (gatehouse serve --shards). Each primary holds the whole schema; an
// organization lives, with every record of it, on one of them, so that
// every statement still runs on one database and no transaction spans two.
// The --db database keeps the directory of where each organization lives
// (an organization it does not list lives in --db itself), the service's
// secret and the leases, and is a shard like the others.
//
// Router is a gatehouse.Store over the shards: a method of one
// organization runs on that organization's shard (routed_*.go); a lookup
// by a key, a session or an email asks every shard at once and keeps the
// answer of the shard the directory names (lookups.go); background work
// runs on each shard in turn (background.go). A shard that does not answer
// fails its organizations' requests with gatehouse.ErrUnavailable and
// nothing else.
package shards

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gatehouse/gatehouse"
	"github.com/gatehouse/gatehouse/internal/clock"
	"github.com/gatehouse/gatehouse/internal/postgres"
	"github.com/gatehouse/gatehouse/internal/sqlstore"
	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
)

// Shard is one primary of a Router.
type Shard struct {
	ID   uuid.UUID `json:"id"`   // the id the database keeps (postgres.DB.ShardID); uuid.Nil until it answered
	Main bool      `json:"main"` // the --db database
	// Address is the DSN without its password: what `gatehouse shard
	// list` prints and errors name.
	Address string `json:"address"`

	dsn string
	db  *postgres.DB // nil until it answered
	// err is why it has not answered (its address, never its password);
	// identifying is set while an attempt runs.
	err         error
	identifying bool
}

// Router is a gatehouse.Store whose organizations live on several
// PostgreSQL primaries. Its zero value is not usable: see Open.
type Router struct {
	// Now is the clock of every shard's store. It defaults to time.Now.
	Now func() time.Time

	main *postgres.DB
	dir  *directory

	mu     sync.Mutex
	shards []*Shard // main first, then --shards in their order
	byID   map[uuid.UUID]*Shard
	// tried is when an unidentified shard was last tried: one that did
	// not answer at Open is tried again at most once per retryEvery.
	tried time.Time
	turn  atomic.Uint32 // claim's rotation

	openDB  func(context.Context, string) (*postgres.DB, error)
	migrate func(*postgres.DB, context.Context) error

	closed bool               // set by Close: an identification still running closes what it opened
	cancel context.CancelFunc // ends the directory's watch
	done   chan struct{}
}

var _ gatehouse.Store = (*Router)(nil)

// retryEvery is how often a shard that did not answer is tried again.
const retryEvery = time.Second

// Open opens the --db database at mainDSN and the shards at shardDSNs,
// migrating each, and starts following the directory's changes. A shard
// that does not answer now is tried again when one of its organizations is
// asked for: its organizations fail with gatehouse.ErrUnavailable until
// it answers, and the others are served. The main database must answer.
func Open(ctx context.Context, mainDSN string, shardDSNs []string) (*Router, error) {
	return open(ctx, mainDSN, shardDSNs, postgres.Open, (*postgres.DB).Migrate)
}

// OpenExisting is Open for a command that only reads: it migrates no
// database, and refuses one whose schema is not up to date
// (postgres.OpenExisting).
func OpenExisting(ctx context.Context, mainDSN string, shardDSNs []string) (*Router, error) {
	return open(ctx, mainDSN, shardDSNs, postgres.OpenExisting, func(*postgres.DB, context.Context) error { return nil })
}

func open(ctx context.Context, mainDSN string, shardDSNs []string,
	openDB func(context.Context, string) (*postgres.DB, error), migrate func(*postgres.DB, context.Context) error) (*Router, error) {
	main, err := openDB(ctx, mainDSN)
	if err != nil {
		return nil, err
	}
	r := &Router{Now: time.Now, main: main, byID: map[uuid.UUID]*Shard{}, done: make(chan struct{}), openDB: openDB, migrate: migrate}
	main.Now = r.clock
	r.dir = newDirectory(main, r.forgetOrganization)
	seen := map[string]bool{mainDSN: true}
	for _, dsn := range shardDSNs {
		if seen[dsn] {
			main.Close()
			return nil, fmt.Errorf("--shards: %s is given twice (or is --db)", address(dsn))
		}
		seen[dsn] = true
		r.shards = append(r.shards, &Shard{Address: address(dsn), dsn: dsn})
	}
	var wg sync.WaitGroup
	for _, s := range r.shards {
		wg.Go(func() { r.identify(ctx, s) })
	}
	var mainErr error
	wg.Go(func() { mainErr = r.add(ctx, &Shard{Main: true, Address: address(mainDSN), dsn: mainDSN}, main) })
	wg.Wait()
	if mainErr == nil {
		mainErr = r.checkMain(ctx)
	}
	for _, s := range r.shards {
		if errors.Is(s.err, errSameDatabase) || errors.Is(s.err, gatehouse.ErrConflict) {
			mainErr = errors.Join(mainErr, s.err)
		}
	}
	if mainErr != nil {
		r.closeAll()
		main.Close() // when it was not added
		return nil, mainErr
	}
	watching, cancel := context.WithCancel(context.WithoutCancel(ctx))
	r.cancel = cancel
	go func() {
		defer close(r.done)
		r.dir.follow(watching)
	}()
	return r, nil
}

// clock is the time on r.Now: the shards' stores read it at each use,
// so that setting r.Now sets every shard's clock.
func (r *Router) clock() time.Time { return r.Now() }

// Shards returns the router's shards, main first.
func (r *Router) Shards() []Shard {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([]Shard, len(r.shards))
	for i, s := range r.shards {
		out[i] = *s
	}
	return out
}

// open returns the shards that answer, main first.
func (r *Router) open() []*postgres.DB {
	shards, _ := r.answering()
	dbs := make([]*postgres.DB, len(shards))
	for i, s := range shards {
		dbs[i] = s.db
	}
	return dbs
}

// ErrShardUnknown: the directory places an organization on a shard that
// is not among --shards, or has not answered since the instance started.
var ErrShardUnknown = errors.New("the organization's shard is not reachable from this instance")

// call is a store method and the ids it acts on, its organization first:
// what labels a failure to find the organization's shard, as the stores
// label their own (sqlstore.Label).
type call struct {
	op  string
	ids []uuid.UUID
}

// method is the call op of the organization ids[0] (about the records
// ids[1:]).
func method(op string, ids ...uuid.UUID) call { return call{op, ids} }

// of returns the store of c's organization's shard: --db's for an
// organization the directory does not place (and for uuid.Nil). While the
// organization is being moved it waits, up to moveHold, for the move to
// end.
func (r *Router) of(ctx context.Context, c call) (_ *postgres.DB, err error) {
	defer sqlstore.Label(&err, c.op, c.ids...)
	orgID := c.ids[0]
	if orgID == uuid.Nil {
		return r.main, nil
	}
	e, err := r.settled(ctx, orgID)
	if err != nil {
		return nil, err
	}
	return r.dbOf(ctx, e)
}

// moveHold is how long a call of an organization being moved waits for
// the move to end before it fails with gatehouse.ErrUnavailable (a 503
// the client tries again): a move holds calls for two to three seconds
// (move.go).
var moveHold = 10 * time.Second

// errMoving fails a call of an organization whose move did not end
// within moveHold.
var errMoving = fmt.Errorf("%w: the organization is being moved to another shard; try again in a few seconds", gatehouse.ErrUnavailable)

// settled returns the directory's entry of org once it is not moving,
// waiting up to moveHold.
func (r *Router) settled(ctx context.Context, org uuid.UUID) (postgres.DirectoryEntry, error) {
	deadline := time.Now().Add(moveHold)
	for {
		e, err := r.dir.lookup(ctx, org, nil)
		if err != nil || !e.Moving {
			return e, err
		}
		if time.Now().After(deadline) {
			return e, errMoving
		}
		if !clock.Sleep(ctx, 20*time.Millisecond) {
			return e, ctx.Err()
		}
	}
}

// dbOf returns the store of the shard e names.
func (r *Router) dbOf(ctx context.Context, e postgres.DirectoryEntry) (*postgres.DB, error) {
	if !e.Placed {
		return r.main, nil
	}
	if db := r.byIDOpen(e.Shard); db != nil {
		return db, nil
	}
	r.retry(ctx)
	if db := r.byIDOpen(e.Shard); db != nil {
		return db, nil
	}
	return nil, fmt.Errorf("%w: %w (shard %s; is it among --shards, and up?)", gatehouse.ErrUnavailable, ErrShardUnknown, e.Shard)
}

func (r *Router) byIDOpen(id uuid.UUID) *postgres.DB {
	r.mu.Lock()
	defer r.mu.Unlock()
	if s, ok := r.byID[id]; ok {
		return s.db
	}
	return nil
}

// ticketKey is the context key of a routed call's ticket: the
// organization whose shard it was routed to.
type ticketKey struct{}

type ticket struct {
	org uuid.UUID
	db  *postgres.DB
}

// routed runs fn on the shard of c's organization.
func routed(r *Router, ctx context.Context, c call, fn func(context.Context, *postgres.DB) error) error {
	_, err := routedTo(r, ctx, c, func(ctx context.Context, db *postgres.DB) (struct{}, error) { return struct{}{}, fn(ctx, db) })
	return err
}

// routedTo runs fn on the shard of c's organization and returns its
// result. fn's context carries the call's ticket, which each shard's
// acquire check (checkAcquire) holds against the directory.
func routedTo[T any](r *Router, ctx context.Context, c call, fn func(context.Context, *postgres.DB) (T, error)) (T, error) {
	db, err := r.of(ctx, c)
	if err != nil {
		var zero T
		return zero, err
	}
	return fn(context.WithValue(ctx, ticketKey{}, &ticket{org: c.ids[0], db: db}), db)
}

// checkAcquire is db's acquire check: a routed call takes each connection
// of db only while the directory still places its organization on db and
// does not mark it moving. A call routed just before a move began thus
// fails (gatehouse.ErrUnavailable, tried again by its client) at its next
// statement rather than write to a shard the move has copied from.
//
// On --db, the directory is read, when it must be, on the connection being
// taken: taking another from the same pool could wait for ever on a pool
// whose every connection waits the same way.
func (r *Router) checkAcquire(db *postgres.DB) func(context.Context, *pgx.Conn) error {
	return func(ctx context.Context, conn *pgx.Conn) error {
		t, ok := ctx.Value(ticketKey{}).(*ticket)
		if !ok || t == nil || t.org == uuid.Nil {
			return nil
		}
		if db != r.main {
			conn = nil
		}
		e, err := r.dir.lookup(ctx, t.org, conn)
		if err != nil {
			return err
		}
		if e.Moving {
			return errMoving
		}
		if now, err := r.dbOf(ctx, e); err != nil || now != db {
			return fmt.Errorf("%w: the organization moved to another shard during the call; try again", gatehouse.ErrUnavailable)
		}
		return nil
	}
}

// forgetOrganization drops what every shard's store remembers of org
// (uuid.Nil: of every organization) when its directory entry changes.
func (r *Router) forgetOrganization(org uuid.UUID) {
	for _, db := range r.open() {
		db.ForgetOrganization(org)
	}
}

// Migrate migrates every shard that answers; Open already did, so this
// only serves a caller that treats the Router like one database.
func (r *Router) Migrate(ctx context.Context) error {
	var errs []error
	for _, db := range r.open() {
		errs = append(errs, db.Migrate(ctx))
	}
	return errors.Join(errs...)
}

// Ping reports whether the --db database answers: a shard that does not
// fails only its organizations' requests, so it does not make the
// instance unready.
func (r *Router) Ping(ctx context.Context) error { return r.main.Ping(ctx) }

// Secret implements gatehouse.Store: the service's secret is --db's.
func (r *Router) Secret(ctx context.Context) ([]byte, error) { return r.main.Secret(ctx) }

// TryLease implements gatehouse.Store on --db: a lease names work, not a
// shard, and work that runs shard by shard names the shard in its lease.
func (r *Router) TryLease(ctx context.Context, name, holder string, now time.Time, ttl time.Duration) (bool, error) {
	return r.main.TryLease(ctx, name, holder, now, ttl)
}

// Close stops following the directory and closes every shard.
func (r *Router) Close() error {
	r.mu.Lock()
	r.closed = true
	r.mu.Unlock()
	r.cancel()
	<-r.done
	return r.closeAll()
}

// closeAll closes every shard's store that is open.
func (r *Router) closeAll() error {
	var errs []error
	for _, db := range r.open() {
		errs = append(errs, db.Close())
	}
	return errors.Join(errs...)
}

// address is dsn, a postgres:// URL, without its password or its
// parameters (which may carry one).
func address(dsn string) string {
	u, err := url.Parse(dsn)
	if err != nil {
		return "(a DSN that is not a URL)"
	}
	u.RawQuery = ""
	return u.Redacted()
}
