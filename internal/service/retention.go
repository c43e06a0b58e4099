package service

import (
	"context"
	"errors"
	"time"

	"github.com/gatehouse/gatehouse"
	"github.com/gatehouse/gatehouse/internal/clock"
)

// RetentionSettings configure the deletion of expired events. Zero
// values are the defaults beside them.
type RetentionSettings struct {
	// Every is how often an instance tries to take the work (1 min).
	Every time.Duration
	// Pause is the least wait between two batches of one organization
	// (10 ms). The wait is also at least twice what the batch took, so
	// that deleting holds the database a third of the time at most, and
	// writes waiting for it go first.
	Pause time.Duration
	// Deleted is told how many events each pass deleted; Oldest when the
	// oldest event kept (of any organization) occurred. Metrics.
	Deleted func(n int)
	Oldest  func(at time.Time)
}

func (r *RetentionSettings) defaults() {
	if r.Every == 0 {
		r.Every = time.Minute
	}
	if r.Pause == 0 {
		r.Pause = 10 * time.Millisecond
	}
	if r.Deleted == nil {
		r.Deleted = func(int) {}
	}
	if r.Oldest == nil {
		r.Oldest = func(time.Time) {}
	}
}

// retentionBatch is how many events one retention transaction deletes:
// on SQLite's one writer, a batch of 1,000 (eight index entries each)
// held ingest 30–40 ms at a time.
const retentionBatch = 250

// retentionLease is how long a pass holds the work; it renews it between
// organizations and batches.
const retentionLease = 2 * time.Minute

// RunRetention deletes expired events until ctx ends: every instance
// runs it, and a lease in the database lets one at a time do a pass.
// Errors are reported and retried at the next tick.
func (s *Service) RunRetention(ctx context.Context, holder string, report func(error)) {
	tick := time.NewTicker(s.retention.Every)
	defer tick.Stop()
	for {
		if _, err := s.RetainEvents(ctx, holder); err != nil && ctx.Err() == nil {
			report(err)
		}
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
	}
}

// RetainEvents does one pass when holder has (or takes) the lease, and
// returns how many events it deleted by rows; 0 without the lease. On a
// store that partitions events by time it first drops the months past
// every organization's retention whole (their events are not counted).
// Then, for every organization, it deletes in this order:
//   - the events that occurred more than its retention ago, a batch at a
//     time;
//   - the commands issued before then (with their deliveries and
//     idempotency keys), and its webhook delivery log of before then;
//   - the platform user search terms no event has any more.
func (s *Service) RetainEvents(ctx context.Context, holder string) (int, error) {
	hold := func() (bool, error) {
		return s.store.TryLease(ctx, "events.retention", holder, s.Now(), retentionLease)
	}
	if ok, err := hold(); err != nil || !ok {
		return 0, err
	}
	// A month that cannot go now (a detach waiting, a lock) keeps no
	// organization's rows from going: its error is reported after them.
	_, partitionsErr := s.dropExpiredPartitions(ctx)
	total, err := s.retainRows(ctx, hold)
	return total, errors.Join(partitionsErr, err)
}

// retainRows is RetainEvents' deletion by rows.
func (s *Service) retainRows(ctx context.Context, hold func() (bool, error)) (int, error) {
	orgs, err := s.store.ListOrganizations(ctx)
	if err != nil {
		return 0, err
	}
	total := 0
	var oldest time.Time
	for i, o := range orgs {
		if i > 0 {
			if ok, err := hold(); err != nil || !ok {
				return total, err
			}
		}
		cutoff := gatehouse.RetentionCutoff(s.Now(), o.RetentionDays)
		deleted := 0
		for {
			started := time.Now()
			n, err := s.store.DeleteEventsBefore(ctx, o.ID, cutoff, retentionBatch)
			deleted += n
			s.retention.Deleted(n)
			if err != nil {
				return total + deleted, err
			}
			if n < retentionBatch {
				break
			}
			// Let waiting writes in, and keep the lease while working.
			if !clock.Sleep(ctx, max(s.retention.Pause, 2*time.Since(started))) {
				return total + deleted, ctx.Err()
			}
			if ok, err := hold(); err != nil || !ok {
				return total + deleted, err
			}
		}
		total += deleted
		// Commands name players too (a PLAYER unlock's player, its
		// note, its requester): they go with their events, and the
		// delivery log rows of that time with them.
		for {
			n, err := s.store.DeleteCommandsBefore(ctx, o.ID, cutoff, retentionBatch)
			if err != nil {
				return total, err
			}
			if n < retentionBatch {
				break
			}
			if ok, err := hold(); err != nil || !ok {
				return total, err
			}
		}
		if deleted > 0 {
			if _, err := s.store.PruneTerms(ctx, o.ID); err != nil {
				return total, err
			}
		}
		if at, ok, err := s.store.OldestEvent(ctx, o.ID); err != nil {
			return total, err
		} else if ok && (oldest.IsZero() || at.Before(oldest)) {
			oldest = at
		}
	}
	if !oldest.IsZero() {
		s.retention.Oldest(oldest)
	}
	return total, nil
}
