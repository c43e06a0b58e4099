package sqlite

import (
	"context"
	"time"

	"github.com/gatehouse/gatehouse"
	"github.com/gatehouse/gatehouse/internal/sqlstore"
)

// wakePoll is how often WatchCommands reads command_wakes: well within
// the second in which a command must reach a long poll of any process.
const wakePoll = 200 * time.Millisecond

// WatchCommands relays the wakes other processes leave in command_wakes.
// It starts by calling wake(uuid.Nil, "") once, since wakes left before
// it started reading were not seen. It polls the table every wakePoll,
// where PostgreSQL listens (LISTEN/NOTIFY, postgres/watch.go): SQLite has
// no way to tell another process that a row was written.
func (db *DB) WatchCommands(ctx context.Context, wake func(gatehouse.Wake)) (err error) {
	defer sqlstore.Label(&err, "Store.WatchCommands")
	var last int64
	if err := db.read.QueryRowContext(ctx, "SELECT coalesce(max(seq), 0) FROM command_wakes").Scan(&last); err != nil {
		return wrap(err)
	}
	wake(gatehouse.Wake{})
	tick := time.NewTicker(wakePoll)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-tick.C:
		}
		var err error
		if last, err = db.readWakes(ctx, last, wake); err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			return wrap(err)
		}
	}
}

// readWakes calls wake once for each distinct wake left after seq last
// and returns the last seq read.
func (db *DB) readWakes(ctx context.Context, last int64, wake func(gatehouse.Wake)) (int64, error) {
	rows, err := db.read.QueryContext(ctx, "SELECT seq, org, universe_id, job_id FROM command_wakes WHERE seq > ? ORDER BY seq", last)
	if err != nil {
		return last, err
	}
	defer rows.Close()
	seen := map[gatehouse.Wake]bool{}
	var order []gatehouse.Wake
	for rows.Next() {
		var w gatehouse.Wake
		if err := rows.Scan(&last, &w.OrgID, &w.UniverseID, &w.JobID); err != nil {
			return last, err
		}
		if !seen[w] {
			seen[w] = true
			order = append(order, w)
		}
	}
	if err := rows.Err(); err != nil {
		return last, err
	}
	for _, w := range order {
		wake(w)
	}
	return last, nil
}
