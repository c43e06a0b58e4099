package shards

import (
	"context"
	"errors"
	"slices"
	"sync"
	"time"

	"github.com/gatehouse/gatehouse"
	"github.com/gatehouse/gatehouse/internal/postgres"
	"github.com/google/uuid"
)

// Background work (sweeps, rollups, partitions, deliveries) runs on every
// shard: each shard's store coordinates the instances on it as it does
// alone (leases and advisory locks in that database), so the Router only
// asks each shard in turn and adds up. A shard that does not answer is
// left for the next pass; the others are not held back by it.

// joined is the errors of answers, joined, and errMissing when some
// shard could not be asked.
func joined[T any](answers []answer[T], missing bool) error {
	var errs []error
	for _, a := range answers {
		errs = append(errs, a.err)
	}
	if missing {
		errs = append(errs, errMissing)
	}
	return errors.Join(errs...)
}

// each runs fn on every shard that answers; the error is every failure's.
func each(r *Router, ctx context.Context, fn func(context.Context, *postgres.DB) error) error {
	return joined(everywhere(r, ctx, func(ctx context.Context, db *postgres.DB) (struct{}, error) { return struct{}{}, fn(ctx, db) }))
}

// summed adds fn's count of every shard that answers; the error is every
// failure's, with the count of the others.
func summed(r *Router, ctx context.Context, fn func(context.Context, *postgres.DB) (int, error)) (int, error) {
	answers, missing := everywhere(r, ctx, fn)
	n := 0
	for _, a := range answers {
		n += a.value
	}
	return n, joined(answers, missing)
}

// SweepCommands implements gatehouse.Store on every shard.
func (r *Router) SweepCommands(ctx context.Context, now time.Time) (int, error) {
	return summed(r, ctx, func(ctx context.Context, db *postgres.DB) (int, error) { return db.SweepCommands(ctx, now) })
}

// AddEventPartitions implements gatehouse.EventPartitioner on every shard.
func (r *Router) AddEventPartitions(ctx context.Context, now time.Time) (int, error) {
	return summed(r, ctx, func(ctx context.Context, db *postgres.DB) (int, error) { return db.AddEventPartitions(ctx, now) })
}

// DropExpiredPartitions implements gatehouse.EventPartitioner on every shard.
func (r *Router) DropExpiredPartitions(ctx context.Context, now time.Time) (int, error) {
	return summed(r, ctx, func(ctx context.Context, db *postgres.DB) (int, error) { return db.DropExpiredPartitions(ctx, now) })
}

// CompactPartitions implements gatehouse.EventPartitioner on every shard.
func (r *Router) CompactPartitions(ctx context.Context, now time.Time) (int, error) {
	return summed(r, ctx, func(ctx context.Context, db *postgres.DB) (int, error) { return db.CompactPartitions(ctx, now) })
}

// ForgetRecentIDs implements gatehouse.EventPartitioner on every shard.
func (r *Router) ForgetRecentIDs(ctx context.Context, before time.Time) (int, error) {
	return summed(r, ctx, func(ctx context.Context, db *postgres.DB) (int, error) { return db.ForgetRecentIDs(ctx, before) })
}

// RollInsights implements gatehouse.Store on every shard.
func (r *Router) RollInsights(ctx context.Context, now time.Time) error {
	return each(r, ctx, func(ctx context.Context, db *postgres.DB) error { return db.RollInsights(ctx, now) })
}

// RefreshStatistics implements gatehouse.StatisticsKeeper on every shard:
// it reports whether any refreshed.
func (r *Router) RefreshStatistics(ctx context.Context, force bool) (bool, error) {
	answers, missing := everywhere(r, ctx, func(ctx context.Context, db *postgres.DB) (bool, error) { return db.RefreshStatistics(ctx, force) })
	refreshed := false
	for _, a := range answers {
		refreshed = refreshed || a.value
	}
	return refreshed, joined(answers, missing)
}

// ExpireLockdowns implements gatehouse.Store on every shard.
func (r *Router) ExpireLockdowns(ctx context.Context, e gatehouse.AuditEntry, now time.Time) ([]gatehouse.Lockdown, error) {
	answers, missing := everywhere(r, ctx, func(ctx context.Context, db *postgres.DB) ([]gatehouse.Lockdown, error) {
		return db.ExpireLockdowns(ctx, e, now)
	})
	var ended []gatehouse.Lockdown
	for _, a := range answers {
		ended = append(ended, a.value...)
	}
	return ended, joined(answers, missing)
}

// Writers implements gatehouse.ParallelWriter: each shard takes as many
// writers as --db.
func (r *Router) Writers() int { return r.main.Writers() }

// firstWakeWithin bounds how long WatchCommands holds its first
// gatehouse.Wake{} for the shards that have not listened yet.
const firstWakeWithin = 5 * time.Second

// WatchCommands implements gatehouse.Store: it listens on every shard,
// each on its own connection that it makes again when it fails, until ctx
// ends. A shard that answers later is listened to from then on. The first
// gatehouse.Wake{} (listening: anything before may have been missed) is
// held until every shard that answered at the start listens, or
// firstWakeWithin has passed; every later one, of any shard listening
// again, is passed on.
func (r *Router) WatchCommands(ctx context.Context, wake func(gatehouse.Wake)) error {
	var (
		wg       sync.WaitGroup
		mu       sync.Mutex
		watched  = map[*postgres.DB]bool{}
		pending  = map[*postgres.DB]bool{} // not listening yet, while the first wake is held
		released = false
	)
	release := func() {
		mu.Lock()
		first := !released
		released = true
		mu.Unlock()
		if first {
			wake(gatehouse.Wake{})
		}
	}
	listening := func(db *postgres.DB) {
		mu.Lock()
		delete(pending, db)
		held, done := !released, len(pending) == 0
		mu.Unlock()
		if !held || done {
			if held {
				release()
				return
			}
			wake(gatehouse.Wake{})
		}
	}
	watchNew := func() {
		mu.Lock()
		defer mu.Unlock()
		for _, db := range r.open() {
			if watched[db] {
				continue
			}
			watched[db] = true
			if !released {
				pending[db] = true
			}
			wg.Go(func() {
				db.WatchCommands(ctx, func(w gatehouse.Wake) {
					if w == (gatehouse.Wake{}) {
						listening(db)
						return
					}
					wake(w)
				})
			})
		}
	}
	watchNew()
	first := time.NewTimer(firstWakeWithin)
	defer first.Stop()
	tick := time.NewTicker(retryEvery)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			wg.Wait()
			return ctx.Err()
		case <-first.C:
			release()
		case <-tick.C:
			r.retry(ctx)
			watchNew()
		}
	}
}

// claim takes the next claim of the shards, asked in turn from a shard
// one further on at each call, so that one shard's backlog does not
// starve the others. gatehouse.ErrNotFound when none has work; a
// shard that fails is passed over unless none has work.
//
// A claim of an organization the directory places elsewhere (orgOf) is
// left to its lease and passed over: a copy a shard move left behind when
// its last commit failed (decisions.md, "Moving an organization") must
// not deliver what the organization's own shard delivers.
func claim[T any](r *Router, ctx context.Context, fn func(*postgres.DB) (T, error), orgOf func(T) uuid.UUID) (T, error) {
	shards, _ := r.answering()
	start := int(r.turn.Add(1))
	var zero T
	var errs []error
	for i := range shards {
		s := shards[(start+i)%len(shards)]
		v, err := fn(s.db)
		if err == nil {
			here, err := r.placedHere(ctx, orgOf(v), s.ID, s.Main)
			if err != nil || here {
				return v, err
			}
			continue
		}
		if !errors.Is(err, gatehouse.ErrNotFound) {
			errs = append(errs, err)
		}
	}
	if len(errs) > 0 {
		return zero, errors.Join(errs...)
	}
	return zero, gatehouse.ErrNotFound
}

// ClaimWebhook implements gatehouse.Store over the shards in the order
// one store keeps (the organization with the fewest endpoints leased, then
// the one served longest ago, then the endpoint due soonest): each shard
// says what it would take, and the best is claimed, or the next best when
// another instance took it first.
func (r *Router) ClaimWebhook(ctx context.Context, holder string, now time.Time, ttl time.Duration) (gatehouse.WebhookClaim, error) {
	answers, _ := everywhere(r, ctx, func(ctx context.Context, db *postgres.DB) (dueOn, error) {
		rank, due, err := db.WebhookDue(ctx, holder, now)
		return dueOn{db, rank, due}, err
	})
	answers = slices.DeleteFunc(answers, func(a answer[dueOn]) bool { return a.err == nil && !a.value.due })
	slices.SortFunc(answers, func(a, b answer[dueOn]) int { return a.value.rank.Compare(b.value.rank) })
	var errs []error
	for _, a := range answers {
		if a.err != nil {
			errs = append(errs, a.err)
			continue
		}
		c, err := a.value.db.ClaimWebhook(ctx, holder, now, ttl)
		if err == nil {
			here, err := r.placedHere(ctx, c.Webhook.OrgID, a.shard, a.main)
			if err != nil || here {
				return c, err
			}
			continue // a copy left behind (claim)
		}
		if !errors.Is(err, gatehouse.ErrNotFound) {
			return c, err
		}
	}
	if len(errs) > 0 {
		return gatehouse.WebhookClaim{}, errors.Join(errs...)
	}
	return gatehouse.WebhookClaim{}, gatehouse.ErrNotFound
}

// dueOn is a shard's answer to "what would you claim".
type dueOn struct {
	db   *postgres.DB
	rank postgres.WebhookRank
	due  bool
}

// ClaimAlertRule implements gatehouse.Store over the shards (claim).
func (r *Router) ClaimAlertRule(ctx context.Context, holder string, now time.Time, ttl time.Duration) (gatehouse.AlertRuleClaim, error) {
	return claim(r, ctx, func(db *postgres.DB) (gatehouse.AlertRuleClaim, error) {
		return db.ClaimAlertRule(ctx, holder, now, ttl)
	}, func(c gatehouse.AlertRuleClaim) uuid.UUID { return c.Rule.OrgID })
}

// ClaimAlert implements gatehouse.Store over the shards (claim).
func (r *Router) ClaimAlert(ctx context.Context, holder string, now time.Time, ttl time.Duration) (gatehouse.AlertClaim, error) {
	return claim(r, ctx, func(db *postgres.DB) (gatehouse.AlertClaim, error) { return db.ClaimAlert(ctx, holder, now, ttl) },
		func(c gatehouse.AlertClaim) uuid.UUID { return c.Alert.OrgID })
}
