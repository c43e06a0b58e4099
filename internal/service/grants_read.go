package service

import (
	"bytes"
	"context"
	"hash/fnv"
	"slices"
	"sync"
	"time"

	"github.com/gatehouse/gatehouse"
	"github.com/google/uuid"
)

// runningGrants returns the player's grants of the access point of dc
// that run at at. A decision made now reads them from the
// organization's live grants this instance keeps (liveGrants) while
// they are few enough to keep; one explained at another instant reads
// the store.
func (s *Service) runningGrants(ctx context.Context, orgID uuid.UUID, dc gatehouse.DecisionContext, player string, at time.Time, now bool) ([]gatehouse.ActiveGrant, error) {
	if now {
		live, err := s.liveGrants(ctx, orgID, at)
		if err != nil {
			return nil, err
		}
		if live.complete {
			var out []gatehouse.ActiveGrant
			for _, g := range live.byPlayer[player] {
				if g.Covers(dc.AccessPoint.ID, dc.Location.ID) && g.Runs(at) {
					out = append(out, g.ActiveGrant())
				}
			}
			return out, nil
		}
	}
	return s.store.RunningGrants(ctx, orgID, dc.AccessPoint.ID, dc.Location.ID, player, at)
}

// syncGrants returns the grants a sync answers with: those of the
// players, in force or to come, at most [gatehouse.MaxSyncGrants], those
// that end soonest first.
func (s *Service) syncGrants(ctx context.Context, orgID uuid.UUID, players []string, now time.Time) ([]gatehouse.Grant, error) {
	out := []gatehouse.Grant{}
	if len(players) == 0 {
		return out, nil
	}
	live, err := s.liveGrants(ctx, orgID, now)
	if err != nil {
		return nil, err
	}
	if !live.complete {
		if out, err = s.store.LiveGrants(ctx, orgID, players, now, gatehouse.MaxSyncGrants); err != nil {
			return nil, err
		}
	} else if len(live.byPlayer) > 0 {
		for _, p := range players {
			for _, g := range live.byPlayer[p] {
				if g.Ends().After(now) {
					out = append(out, g)
				}
			}
		}
		slices.SortFunc(out, func(a, b gatehouse.Grant) int {
			if c := time.Time(a.Until).Compare(time.Time(b.Until)); c != 0 {
				return c
			}
			return bytes.Compare(a.ID[:], b.ID[:])
		})
		out = out[:min(len(out), gatehouse.MaxSyncGrants)]
	}
	for i := range out {
		out[i] = out[i].At(now)
	}
	return out, nil
}

// liveGrants returns the organization's grants in force or to come as
// this instance keeps them, reading them again when:
//   - a grant was made or revoked on any instance (its wakes name the
//     organization: [Service.wake] forgets them);
//   - they were read grantsFresh ago, which only covers a wake lost
//     with its connection.
//
// Past maxKeptGrants the organization's grants are not kept (complete
// false): its decisions and syncs read the store.
func (s *Service) liveGrants(ctx context.Context, orgID uuid.UUID, now time.Time) (keptGrants, error) {
	if k, ok := s.keptGrants.get(orgID, time.Now()); ok {
		return k, nil
	}
	read, epoch := time.Now(), s.keptGrants.begin()
	grants, err := s.store.LiveGrants(ctx, orgID, nil, now, maxKeptGrants+1)
	if err != nil {
		return keptGrants{}, err
	}
	k := keptGrants{complete: len(grants) <= maxKeptGrants, at: read}
	if k.complete {
		k.byPlayer = map[string][]gatehouse.Grant{}
		for _, g := range grants {
			k.byPlayer[g.PlatformUserID] = append(k.byPlayer[g.PlatformUserID], g)
		}
	}
	s.keptGrants.put(orgID, k, epoch)
	return k, nil
}

// Bounds of the grants an instance keeps (see liveGrants).
const (
	grantsFresh   = 10 * time.Second
	maxKeptGrants = 10_000
	// maxKeptOrgs bounds the organizations kept: past it, the instance
	// starts again empty.
	maxKeptOrgs = 10_000
)

// keptGrants are an organization's grants in force or to come, by
// player: most organizations hold none or a few, and a decision or a sync
// then reads none.
type keptGrants struct {
	byPlayer map[string][]gatehouse.Grant
	complete bool
	at       time.Time
}

// grantKeeper keeps the organizations' live grants. epoch counts the
// forgets: a read that began before one is not kept.
type grantKeeper struct {
	mu    sync.Mutex
	m     map[uuid.UUID]keptGrants
	epoch uint64
}

// begin returns the epoch a read of grants begins in.
func (c *grantKeeper) begin() uint64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.epoch
}

func (c *grantKeeper) get(orgID uuid.UUID, now time.Time) (keptGrants, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	k, ok := c.m[orgID]
	if !ok || now.Sub(k.at) >= grantsFresh {
		return keptGrants{}, false
	}
	return k, true
}

// put keeps k, read from epoch on, unless a wake forgot grants since
// (the read may have missed what woke).
func (c *grantKeeper) put(orgID uuid.UUID, k keptGrants, epoch uint64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if epoch != c.epoch {
		return
	}
	if c.m == nil || len(c.m) >= maxKeptOrgs {
		c.m = map[uuid.UUID]keptGrants{}
	}
	c.m[orgID] = k
}

// forget drops the grants of the organization, or of every one for
// uuid.Nil.
func (c *grantKeeper) forget(orgID uuid.UUID) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.epoch++
	if orgID == uuid.Nil {
		c.m = nil
		return
	}
	delete(c.m, orgID)
}

// grantsDigest sums up a sync's grants: which, and whether revoked
// (nothing else of a grant changes).
func grantsDigest(grants []gatehouse.Grant) uint64 {
	h := fnv.New64a()
	for _, g := range grants {
		h.Write(g.ID[:])
		if g.RevokedAt != nil {
			h.Write([]byte{1})
		}
	}
	return h.Sum64()
}

// maxAnsweredGrants bounds the servers answeredGrants remembers: past
// it, it starts again empty.
const maxAnsweredGrants = 100_000

// answeredGrants remembers, per server, the digest of the grants this
// instance last answered it, when there were any. A sync's first read
// compares with it: a grant made or revoked while the server was between
// two syncs (no sync waiting to wake) is answered at once, not at the
// end of the next wait. A server it does not remember was answered no
// grant (or by another instance): it answers at once when its players
// hold grants, then waits at its next sync. Servers without grants,
// nearly all of them, leave nothing here.
type answeredGrants struct {
	mu sync.Mutex
	m  map[answeredKey]uint64
}

type answeredKey struct {
	org uuid.UUID
	job string
}

// changed reports whether grants differ from what the server was last
// answered.
func (a *answeredGrants) changed(orgID uuid.UUID, job string, grants []gatehouse.Grant) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	d, ok := a.m[answeredKey{orgID, job}]
	if !ok {
		return len(grants) > 0
	}
	return d != grantsDigest(grants)
}

// answer remembers what the server is answered.
func (a *answeredGrants) answer(orgID uuid.UUID, job string, grants []gatehouse.Grant) {
	a.mu.Lock()
	defer a.mu.Unlock()
	k := answeredKey{orgID, job}
	if len(grants) == 0 {
		delete(a.m, k)
		return
	}
	if a.m == nil || len(a.m) >= maxAnsweredGrants {
		a.m = map[answeredKey]uint64{}
	}
	a.m[k] = grantsDigest(grants)
}

func joinIDs(ids []uuid.UUID) string {
	out := ""
	for i, id := range ids {
		if i > 0 {
			out += ","
		}
		out += id.String()
	}
	return out
}
