package shards

import (
	"context"
	"sync"
	"time"

	"github.com/gatehouse/gatehouse/internal/postgres"
	"github.com/google/uuid"
)

// directoryTTL bounds how long an entry is trusted without a word from
// the database: a change is normally heard within milliseconds (NOTIFY,
// migration 0030), and this covers a notification lost with a connection
// that had not yet noticed it was dropped.
const directoryTTL = 30 * time.Second

// directory is an instance's cache of the --db database's directory
// (organization → shard). Every change made by any instance reaches it
// through PostgreSQL's notifications, which drop the organization's entry;
// when the listening connection is made again, every entry is dropped,
// since a change may have been missed.
type directory struct {
	db *postgres.DB

	mu      sync.Mutex
	entries map[uuid.UUID]entry
	// generation counts the drops of every entry: a lookup that began
	// before one does not store what it read, which may predate it.
	generation uint64
	now        func() time.Time
}

type entry struct {
	shard uuid.UUID // uuid.Nil: the --db database
	read  time.Time
}

func newDirectory(db *postgres.DB) *directory {
	return &directory{db: db, entries: map[uuid.UUID]entry{}, now: time.Now}
}

// shardOf returns the shard of org, uuid.Nil for the --db database.
func (d *directory) shardOf(ctx context.Context, org uuid.UUID) (uuid.UUID, error) {
	d.mu.Lock()
	e, ok := d.entries[org]
	gen := d.generation
	d.mu.Unlock()
	if ok && d.now().Sub(e.read) < directoryTTL {
		return e.shard, nil
	}
	shard, _, err := d.db.ShardOf(ctx, org)
	if err != nil {
		return uuid.Nil, err
	}
	d.mu.Lock()
	if d.generation == gen {
		d.entries[org] = entry{shard: shard, read: d.now()}
	}
	d.mu.Unlock()
	return shard, nil
}

// forget drops org's entry; uuid.Nil drops every entry.
func (d *directory) forget(org uuid.UUID) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.generation++
	if org == uuid.Nil {
		clear(d.entries)
		return
	}
	delete(d.entries, org)
}

// follow drops the entries the database says changed, until ctx ends.
func (d *directory) follow(ctx context.Context) {
	d.db.WatchDirectory(ctx, d.forget)
}
