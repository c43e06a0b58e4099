package sqlite

import (
	"context"
	"database/sql"
	"time"

	"github.com/gatehouse/gatehouse"
	"github.com/gatehouse/gatehouse/internal/sqlstore"
	"github.com/google/uuid"
)

// SweepCommands expires the unsettled commands past their deadline, for
// every organization, and forgets stale keys, servers and wakes. SQLite
// has one writer and the updates are conditional on the status read, so
// two sweeps never move a command twice.
func (db *DB) SweepCommands(ctx context.Context, now time.Time) (_ int, err error) {
	defer sqlstore.Label(&err, "Store.SweepCommands")
	expired := 0
	err = db.withTx(ctx, func(tx *sql.Tx) error {
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
