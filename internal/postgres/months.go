package postgres

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/gatehouse/gatehouse"
	"github.com/gatehouse/gatehouse/internal/sqlstore"
	"github.com/jackc/pgx/v5/pgconn"
)

// The months' partitions are made before events need them (partitions.go
// says how events are partitioned): ahead of the clock by every instance,
// and before a write by the instance that writes.

// monthsAhead is how many months after the current one have their
// partitions made ahead: enough that ingest never waits for one, few
// enough that a first page probes few empty months before the current.
const monthsAhead = 2

// AddEventPartitions implements gatehouse.EventPartitioner: it makes the
// partitions of the current month and the monthsAhead after it that do
// not exist yet, and returns how many it made.
func (db *DB) AddEventPartitions(ctx context.Context, now time.Time) (_ int, err error) {
	defer sqlstore.Label(&err, "Store.AddEventPartitions")
	now = now.UTC()
	months := make([]time.Time, monthsAhead+1)
	for i := range months {
		months[i] = time.Date(now.Year(), now.Month()+time.Month(i), 1, 0, 0, 0, 0, time.UTC)
	}
	return db.addMonths(ctx, db.pool, months)
}

// addMonths makes the partitions of the months the instants fall in
// that have none (events_add_months, under its advisory lock), on q: an
// ingest that holds a connection makes them on it rather than wait for
// another. A deadlock with a detach (which holds the lock the attach
// wants while it waits for every transaction) is tried again. The months
// are then known to this instance (db.months).
func (db *DB) addMonths(ctx context.Context, q querier, instants []time.Time) (int, error) {
	var made int
	err := retrying(ctx, func() error {
		return q.QueryRow(ctx, "SELECT events_add_months($1)", instants).Scan(&made)
	})
	if err == nil {
		for _, t := range instants {
			db.months.Store(monthOf(t), true)
		}
	}
	return made, err
}

// withMonths runs write, which stores events that occurred at instants,
// making first on q the months of instants this instance has not seen
// made (an import of history, a clock past the months made ahead): a
// write that failed on a month without a partition would leave the rows
// it inserted into the other months dead, space a past month never
// reuses. A month this instance knew but retention has dropped since
// fails the write: the months are then made, and it runs again, once.
//
// A month whose partition retention is detaching stays without one until
// the detach ends: that write fails with gatehouse.ErrUnavailable, to be
// tried again.
func (db *DB) withMonths(ctx context.Context, q querier, instants []time.Time, write func() error) error {
	if slices.ContainsFunc(instants, func(t time.Time) bool { _, ok := db.months.Load(monthOf(t)); return !ok }) {
		if _, err := db.addMonths(ctx, q, instants); err != nil {
			return err
		}
	}
	err := write()
	if !missingPartition(err) {
		return err
	}
	if _, err := db.addMonths(ctx, q, instants); err != nil {
		return err
	}
	err = write()
	if missingPartition(err) {
		return fmt.Errorf("%w: the month's partition is being detached: %w", gatehouse.ErrUnavailable, err)
	}
	return err
}

// monthOf is the first instant of t's UTC month.
func monthOf(t time.Time) time.Time {
	t = t.UTC()
	return time.Date(t.Year(), t.Month(), 1, 0, 0, 0, 0, time.UTC)
}

// missingPartition reports whether err is an insert refused because no
// partition holds the month of one of its rows: check_violation, which
// no CHECK constraint of the tables an ingest writes raises otherwise
// (the code, not the message, which the server's locale translates).
func missingPartition(err error) bool {
	var pgErr *pgconn.PgError
	return errors.As(err, &pgErr) && pgErr.Code == "23514"
}

// batchMonths are the instants the events of a batch occurred at, one
// per month.
func batchMonths(events []gatehouse.NewEvent) []time.Time {
	seen := map[time.Time]bool{}
	var months []time.Time
	for _, ev := range events {
		m := monthOf(ev.OccurredAt)
		if !seen[m] {
			seen[m] = true
			months = append(months, m)
		}
	}
	return months
}
