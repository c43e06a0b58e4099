package auth

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/gatehouse/gatehouse"
	"github.com/google/uuid"
)

// CacheTTL bounds how long a found key is trusted without reading the
// store again: a key revoked anywhere is refused everywhere within it.
const CacheTTL = 500 * time.Millisecond

// LastUsedInterval is the least time between two writes of one key's
// last-used time.
const LastUsedInterval = time.Minute

const maxCached = 10_000

// Failure says why a request is not authenticated. Reason is one of
// "missing", "malformed", "unknown", "revoked" and "expired". It never
// holds the token.
type Failure struct {
	Reason string
}

func (f *Failure) Error() string { return "authentication failed: " + f.Reason + " API key" }

// TokenSent reports whether the request carried a token at all.
func (f *Failure) TokenSent() bool { return f.Reason != "missing" }

// Authenticator resolves bearer tokens to API keys. It is safe for
// concurrent use.
type Authenticator struct {
	store gatehouse.Store
	now   func() time.Time

	mu      sync.Mutex
	cache   map[gatehouse.KeyHash]cached
	pending map[uuid.UUID]time.Time // last uses not yet written
	written map[uuid.UUID]time.Time // when each key's last use was last written
}

type cached struct {
	key     gatehouse.APIKey
	fetched time.Time
}

// New returns an Authenticator reading keys from store.
func New(store gatehouse.Store, now func() time.Time) *Authenticator {
	return &Authenticator{
		store:   store,
		now:     now,
		cache:   make(map[gatehouse.KeyHash]cached),
		pending: make(map[uuid.UUID]time.Time),
		written: make(map[uuid.UUID]time.Time),
	}
}

// Authenticate resolves the value of an Authorization header. It returns
// the key, a *Failure, or a store error (such as gatehouse.ErrUnavailable).
// A token of the wrong shape or checksum fails without any store access.
func (a *Authenticator) Authenticate(ctx context.Context, header string) (gatehouse.APIKey, error) {
	scheme, token, _ := strings.Cut(strings.TrimSpace(header), " ")
	token = strings.TrimLeft(token, " ")
	switch {
	case header == "":
		return gatehouse.APIKey{}, &Failure{Reason: "missing"}
	case !strings.EqualFold(scheme, "Bearer"):
		return gatehouse.APIKey{}, &Failure{Reason: "malformed"}
	}
	hash, err := gatehouse.ParseKey(token)
	if err != nil {
		return gatehouse.APIKey{}, &Failure{Reason: "malformed"}
	}
	now := a.now()
	key, err := a.lookup(ctx, hash, now)
	if err != nil {
		return gatehouse.APIKey{}, err
	}
	if status := key.Status(now); status != "active" {
		return gatehouse.APIKey{}, &Failure{Reason: status}
	}
	a.mu.Lock()
	a.pending[key.ID] = now
	a.mu.Unlock()
	return key, nil
}

func (a *Authenticator) lookup(ctx context.Context, hash gatehouse.KeyHash, now time.Time) (gatehouse.APIKey, error) {
	a.mu.Lock()
	c, ok := a.cache[hash]
	a.mu.Unlock()
	if ok && now.Sub(c.fetched) < CacheTTL && c.key.Hash.Equal(hash) {
		return c.key, nil
	}
	key, err := a.store.FindAPIKeyByHash(ctx, hash)
	if errors.Is(err, gatehouse.ErrNotFound) {
		return key, &Failure{Reason: "unknown"}
	}
	if err != nil {
		return key, fmt.Errorf("auth: %w", err)
	}
	if !key.Hash.Equal(hash) {
		return key, &Failure{Reason: "unknown"}
	}
	a.mu.Lock()
	if len(a.cache) >= maxCached {
		for h, c := range a.cache {
			if now.Sub(c.fetched) >= CacheTTL || len(a.cache) >= maxCached {
				delete(a.cache, h)
			}
		}
	}
	a.cache[hash] = cached{key: key, fetched: now}
	a.mu.Unlock()
	return key, nil
}

// Flush writes the pending last-use times of keys not written within
// LastUsedInterval, in one store call. On failure they stay pending.
func (a *Authenticator) Flush(ctx context.Context) error {
	now := a.now()
	batch := make(map[uuid.UUID]time.Time)
	a.mu.Lock()
	for id, at := range a.pending {
		if w, ok := a.written[id]; !ok || now.Sub(w) >= LastUsedInterval {
			batch[id] = at
			delete(a.pending, id)
		}
	}
	a.mu.Unlock()
	if len(batch) == 0 {
		return nil
	}
	if err := a.store.MarkAPIKeysUsed(ctx, batch); err != nil {
		a.mu.Lock()
		for id, at := range batch {
			if p, ok := a.pending[id]; !ok || p.Before(at) {
				a.pending[id] = at
			}
		}
		a.mu.Unlock()
		return fmt.Errorf("auth: writing last-used times: %w", err)
	}
	a.mu.Lock()
	for id := range batch {
		a.written[id] = now
	}
	for id, w := range a.written { // forget keys idle long enough to be written at once anyway
		if now.Sub(w) >= LastUsedInterval {
			if _, p := a.pending[id]; !p {
				delete(a.written, id)
			}
		}
	}
	a.mu.Unlock()
	return nil
}

// Run flushes last-use times every 15 s until ctx is done, then once more.
func (a *Authenticator) Run(ctx context.Context) {
	t := time.NewTicker(15 * time.Second)
	defer t.Stop()
	for {
		select {
		case <-t.C:
			a.Flush(ctx)
		case <-ctx.Done():
			final, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
			a.Flush(final)
			cancel()
			return
		}
	}
}
