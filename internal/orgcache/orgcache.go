// Package orgcache remembers the integer keys that both stores give
// organizations in their tables. Organizations are never deleted, so an
// entry never goes stale.
package orgcache

import (
	"sync"

	"github.com/google/uuid"
)

// Cache maps organization ids to their integer keys. Its zero value is
// ready to use and safe for concurrent use.
type Cache struct {
	mu sync.RWMutex
	m  map[uuid.UUID]int64
}

// Get returns the key of id, or false when it is not known yet.
func (c *Cache) Get(id uuid.UUID) (int64, bool) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	seq, ok := c.m[id]
	return seq, ok
}

// Put remembers the key of id.
func (c *Cache) Put(id uuid.UUID, seq int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil {
		c.m = make(map[uuid.UUID]int64)
	}
	c.m[id] = seq
}
