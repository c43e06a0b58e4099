package service

import (
	"context"
	"sync"
	"time"

	"github.com/gatehouse/gatehouse"
	"github.com/google/uuid"
)

// ReadSlots bound how many event reads of one organization run at once,
// so that one organization's concurrent searches cannot take every
// connection of the pool: a search can cost a connection for hundreds of
// milliseconds, and every other organization's first page would wait
// behind them. The bound is per organization, not per key, since an
// organization can make keys at will.
type ReadSlots struct {
	perOrg int
	wait   time.Duration
	mu     sync.Mutex
	orgs   map[uuid.UUID]*orgSlots
}

// orgSlots is one organization's semaphore and how many reads hold or
// await it, so that the map forgets idle organizations.
type orgSlots struct {
	held  chan struct{}
	users int
}

// NewReadSlots lets perOrg reads of each organization run at once; a read
// beyond that waits up to wait for a turn.
func NewReadSlots(perOrg int, wait time.Duration) *ReadSlots {
	return &ReadSlots{perOrg: max(perOrg, 1), wait: wait, orgs: map[uuid.UUID]*orgSlots{}}
}

// Acquire takes one of the organization's slots and returns the function
// that gives it back. [gatehouse.ErrBusy] when none frees within the wait;
// the context's error when it ends first.
func (r *ReadSlots) Acquire(ctx context.Context, orgID uuid.UUID) (release func(), err error) {
	r.mu.Lock()
	o := r.orgs[orgID]
	if o == nil {
		o = &orgSlots{held: make(chan struct{}, r.perOrg)}
		r.orgs[orgID] = o
	}
	o.users++
	r.mu.Unlock()
	leave := func() {
		r.mu.Lock()
		if o.users--; o.users == 0 {
			delete(r.orgs, orgID)
		}
		r.mu.Unlock()
	}
	release = func() { <-o.held; leave() }
	select { // a free slot first: a zero wait must not lose the race with its own timer
	case o.held <- struct{}{}:
		return release, nil
	default:
	}
	timer := time.NewTimer(r.wait)
	defer timer.Stop()
	select {
	case o.held <- struct{}{}:
		return release, nil
	case <-timer.C:
		leave()
		return nil, gatehouse.ErrBusy
	case <-ctx.Done():
		leave()
		return nil, ctx.Err()
	}
}

// LimitReads returns s with these reads bounded:
//   - its event reads ([gatehouse.EventStore.ListEvents],
//     [gatehouse.EventStore.CountEvents], [gatehouse.EventStore.ReadFeed], [gatehouse.EventStore.CountFeed],
//     [gatehouse.EventStore.CountInsights]);
//   - its policy set reads ([gatehouse.PolicyStore.PolicySet]).
//
// Each takes one of its organization's slots, and runs with a deadline of
// timeout. The API, the dashboard and the CLI all read through the
// [gatehouse.Store] they are given, so wrapping it once bounds every door.
func LimitReads(s gatehouse.Store, slots *ReadSlots, timeout time.Duration) gatehouse.Store {
	return &limitedStore{Store: s, slots: slots, timeout: timeout}
}

type limitedStore struct {
	gatehouse.Store
	slots   *ReadSlots
	timeout time.Duration
}

// Unwrap returns the store whose reads s bounds: what it can do beside
// [gatehouse.Store] ([gatehouse.ParallelWriter], [gatehouse.BulkIngester])
// is found there (storeAs). Such a capability then bypasses the wrapper:
// fine for one that bounds reads only; a wrapper of writes must offer the
// capabilities itself.
func (s *limitedStore) Unwrap() gatehouse.Store { return s.Store }

func (s *limitedStore) begin(ctx context.Context, orgID uuid.UUID) (context.Context, func(), error) {
	release, err := s.slots.Acquire(ctx, orgID)
	if err != nil {
		return ctx, nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, s.timeout)
	return ctx, func() { cancel(); release() }, nil
}

func (s *limitedStore) ListEvents(ctx context.Context, orgID uuid.UUID, f gatehouse.EventFilter) (gatehouse.EventPage, error) {
	ctx, end, err := s.begin(ctx, orgID)
	if err != nil {
		return gatehouse.EventPage{}, err
	}
	defer end()
	return s.Store.ListEvents(ctx, orgID, f)
}

func (s *limitedStore) ReadFeed(ctx context.Context, orgID uuid.UUID, f gatehouse.EventFilter, after gatehouse.FeedPosition) (gatehouse.FeedPage, error) {
	ctx, end, err := s.begin(ctx, orgID)
	if err != nil {
		return gatehouse.FeedPage{}, err
	}
	defer end()
	return s.Store.ReadFeed(ctx, orgID, f, after)
}

func (s *limitedStore) CountFeed(ctx context.Context, orgID uuid.UUID, f gatehouse.EventFilter, after gatehouse.FeedPosition) (int64, error) {
	ctx, end, err := s.begin(ctx, orgID)
	if err != nil {
		return 0, err
	}
	defer end()
	return s.Store.CountFeed(ctx, orgID, f, after)
}

func (s *limitedStore) CountEvents(ctx context.Context, orgID uuid.UUID, f gatehouse.EventFilter, step time.Duration) ([]gatehouse.EventCount, error) {
	ctx, end, err := s.begin(ctx, orgID)
	if err != nil {
		return nil, err
	}
	defer end()
	return s.Store.CountEvents(ctx, orgID, f, step)
}

func (s *limitedStore) CountInsights(ctx context.Context, orgID uuid.UUID, f gatehouse.EventFilter, by gatehouse.InsightGroup, limit int) ([]gatehouse.InsightCount, error) {
	ctx, end, err := s.begin(ctx, orgID)
	if err != nil {
		return nil, err
	}
	defer end()
	return s.Store.CountInsights(ctx, orgID, f, by, limit)
}

// PolicySet reads a universe's policies, megabytes of them: the reads
// GET /policies makes when a set changed take a slot like an event read,
// so that one key asking for many sets at once waits its turn instead of
// holding every connection.
func (s *limitedStore) PolicySet(ctx context.Context, orgID uuid.UUID, universeID string) ([]gatehouse.AccessPointPolicy, error) {
	ctx, end, err := s.begin(ctx, orgID)
	if err != nil {
		return nil, err
	}
	defer end()
	return s.Store.PolicySet(ctx, orgID, universeID)
}

// storeAs finds in s, or in the stores s wraps (Unwrap), the first that
// implements T.
func storeAs[T any](s gatehouse.Store) (T, bool) {
	for {
		if t, ok := s.(T); ok {
			return t, true
		}
		u, ok := s.(interface{ Unwrap() gatehouse.Store })
		if !ok {
			var zero T
			return zero, false
		}
		s = u.Unwrap()
	}
}
