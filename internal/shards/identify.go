package shards

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/gatehouse/gatehouse"
	"github.com/gatehouse/gatehouse/internal/postgres"
	"github.com/google/uuid"
)

// How a router learns which database each address is (its shard id),
// migrating it, and tries again those that did not answer.

// errSameDatabase: two addresses of the router reach one database.
var errSameDatabase = errors.New("is the same database as")

// add migrates db, the open database of s, identifies it and records it;
// a shard that is not main is marked as the shard of main's database.
func (r *Router) add(ctx context.Context, s *Shard, db *postgres.DB) error {
	if err := r.migrate(db, ctx); err != nil {
		return fmt.Errorf("shard %s: %w", s.Address, err)
	}
	id, err := db.ShardID(ctx)
	if err != nil {
		return fmt.Errorf("shard %s: %w", s.Address, err)
	}
	if !s.Main {
		if err := r.markShard(ctx, db); err != nil {
			return fmt.Errorf("shard %s: %w", s.Address, err)
		}
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	switch other, ok := r.byID[id]; {
	case r.closed:
		return errors.New("the router is closed")
	case ok && other != s:
		return fmt.Errorf("shard %s %w %s (shard %s): give each primary once", s.Address, errSameDatabase, other.Address, id)
	case s.db != nil:
		return errors.New("identified already")
	}
	s.ID, s.db, s.err = id, db, nil
	db.CheckAcquire(r.checkAcquire(db))
	r.byID[id] = s
	if s.Main {
		r.shards = append([]*Shard{s}, r.shards...)
	}
	return nil
}

// markShard marks db as a shard of main's database, once main is known
// (Open identifies main and the shards at once, and marks the shards
// that answered after).
func (r *Router) markShard(ctx context.Context, db *postgres.DB) error {
	r.mu.Lock()
	main := r.mainID()
	r.mu.Unlock()
	if main == uuid.Nil {
		return nil
	}
	return db.MarkShardOf(ctx, main)
}

// mainID is --db's shard id, uuid.Nil until it is known; r.mu is held.
func (r *Router) mainID() uuid.UUID {
	if len(r.shards) > 0 && r.shards[0].Main {
		return r.shards[0].ID
	}
	return uuid.Nil
}

// checkMain refuses a --db that is itself a shard, and marks the shards
// that answered while --db was being identified.
func (r *Router) checkMain(ctx context.Context) error {
	if of, shard, err := r.main.ShardOfMain(ctx); err != nil {
		return err
	} else if shard {
		return fmt.Errorf("%w: the --db database is a shard of the --db whose shard id is %s: give that one as --db", gatehouse.ErrConflict, of)
	}
	for _, s := range r.Shards() {
		if !s.Main && s.db != nil {
			if err := s.db.MarkShardOf(ctx, r.Shards()[0].ID); err != nil {
				return fmt.Errorf("shard %s: %w", s.Address, err)
			}
		}
	}
	return nil
}

// identify opens, migrates and identifies s, leaving it unidentified (with
// the reason in s.err) when it does not answer. Only one attempt at a
// time runs for a shard.
func (r *Router) identify(ctx context.Context, s *Shard) {
	r.mu.Lock()
	if s.identifying || s.db != nil || r.closed {
		r.mu.Unlock()
		return
	}
	s.identifying = true
	r.mu.Unlock()
	err := func() error {
		db, err := r.openDB(ctx, s.dsn)
		if err != nil {
			return err
		}
		db.Now = r.clock
		if err := r.add(ctx, s, db); err != nil {
			db.Close()
			return err
		}
		return nil
	}()
	r.mu.Lock()
	s.identifying, s.err = false, err
	r.mu.Unlock()
}

// retry tries again, at most once per retryEvery, the shards that have not
// answered yet.
func (r *Router) retry(ctx context.Context) {
	r.mu.Lock()
	var pending []*Shard
	if time.Since(r.tried) >= retryEvery {
		r.tried = time.Now()
		for _, s := range r.shards {
			if s.db == nil {
				pending = append(pending, s)
			}
		}
	}
	r.mu.Unlock()
	for _, s := range pending {
		r.identify(ctx, s)
	}
}
