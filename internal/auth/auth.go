package auth

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/gatehouse/gatehouse"
	"github.com/google/uuid"
)

// CacheTTL bounds how long a found key is trusted without reading the
// store again: a key revoked anywhere is refused everywhere within it.
const CacheTTL = 500 * time.Millisecond

// UnknownTTL bounds how long a hash the store did not hold is answered
// "unknown" without reading the store again, so that a flood repeating
// well-formed unknown keys reaches the store once per key and UnknownTTL.
// It is as short as CacheTTL because a key created a moment ago must work
// on every instance within a second.
const UnknownTTL = 500 * time.Millisecond

// KnownValidFor is how long a key found active stays known as valid: its
// store lookups then need no reservation (see Reserve), so that a client
// with a good key is never refused for failures of others at its address.
const KnownValidFor = time.Hour

// LastUsedInterval is the least time between two writes of one key's
// last-used time.
const LastUsedInterval = time.Minute

// Bounds on the caches: found keys (at most one entry per real key) and
// unknown hashes (anyone can make up any number of them).
const (
	maxCached  = 10_000
	maxUnknown = 10_000
)

// Failure says why a request is not authenticated. Reason is one of
// "missing", "malformed", "unknown", "revoked" and "expired". It never
// holds the token.
type Failure struct {
	Reason string
}

func (f *Failure) Error() string { return "authentication failed: " + f.Reason + " API key" }

// TokenSent reports whether the request carried a token at all.
func (f *Failure) TokenSent() bool { return f.Reason != "missing" }

// Reserve spends, in advance, one failure from the caller's budget of
// failed authentications (per client address, say), and returns the
// refund to call if the attempt proves not to be a failure. An error
// refuses the attempt; Authenticate returns it unchanged.
type Reserve func(ctx context.Context) (refund func(), err error)

// Authenticator resolves bearer tokens to API keys. It is safe for
// concurrent use.
type Authenticator struct {
	// Logger receives the failures of Run's periodic writes; nil: discarded.
	Logger *slog.Logger

	store gatehouse.Store
	now   func() time.Time

	mu      sync.Mutex
	cache   map[gatehouse.KeyHash]cached
	unknown map[gatehouse.KeyHash]time.Time // when the store last did not hold each hash
	pending map[uuid.UUID]time.Time         // last uses not yet written
	written map[uuid.UUID]time.Time         // when each key's last use was last written
}

type cached struct {
	key     gatehouse.APIKey
	fetched time.Time
	active  bool // the key was active when fetched
}

// New returns an Authenticator reading keys from store.
func New(store gatehouse.Store, now func() time.Time) *Authenticator {
	return &Authenticator{
		store:   store,
		now:     now,
		cache:   make(map[gatehouse.KeyHash]cached),
		unknown: make(map[gatehouse.KeyHash]time.Time),
		pending: make(map[uuid.UUID]time.Time),
		written: make(map[uuid.UUID]time.Time),
	}
}

// Authenticate resolves the value of an Authorization header. It returns
// the key, a *Failure, the error of reserve, or a store error (such as
// gatehouse.ErrUnavailable). A token of the wrong shape or checksum fails
// without any store access.
//
// Every attempt except one with a key known to be valid (found active on
// this instance within KnownValidFor) calls reserve first, before the
// store is read, and refunds it when the key proves active or the store
// fails; so reserve bounds the store lookups for keys not known to be
// valid, however many requests arrive at once, while known-valid keys
// are never refused by it. A failure of a known-valid key (revoked since)
// is charged afterwards. A nil reserve reserves nothing.
func (a *Authenticator) Authenticate(ctx context.Context, header string, reserve Reserve) (gatehouse.APIKey, error) {
	if reserve == nil {
		reserve = func(context.Context) (func(), error) { return func() {}, nil }
	}
	hash, err := parseHeader(header)
	now := a.now()
	if err == nil && a.knownValid(hash, now) {
		key, err := a.lookup(ctx, hash, now)
		var failure *Failure
		if errors.As(err, &failure) {
			if _, rerr := reserve(ctx); rerr != nil {
				return gatehouse.APIKey{}, rerr
			}
		}
		return key, err
	}
	refund, rerr := reserve(ctx)
	if rerr != nil {
		return gatehouse.APIKey{}, rerr
	}
	if err != nil {
		return gatehouse.APIKey{}, err
	}
	key, err := a.lookup(ctx, hash, now)
	var failure *Failure
	if !errors.As(err, &failure) {
		refund() // a valid key, or a store that failed: neither is the client's failure
	}
	return key, err
}

// parseHeader reads "Bearer <token>" and checks the token's shape.
func parseHeader(header string) (gatehouse.KeyHash, error) {
	scheme, token, _ := strings.Cut(strings.TrimSpace(header), " ")
	token = strings.TrimLeft(token, " ")
	switch {
	case header == "":
		return gatehouse.KeyHash{}, &Failure{Reason: "missing"}
	case !strings.EqualFold(scheme, "Bearer"):
		return gatehouse.KeyHash{}, &Failure{Reason: "malformed"}
	}
	hash, err := gatehouse.ParseKey(token)
	if err != nil {
		return gatehouse.KeyHash{}, &Failure{Reason: "malformed"}
	}
	return hash, nil
}

// knownValid reports whether the key of hash was found active within
// KnownValidFor.
func (a *Authenticator) knownValid(hash gatehouse.KeyHash, now time.Time) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	c, ok := a.cache[hash]
	return ok && c.active && now.Sub(c.fetched) < KnownValidFor
}

// lookup finds the active key of hash: from the cache within CacheTTL,
// as unknown within UnknownTTL of the store not holding it, else from the
// store. It records last use of an active key.
func (a *Authenticator) lookup(ctx context.Context, hash gatehouse.KeyHash, now time.Time) (gatehouse.APIKey, error) {
	key, err := a.find(ctx, hash, now)
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

func (a *Authenticator) find(ctx context.Context, hash gatehouse.KeyHash, now time.Time) (gatehouse.APIKey, error) {
	a.mu.Lock()
	c, ok := a.cache[hash]
	missed, isUnknown := a.unknown[hash]
	a.mu.Unlock()
	if ok && now.Sub(c.fetched) < CacheTTL && c.key.Hash.Equal(hash) {
		return c.key, nil
	}
	if isUnknown && now.Sub(missed) < UnknownTTL {
		return gatehouse.APIKey{}, &Failure{Reason: "unknown"}
	}
	key, err := a.store.FindAPIKeyByHash(ctx, hash)
	if errors.Is(err, gatehouse.ErrNotFound) || err == nil && !key.Hash.Equal(hash) {
		a.mu.Lock()
		evict(a.unknown, maxUnknown, func(at time.Time) bool { return now.Sub(at) >= UnknownTTL })
		a.unknown[hash] = now
		delete(a.cache, hash)
		a.mu.Unlock()
		return gatehouse.APIKey{}, &Failure{Reason: "unknown"}
	}
	if err != nil {
		return key, fmt.Errorf("auth: %w", err)
	}
	a.mu.Lock()
	evict(a.cache, maxCached, func(c cached) bool { return now.Sub(c.fetched) >= KnownValidFor })
	a.cache[hash] = cached{key: key, fetched: now, active: key.Status(now) == "active"}
	delete(a.unknown, hash)
	a.mu.Unlock()
	return key, nil
}

// evict makes room for one more entry in a cache of at most size entries:
// when it is full it drops the stale entries, and then, if none was stale,
// arbitrary ones (Go's map order) until there is room.
func evict[V any](m map[gatehouse.KeyHash]V, size int, stale func(V) bool) {
	if len(m) < size {
		return
	}
	for h, v := range m {
		if stale(v) {
			delete(m, h)
		}
	}
	for h := range m {
		if len(m) < size {
			return
		}
		delete(m, h)
	}
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
// A failed flush is logged (the times stay pending for the next one): a
// database that refuses them for long is an operator's concern.
func (a *Authenticator) Run(ctx context.Context) {
	t := time.NewTicker(15 * time.Second)
	defer t.Stop()
	for {
		select {
		case <-t.C:
			a.logFailure(ctx, a.Flush(ctx))
		case <-ctx.Done():
			final, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
			a.logFailure(final, a.Flush(final))
			cancel()
			return
		}
	}
}

func (a *Authenticator) logFailure(ctx context.Context, err error) {
	if err != nil && a.Logger != nil {
		a.Logger.LogAttrs(ctx, slog.LevelError, "writing last-used times failed; they stay pending",
			slog.String("error", err.Error()))
	}
}
