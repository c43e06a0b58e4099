package shards

import (
	"context"
	"sync"
	"time"

	"github.com/gatehouse/gatehouse/internal/postgres"
	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
)

// Timings of the directory's cache (variables for the tests).
var (
	// directoryTTL bounds how long an entry is used at all: a change is
	// heard within milliseconds (NOTIFY, migration 0030), and this is a
	// last resort.
	directoryTTL = 30 * time.Second
	// directoryTrust is how recent the listener's last proof of having
	// heard every change (postgres.DB.WatchDirectory) must be for cached
	// entries to be used: a listener whose connection silently stopped
	// delivering stops being trusted within this, and every call reads
	// the directory until it is back. A shard move waits this long after
	// marking an organization moving, so that no instance still routes to
	// the shard it leaves from an entry read before the mark.
	directoryTrust = time.Second
)

// directory is an instance's cache of the --db database's directory
// (organization → shard). Every change made by any instance reaches it
// through PostgreSQL's notifications, which drop the organization's entry;
// when the listening connection is made again, every entry is dropped,
// since a change may have been missed.
type directory struct {
	db *postgres.DB
	// changed is told of each organization whose entry changed (uuid.Nil:
	// every one).
	changed func(org uuid.UUID)

	mu      sync.Mutex
	entries map[uuid.UUID]entry
	// generation counts the drops of every entry: a lookup that began
	// before one does not store what it read, which may predate it.
	generation uint64
	// caughtUp is the latest time before which the listener has heard
	// every change.
	caughtUp time.Time
	now      func() time.Time
}

type entry struct {
	postgres.DirectoryEntry
	read time.Time
}

func newDirectory(db *postgres.DB, changed func(uuid.UUID)) *directory {
	return &directory{db: db, changed: changed, entries: map[uuid.UUID]entry{}, now: time.Now}
}

// lookup returns where the directory places org: from the cache while it
// is trusted, from the database otherwise (on conn, a connection of --db,
// when not nil).
//
// An entry is trusted while the listener has heard every change up to
// directoryTrust ago, or for directoryTrust after it was read: either way
// a change made earlier than that is known (a shard move relies on it).
func (d *directory) lookup(ctx context.Context, org uuid.UUID, conn *pgx.Conn) (postgres.DirectoryEntry, error) {
	now := d.now()
	d.mu.Lock()
	e, ok := d.entries[org]
	gen := d.generation
	heard := now.Sub(d.caughtUp) < directoryTrust
	d.mu.Unlock()
	if ok && now.Sub(e.read) < directoryTTL && (heard || now.Sub(e.read) < directoryTrust) {
		return e.DirectoryEntry, nil
	}
	// The directory's own statements are no organization's call: the
	// acquire check of --db (Router.checkAcquire) lets them through.
	ctx = context.WithValue(ctx, ticketKey{}, nil)
	var placed postgres.DirectoryEntry
	var err error
	if conn != nil {
		placed, err = postgres.ShardOfOn(ctx, conn, org)
	} else {
		placed, err = d.db.ShardOf(ctx, org)
	}
	if err != nil {
		return postgres.DirectoryEntry{}, err
	}
	d.mu.Lock()
	if d.generation == gen {
		d.entries[org] = entry{DirectoryEntry: placed, read: now}
	}
	d.mu.Unlock()
	return placed, nil
}

// forget drops org's entry; uuid.Nil drops every entry.
func (d *directory) forget(org uuid.UUID) {
	d.mu.Lock()
	d.generation++
	if org == uuid.Nil {
		clear(d.entries)
	} else {
		delete(d.entries, org)
	}
	d.mu.Unlock()
	d.changed(org)
}

// heardUpTo records that every change before t has been heard.
func (d *directory) heardUpTo(t time.Time) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if t.After(d.caughtUp) {
		d.caughtUp = t
	}
}

// follow drops the entries the database says changed, until ctx ends.
func (d *directory) follow(ctx context.Context) {
	d.db.WatchDirectory(ctx, d.forget, d.heardUpTo)
}
