package service

import (
	"context"
	"errors"
	"time"

	"github.com/gatehouse/gatehouse"
)

// partitionsEvery is how often each instance makes the partitions of the
// months ahead: once an hour is ample for months made two ahead.
const partitionsEvery = time.Hour

// RunPartitions makes the partitions of events for the current month and
// the months just after it, at start and then every hour, and compacts
// the months past (CompactPartitions) every hour after start, until ctx
// ends, on a store that partitions events by time. Every instance runs
// it, without a lease: the store serialises the instances that run it at
// once, and the second finds the work done. Errors are reported and
// retried at the next round; an ingest that meets a month without its
// partition makes it itself.
func (s *Service) RunPartitions(ctx context.Context, _ string, report func(error)) {
	p, ok := storeAs[gatehouse.EventPartitioner](s.store)
	if !ok {
		return
	}
	tick := time.NewTicker(partitionsEvery)
	defer tick.Stop()
	for first := true; ; first = false {
		if _, err := p.AddEventPartitions(ctx, s.Now()); err != nil && ctx.Err() == nil {
			report(err)
		}
		// Not at start: an instance that restarts often does no rebuild
		// more, and one pass an hour finds each month soon after it closed.
		if !first {
			// ErrConflict: another instance, retention or a shard move
			// holds the months; the next round does the rest.
			if _, err := s.CompactPartitions(ctx); err != nil && ctx.Err() == nil && !errors.Is(err, gatehouse.ErrConflict) {
				report(err)
			}
		}
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
	}
}

// CompactPartitions rebuilds packed the indexes of the months of events
// that take no more of them, on a store that partitions events by time
// (docs/decisions.md, "Bytes per event"), and returns how many months it
// rebuilt. RunPartitions calls it every hour; `gatehouse event compact`
// runs it now.
func (s *Service) CompactPartitions(ctx context.Context) (int, error) {
	p, ok := storeAs[gatehouse.EventPartitioner](s.store)
	if !ok {
		return 0, nil
	}
	return p.CompactPartitions(ctx, s.Now())
}

// dropExpiredPartitions drops the months of events past every
// organization's retention, whole, and forgets the ids received before
// gatehouse.RecentIDsKept, on a store that partitions events by time. It
// returns how many months it dropped.
func (s *Service) dropExpiredPartitions(ctx context.Context) (int, error) {
	p, ok := storeAs[gatehouse.EventPartitioner](s.store)
	if !ok {
		return 0, nil
	}
	now := s.Now()
	if _, err := p.ForgetRecentIDs(ctx, now.Add(-gatehouse.RecentIDsKept)); err != nil {
		return 0, err
	}
	return p.DropExpiredPartitions(ctx, now)
}
