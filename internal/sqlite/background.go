package sqlite

import (
	"context"
	"database/sql"
	"time"

	"github.com/gatehouse/gatehouse"
	"github.com/google/uuid"
)

// SweepCommands expires the unsettled commands past their deadline, for
// every organization, and forgets stale keys, servers and wakes. SQLite
// has one writer and the updates are conditional on the status read, so
// two sweeps never move a command twice.
func (db *DB) SweepCommands(ctx context.Context, now time.Time) (int, error) {
	expired := 0
	err := db.withTx(ctx, func(tx *sql.Tx) error {
		expired = 0
		ms := millis(now)
		due, err := dueToExpire(ctx, tx, ms)
		if err != nil {
			return err
		}
		for _, d := range due {
			c, err := findCommand(ctx, tx, d.org, uuid.Nil, d.id, false)
			if err != nil {
				return err
			}
			status, reason := gatehouse.Expire(c)
			r, err := tx.ExecContext(ctx, `UPDATE commands SET status = ?, failure_reason = ?, status_at = ?
				WHERE org = ? AND id = ? AND status IN ('PENDING', 'DELIVERED')`,
				string(status), optString(reason), ms, d.org, d.id[:])
			if err != nil {
				return err
			}
			n, _ := r.RowsAffected()
			expired += int(n)
		}
		return forget(ctx, tx, now)
	})
	return expired, err
}

type orgCommand struct {
	org int64
	id  uuid.UUID
}

// dueExpiry finds the unsettled commands past their deadline.
const dueExpiry = `SELECT org, id FROM commands INDEXED BY commands_unsettled
	WHERE issued = 1 AND status IN ('PENDING', 'DELIVERED') AND expires_at <= ?`

// dueToExpire lists the unsettled commands whose deadline passed, through
// the commands_unsettled index.
func dueToExpire(ctx context.Context, tx *sql.Tx, ms int64) ([]orgCommand, error) {
	return queryAll(ctx, tx, func(rows *sql.Rows, c *orgCommand) error { return rows.Scan(&c.org, &c.id) }, dueExpiry, ms)
}

// wakeKeep is how long a wake row is kept for watchers to read.
const wakeKeep = time.Minute

// forget deletes idempotency keys past their window, servers unseen for
// ServerForgetAfter (with their players) and old wakes. The newest wake
// is always kept: command_wakes numbers rows from the largest kept, and
// an emptied table would restart the numbers below what watchers saw.
func forget(ctx context.Context, tx *sql.Tx, now time.Time) error {
	gone := millis(now.Add(-gatehouse.ServerForgetAfter))
	for _, q := range []struct {
		query string
		arg   int64
	}{
		{"DELETE FROM idempotency_keys WHERE created_at < ?", millis(now.Add(-gatehouse.IdempotencyWindow))},
		{`DELETE FROM server_players WHERE (org, job_id) IN
			(SELECT org, job_id FROM game_servers WHERE seen_at < ?)`, gone},
		{"DELETE FROM game_servers WHERE seen_at < ?", gone},
		{"DELETE FROM command_wakes WHERE at < ? AND seq < (SELECT max(seq) FROM command_wakes)", millis(now.Add(-wakeKeep))},
	} {
		if _, err := tx.ExecContext(ctx, q.query, q.arg); err != nil {
			return err
		}
	}
	return nil
}

// wakePoll is how often WatchCommands reads command_wakes: well within
// the second in which a command must reach a long poll of any process.
const wakePoll = 200 * time.Millisecond

// WatchCommands relays the wakes other processes leave in command_wakes.
// It starts by calling wake(uuid.Nil, "") once, since wakes left before
// it started reading were not seen.
func (db *DB) WatchCommands(ctx context.Context, wake func(gatehouse.Wake)) error {
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

// TryLease takes or renews a lease for holder; another holder's
// unexpired lease is kept.
func (db *DB) TryLease(ctx context.Context, name, holder string, now time.Time, ttl time.Duration) (bool, error) {
	var held bool
	err := db.withTx(ctx, func(tx *sql.Tx) error {
		r, err := tx.ExecContext(ctx, `INSERT INTO leases (name, holder, until) VALUES (?, ?, ?)
			ON CONFLICT (name) DO UPDATE SET holder = excluded.holder, until = excluded.until
			WHERE leases.holder = excluded.holder OR leases.until <= ?`,
			name, holder, millis(now.Add(ttl)), millis(now))
		if err != nil {
			return err
		}
		n, err := r.RowsAffected()
		held = n > 0
		return err
	})
	return held, err
}
