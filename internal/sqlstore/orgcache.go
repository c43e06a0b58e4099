package sqlstore

import (
	"errors"
	"fmt"
	"sync"

	"github.com/gatehouse/gatehouse"
	"github.com/google/uuid"
)

// OrgCache remembers the integer keys that both stores give organizations
// in their tables. Organizations are never deleted, except from the
// PostgreSQL primary a shard move takes one from, which Forget says. Its
// zero value is ready to use and safe for concurrent use.
type OrgCache struct {
	mu sync.RWMutex
	m  map[uuid.UUID]int64
}

// Seq returns the integer key of the organization id: from the cache, or
// else from lookup, which reads it from the database and returns an error
// matching noRows (errors.Is) when there is no such row. The key found is
// remembered.
//
// Errors: gatehouse.ErrNotFound when there is no such organization;
// lookup's other errors as they are.
func (c *OrgCache) Seq(id uuid.UUID, noRows error, lookup func() (int64, error)) (int64, error) {
	c.mu.RLock()
	seq, ok := c.m[id]
	c.mu.RUnlock()
	if ok {
		return seq, nil
	}
	seq, err := lookup()
	if errors.Is(err, noRows) {
		return 0, fmt.Errorf("organization %s: %w", id, gatehouse.ErrNotFound)
	}
	if err != nil {
		return 0, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil {
		c.m = make(map[uuid.UUID]int64)
	}
	c.m[id] = seq
	return seq, nil
}

// Forget drops the key of the organization id; uuid.Nil drops every key.
func (c *OrgCache) Forget(id uuid.UUID) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if id == uuid.Nil {
		clear(c.m)
		return
	}
	delete(c.m, id)
}
