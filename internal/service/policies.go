package service

import (
	"context"
	"sync"
	"time"

	"github.com/gatehouse/gatehouse"
	"github.com/google/uuid"
)

// Policy returns the current policy of one of the organization's access
// points, or nil when it has none. [gatehouse.ErrNotFound] for an unknown
// access point or one of another organization.
func (s *Service) Policy(ctx context.Context, orgID, accessPointID uuid.UUID) (*gatehouse.Policy, error) {
	if err := s.authorizeAccessPoint(ctx, orgID, accessPointID, gatehouse.PermView); err != nil {
		return nil, err
	}
	return s.store.FindPolicy(ctx, orgID, accessPointID)
}

// PolicyAt returns the version of one of the organization's access
// points' policy in force at an instant, or nil when it had none yet:
// what an explanation at that instant decides by ([Service.Decide] with
// At). Errors as [Service.Policy].
func (s *Service) PolicyAt(ctx context.Context, orgID, accessPointID uuid.UUID, at time.Time) (*gatehouse.Policy, error) {
	if err := s.authorizeAccessPoint(ctx, orgID, accessPointID, gatehouse.PermView); err != nil {
		return nil, err
	}
	return s.store.FindPolicyAt(ctx, orgID, accessPointID, at)
}

// policyAt is the policy in force at at, given the current one: that one
// when it was set by then, and a read of the version of then otherwise.
// None now is none then: a policy is never removed.
func (s *Service) policyAt(ctx context.Context, orgID, accessPointID uuid.UUID, current *gatehouse.Policy, at time.Time) (*gatehouse.Policy, error) {
	if current == nil || current.UpdatedAt == nil || !time.Time(*current.UpdatedAt).After(at) {
		return current, nil
	}
	return s.store.FindPolicyAt(ctx, orgID, accessPointID, at)
}

// SetPolicy checks p and stores it as the next version of the access
// point's policy. Storing the policy the access point already has makes no
// new version. ifVersion, when set, is the version the caller edited (0:
// none yet).
//
// Errors:
//   - [gatehouse.ErrConflict] when ifVersion is set and another change
//     came first: nothing changes;
//   - a [*gatehouse.ValidationError] naming every problem of p by field
//     path;
//   - [gatehouse.ErrNotFound] for an unknown access point or one of
//     another organization;
//   - a *[gatehouse.StateError] for an archived access point, or one of
//     an archived location: its policy still serves decisions, and
//     changes again once it is restored;
//   - [gatehouse.ErrForbidden] unless the acting user is an admin.
func (s *Service) SetPolicy(ctx context.Context, orgID, accessPointID uuid.UUID, p gatehouse.Policy, ifVersion *int64) (gatehouse.Policy, error) {
	if err := s.authorizeAccessPoint(ctx, orgID, accessPointID, gatehouse.PermManagePolicies); err != nil {
		return gatehouse.Policy{}, err
	}
	p, err := p.Check()
	if err != nil {
		return gatehouse.Policy{}, err
	}
	if ifVersion != nil && *ifVersion < 0 {
		return gatehouse.Policy{}, gatehouse.Invalid("ifVersion", "must be a version (0 for none yet)")
	}
	if _, err := s.writableAccessPoint(ctx, orgID, accessPointID); err != nil {
		return gatehouse.Policy{}, err
	}
	stored, err := s.store.PutPolicy(ctx, s.entry(ctx, orgID, gatehouse.AuditPolicyChanged, gatehouse.TargetAccessPoint),
		orgID, accessPointID, p, ifVersion, s.Now())
	if err == nil {
		s.policySets.forget(orgID)
		s.decisionContexts.forget(orgID)
	}
	return stored, err
}

// PolicySet returns every policy that applies to the organization's
// universe, with the set's version (its ETag). A universe no location
// names has an empty set. A [*gatehouse.ValidationError] keyed
// "universeId" for a bad id.
func (s *Service) PolicySet(ctx context.Context, orgID uuid.UUID, universeID string) (gatehouse.PolicySet, error) {
	if err := gatehouse.Authorize(ctx, orgID, gatehouse.PermView); err != nil {
		return gatehouse.PolicySet{}, err
	}
	if !gatehouse.IsUniverseID(universeID) {
		return gatehouse.PolicySet{}, gatehouse.Invalid("universeId", "must be a platform universe id (digits)")
	}
	aps, err := s.store.PolicySet(ctx, orgID, universeID)
	if err != nil {
		return gatehouse.PolicySet{}, err
	}
	now := s.Now()
	lockdowns, err := s.store.UniverseLockdowns(ctx, orgID, universeID, now)
	if err != nil {
		return gatehouse.PolicySet{}, err
	}
	set := gatehouse.NewPolicySet(universeID, aps, now, cachedZoneOffsets).WithLockdowns(lockdowns)
	if len(aps) > 0 {
		// A set with access points is of a universe a location names: a
		// sync may take its version. An empty one may be of any id at
		// all, and is not kept.
		s.policySets.put(orgID, universeID, set.Version, time.Now())
	}
	return set, nil
}

// EncodedPolicySet returns the organization's universe's policy set as
// GET /policies answers it, at one encoding per change: a thousand game
// servers, or one key asking in a loop, cost no more.
//   - Knowing the set's current version reads no policy
//     ([gatehouse.PolicyStore.PolicySetMembers]).
//   - The set of a version is read and encoded once, and then shared, gzip
//     included, by every caller of this instance (encodedSets).
//
// Errors as [Service.PolicySet].
func (s *Service) EncodedPolicySet(ctx context.Context, orgID uuid.UUID, universeID string) (*EncodedPolicySet, error) {
	if err := gatehouse.Authorize(ctx, orgID, gatehouse.PermView); err != nil {
		return nil, err
	}
	if !gatehouse.IsUniverseID(universeID) {
		return nil, gatehouse.Invalid("universeId", "must be a platform universe id (digits)")
	}
	members, err := s.store.PolicySetMembers(ctx, orgID, universeID)
	if err != nil {
		return nil, err
	}
	now := s.Now()
	lockdowns, err := s.store.UniverseLockdowns(ctx, orgID, universeID, now)
	if err != nil {
		return nil, err
	}
	version := gatehouse.LockdownsVersion(gatehouse.PolicySetVersion(universeID, members, now), lockdowns)
	return s.encodedSets.get(encodedSetKey{orgID, universeID, version}, time.Now(), func() (*EncodedPolicySet, error) {
		// Shared by the callers waiting: the first one leaving must not
		// cancel the others' read (the store's read deadline bounds it).
		aps, err := s.store.PolicySet(context.WithoutCancel(ctx), orgID, universeID)
		if err != nil {
			return nil, err
		}
		return encodePolicySet(gatehouse.NewPolicySet(universeID, aps, now, cachedZoneOffsets).WithLockdowns(lockdowns))
	})
}

// policySetVersion is the version of a universe's policy set for sync
// answers, or [gatehouse.ErrUnknownUniverse] when none of the
// organization's locations names the universe.
//
// It is read at most once per policySetFresh per universe on this
// instance, so that a thousand servers syncing do not each read the set.
// Only universes a location names are kept. A change is seen:
//   - at once when made on this instance;
//   - within policySetFresh when made on another instance.
func (s *Service) policySetVersion(ctx context.Context, orgID uuid.UUID, universeID string) (string, error) {
	if v, ok := s.policySets.version(orgID, universeID, time.Now()); ok {
		return v, nil
	}
	// A thousand syncs that find the version stale at once (a wave of
	// answers to one command) wait for one read of it.
	call, leader := s.policySets.join(orgID, universeID)
	if !leader {
		select {
		case <-call.done:
			return call.version, call.err
		case <-ctx.Done():
			return "", ctx.Err()
		}
	}
	call.version, call.err = s.readPolicySetVersion(context.WithoutCancel(ctx), orgID, universeID)
	s.policySets.finish(orgID, universeID, call, time.Now())
	return call.version, call.err
}

// readPolicySetVersion reads the version of a universe's set: its
// members and the lockdowns covering it.
func (s *Service) readPolicySetVersion(ctx context.Context, orgID uuid.UUID, universeID string) (string, error) {
	members, err := s.store.PolicySetMembers(ctx, orgID, universeID)
	if err != nil {
		return "", err
	}
	if len(members) == 0 {
		named, err := s.store.NamesUniverse(ctx, orgID, universeID)
		if err != nil {
			return "", err
		}
		if !named {
			return "", gatehouse.ErrUnknownUniverse
		}
	}
	now := s.Now()
	lockdowns, err := s.store.UniverseLockdowns(ctx, orgID, universeID, now)
	if err != nil {
		return "", err
	}
	return gatehouse.LockdownsVersion(gatehouse.PolicySetVersion(universeID, members, now), lockdowns), nil
}

// policySetFresh is how long an instance answers syncs with a policy set
// version it read; past it, the version is read again and the entry is
// only waiting to be dropped.
const policySetFresh = time.Second

// maxPolicySets bounds the versions an instance keeps: past it, with
// the stale ones dropped, it starts again empty.
const maxPolicySets = 10_000

// policySets remembers the versions of the policy sets this instance read
// recently, by organization and universe. What it holds follows the
// universes synced in the last policySetFresh: stale entries are dropped
// at most once per policySetFresh, and there are never more than
// maxPolicySets.
type policySets struct {
	mu    sync.Mutex
	m     map[uuid.UUID]map[string]policySetSeen
	n     int
	swept time.Time
	// pending are the reads of a version under way, which callers that
	// miss the same version wait for.
	pending map[policySetKey]*versionCall
}

type policySetKey struct {
	org      uuid.UUID
	universe string
}

// versionCall is one read of a set's version and its outcome.
type versionCall struct {
	done    chan struct{}
	version string
	err     error
}

// join returns the read under way of the universe's version, or a new one
// that the caller (leader) makes and then finishes.
func (c *policySets) join(orgID uuid.UUID, universeID string) (call *versionCall, leader bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	k := policySetKey{orgID, universeID}
	if call, ok := c.pending[k]; ok {
		return call, false
	}
	if c.pending == nil {
		c.pending = map[policySetKey]*versionCall{}
	}
	call = &versionCall{done: make(chan struct{})}
	c.pending[k] = call
	return call, true
}

// finish ends a read: its waiters get its outcome, and a version read is
// kept, unless the organization's sets were forgotten meanwhile (the
// version may predate the change).
func (c *policySets) finish(orgID uuid.UUID, universeID string, call *versionCall, now time.Time) {
	c.mu.Lock()
	k := policySetKey{orgID, universeID}
	current := c.pending[k] == call
	if current {
		delete(c.pending, k)
	}
	c.mu.Unlock()
	if current && call.err == nil {
		c.put(orgID, universeID, call.version, now)
	}
	close(call.done)
}

type policySetSeen struct {
	version string
	at      time.Time
}

func (c *policySets) version(orgID uuid.UUID, universeID string, now time.Time) (string, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	seen, ok := c.m[orgID][universeID]
	if !ok || now.Sub(seen.at) >= policySetFresh {
		return "", false
	}
	return seen.version, true
}

func (c *policySets) put(orgID uuid.UUID, universeID, version string, now time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if now.Sub(c.swept) >= policySetFresh || c.n >= maxPolicySets {
		c.sweep(now)
	}
	if c.m == nil || c.n >= maxPolicySets {
		c.m, c.n = map[uuid.UUID]map[string]policySetSeen{}, 0
	}
	if c.m[orgID] == nil {
		c.m[orgID] = map[string]policySetSeen{}
	}
	if _, ok := c.m[orgID][universeID]; !ok {
		c.n++
	}
	c.m[orgID][universeID] = policySetSeen{version, now}
}

// sweep drops the entries no sync may answer with any more.
func (c *policySets) sweep(now time.Time) {
	c.swept = now
	for org, sets := range c.m {
		for universe, seen := range sets {
			if now.Sub(seen.at) >= policySetFresh {
				delete(sets, universe)
				c.n--
			}
		}
		if len(sets) == 0 {
			delete(c.m, org)
		}
	}
}

// len returns how many versions are kept.
func (c *policySets) len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.n
}

// forget drops what is known of an organization's sets: a policy, an
// access point or a location of it changed on this instance.
func (c *policySets) forget(orgID uuid.UUID) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.n -= len(c.m[orgID])
	delete(c.m, orgID)
	for k := range c.pending {
		if k.org == orgID {
			delete(c.pending, k)
		}
	}
}

// compiledPolicies keeps the compiled current policy of each access point
// decided on lately, so that a decision compiles a policy once per
// version, not once per call.
type compiledPolicies struct {
	mu sync.Mutex
	m  map[uuid.UUID]*gatehouse.CompiledPolicy
}

// maxCompiledPolicies bounds the cache: past it, it starts again empty.
const maxCompiledPolicies = 10_000

// get returns p compiled, nil for no policy.
func (c *compiledPolicies) get(accessPointID uuid.UUID, p *gatehouse.Policy) (*gatehouse.CompiledPolicy, error) {
	if p == nil {
		return nil, nil
	}
	c.mu.Lock()
	cp := c.m[accessPointID]
	c.mu.Unlock()
	if cp != nil && cp.Policy.Version == p.Version {
		return cp, nil
	}
	cp, err := p.Compile()
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	if c.m == nil || len(c.m) >= maxCompiledPolicies {
		c.m = map[uuid.UUID]*gatehouse.CompiledPolicy{}
	}
	c.m[accessPointID] = cp
	c.mu.Unlock()
	return cp, nil
}
