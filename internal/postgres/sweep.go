package postgres

import (
	"context"
	"time"

	"github.com/gatehouse/gatehouse"
	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
)

// sweepBatch bounds the commands one transaction of the sweep expires, so
// that a backlog (an instance down for an hour) never holds thousands of
// rows locked at once.
const sweepBatch = 500

// SweepCommands expires the unsettled commands past their deadline, for
// every organization, and deletes what is kept only for a while.
//
// Instances may sweep at once, the lease notwithstanding (it may lapse
// under a slow sweep): each batch locks its commands with SKIP LOCKED, so
// a command another sweep holds is left to it, and the update is
// conditional on the status still being unsettled, so a command is moved
// once.
func (db *DB) SweepCommands(ctx context.Context, now time.Time) (int, error) {
	now = gatehouse.Truncate(now)
	expired := 0
	for {
		n, err := db.expireBatch(ctx, now)
		expired += n
		if err != nil {
			return expired, err
		}
		if n < sweepBatch {
			break
		}
	}
	// The deletes need no transaction of their own: each is one statement,
	// and a row deleted twice is deleted once.
	if _, err := db.pool.Exec(ctx, "DELETE FROM idempotency_keys WHERE created_at < $1", now.Add(-gatehouse.IdempotencyWindow)); err != nil {
		return expired, wrap(err)
	}
	_, err := db.pool.Exec(ctx, `WITH gone AS (DELETE FROM game_servers WHERE seen_at < $1 RETURNING org, job_id)
		DELETE FROM server_players p USING gone WHERE p.org = gone.org AND p.job_id = gone.job_id`, now.Add(-gatehouse.ServerForgetAfter))
	return expired, wrap(err)
}

// expireBatch moves up to sweepBatch commands due at now by
// gatehouse.Expire, and returns how many it moved.
func (db *DB) expireBatch(ctx context.Context, now time.Time) (int, error) {
	var moved int
	err := db.withTx(ctx, func(tx pgx.Tx) error {
		moved = 0
		rows, _ := tx.Query(ctx, `SELECT org, id, status, targets_live, targets_failed FROM commands
			WHERE issued AND status IN ('PENDING', 'DELIVERED') AND expires_at <= $1
			ORDER BY org, id LIMIT $2 FOR UPDATE SKIP LOCKED`, now, sweepBatch)
		type due struct {
			org    int64
			id     uuid.UUID
			status gatehouse.CommandStatus
			reason *string
		}
		var batch []due
		var d due
		var c gatehouse.Command
		_, err := pgx.ForEachRow(rows, []any{&d.org, &d.id, &c.Status, &c.Targets.Live, &c.Targets.Failed}, func() error {
			d.status, d.reason = gatehouse.Expire(c)
			batch = append(batch, d)
			return nil
		})
		if err != nil || len(batch) == 0 {
			return err
		}
		var (
			orgs              []int64
			ids               []uuid.UUID
			statuses, reasons []*string
		)
		for _, d := range batch {
			status := string(d.status)
			orgs, ids = append(orgs, d.org), append(ids, d.id)
			statuses, reasons = append(statuses, &status), append(reasons, d.reason)
		}
		tag, err := tx.Exec(ctx, `UPDATE commands c SET status = m.status, failure_reason = m.reason, status_at = $5
			FROM unnest($1::bigint[], $2::uuid[], $3::text[], $4::text[]) AS m (org, id, status, reason)
			WHERE c.org = m.org AND c.id = m.id AND c.status IN ('PENDING', 'DELIVERED')`, orgs, ids, statuses, reasons, now)
		moved = int(tag.RowsAffected())
		return err
	})
	return moved, err
}
