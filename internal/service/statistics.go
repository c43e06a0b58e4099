package service

import (
	"context"
	"time"

	"github.com/gatehouse/gatehouse"
)

const (
	statisticsEvery = 30 * time.Second
	statisticsLease = 5 * time.Minute
)

// RunStatistics keeps the planner statistics of the event tables fresh
// until ctx ends. Every 30 s, holding the lease "events.statistics" so
// that one instance at a time does it, it asks the store whether enough
// changed and, if so, gathers them.
//
// Every instance runs it; holder names this one. Errors are reported to
// report and retried at the next round.
func (s *Service) RunStatistics(ctx context.Context, holder string, report func(error)) {
	if _, ok := storeAs[gatehouse.StatisticsKeeper](s.store); !ok {
		return
	}
	tick := time.NewTicker(statisticsEvery)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		if err := s.refreshStatistics(ctx, holder, false); err != nil && ctx.Err() == nil {
			report(err)
		}
	}
}

// RefreshStatistics gathers the planner statistics of the event tables
// now, whatever changed: after a bulk import, so that the first queries
// on it plan as well as the next day's.
func (s *Service) RefreshStatistics(ctx context.Context) error {
	return s.refreshStatistics(ctx, "", true)
}

func (s *Service) refreshStatistics(ctx context.Context, holder string, force bool) error {
	keeper, ok := storeAs[gatehouse.StatisticsKeeper](s.store)
	if !ok {
		return nil
	}
	if !force {
		ok, err := s.store.TryLease(ctx, "events.statistics", holder, s.Now(), statisticsLease)
		if err != nil || !ok {
			return err
		}
	}
	_, err := keeper.RefreshStatistics(ctx, force)
	return err
}
