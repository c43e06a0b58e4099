package sqlstore

import (
	"sync"
	"time"
)

// generations is the bounded memory of [TermCache] and [SpanCache]. It
// keeps two generations of at most termCacheSize entries: when the
// current one fills, it becomes the previous one and the older is
// dropped, so memory stays bounded and entries in use stay known. It
// trusts itself termCacheAge at most: erasure and retention delete rows
// of which other instances know nothing, so it empties itself that long
// after it last did. Its owner holds the lock; the zero value is ready.
type generations[K comparable, V any] struct {
	cur, prev map[K]V
	born      time.Time // when it was last emptied
	now       func() time.Time
}

// age empties the memory when it is older than termCacheAge.
func (g *generations[K, V]) age() {
	now := time.Now
	if g.now != nil {
		now = g.now
	}
	if t := now(); t.Sub(g.born) >= termCacheAge {
		g.cur, g.prev, g.born = nil, nil, t
	}
}

// get returns what it holds for k. An entry found in the previous
// generation is in use: it moves to the current one, to stay through the
// next.
func (g *generations[K, V]) get(k K) (V, bool) {
	if v, ok := g.cur[k]; ok {
		return v, true
	}
	v, ok := g.prev[k]
	if ok {
		g.put(k, v)
	}
	return v, ok
}

// put holds v for k in the current generation, starting a new one when
// the current is full.
func (g *generations[K, V]) put(k K, v V) {
	if g.cur == nil || len(g.cur) >= termCacheSize {
		g.prev, g.cur = g.cur, make(map[K]V, 1024)
	}
	g.cur[k] = v
}

// forget drops k from both generations.
func (g *generations[K, V]) forget(k K) {
	delete(g.cur, k)
	delete(g.prev, k)
}

// Memory is a bounded map safe for concurrent use, for values that never
// change meaning (PostgreSQL's keys of event values): two generations of
// at most termCacheSize entries, which never age. The zero value is
// ready.
type Memory[K comparable, V any] struct {
	mu sync.Mutex
	g  generations[K, V]
}

// Get returns what the memory holds for k.
func (m *Memory[K, V]) Get(k K) (V, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.g.get(k)
}

// Put holds v for k.
func (m *Memory[K, V]) Put(k K, v V) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.g.put(k, v)
}
