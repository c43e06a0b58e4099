package postgres

import (
	"context"
	"time"

	"github.com/gatehouse/gatehouse"
	"github.com/gatehouse/gatehouse/internal/sqlstore"
	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
)

// sweepBatch bounds the commands one transaction of the sweep expires, so
// that a backlog (an instance down for an hour) never holds thousands of
// rows locked at once.
const sweepBatch = 500

// SweepCommands settles the commands every target of which answered
// but that are unsettled still, expires the unsettled commands past their
// deadline, for every organization, and deletes what is kept only for a
// while.
//
// Instances may sweep at once, the lease notwithstanding (it may lapse
// under a slow sweep): each batch locks its commands with SKIP LOCKED, so
// a command another sweep holds is left to it, and the update is
// conditional on the status still being unsettled, so a command is moved
// once.
func (db *DB) SweepCommands(ctx context.Context, now time.Time) (_ int, err error) {
	defer sqlstore.Label(&err, "Store.SweepCommands")
	now = gatehouse.Truncate(now)
	if err := db.settleLost(ctx, now); err != nil {
		return 0, err
	}
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
	_, err = db.pool.Exec(ctx, `WITH gone AS (DELETE FROM game_servers WHERE seen_at < $1 RETURNING org, job_id)
		DELETE FROM server_players p USING gone WHERE p.org = gone.org AND p.job_id = gone.job_id`, now.Add(-gatehouse.ServerForgetAfter))
	return expired, wrap(err)
}

// expireBatch moves up to sweepBatch commands due at now by
// gatehouse.Expire, and returns how many it moved.
func (db *DB) expireBatch(ctx context.Context, now time.Time) (int, error) {
	var moved int
	err := db.withTx(ctx, func(tx pgx.Tx) error {
		moved = 0
		// A command every target of which answered is settleLost's (an
		// answer may have committed since it looked).
		rows, _ := tx.Query(ctx, `SELECT c.org, c.id, c.status, c.targets_live, t.failed FROM commands c
			CROSS JOIN LATERAL (`+answerCounts+`) t
			WHERE c.issued AND c.status IN ('PENDING', 'DELIVERED') AND c.expires_at <= $1
				AND (c.targets_live = 0 OR t.executed + t.failed < c.targets_live)
			ORDER BY c.org, c.id LIMIT $2 FOR UPDATE OF c SKIP LOCKED`, now, sweepBatch)
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

// answerCounts sums the answers of command c's targets.
const answerCounts = `SELECT coalesce(sum(n.executed), 0) AS executed, coalesce(sum(n.failed), 0) AS failed
	FROM command_delivery_counts n WHERE n.org = c.org AND n.command_id = c.id`

// settleLost moves by gatehouse.Settle the unsettled commands every
// target of which answered: AckCommands settles after its commit, and an
// instance that stopped in between left the move undone.
func (db *DB) settleLost(ctx context.Context, now time.Time) error {
	rows, _ := db.pool.Query(ctx, `SELECT c.org, c.id FROM commands c
		CROSS JOIN LATERAL (`+answerCounts+`) t
		WHERE c.issued AND c.status IN ('PENDING', 'DELIVERED') AND c.targets_live > 0 AND t.executed + t.failed >= c.targets_live`)
	lost := map[int64]map[uuid.UUID]bool{}
	var (
		org int64
		id  uuid.UUID
	)
	if _, err := pgx.ForEachRow(rows, []any{&org, &id}, func() error {
		if lost[org] == nil {
			lost[org] = map[uuid.UUID]bool{}
		}
		lost[org][id] = true
		return nil
	}); err != nil {
		return wrap(err)
	}
	for org, ids := range lost {
		err := db.settleAnswered(ctx, org, ids, func(c gatehouse.Command) (gatehouse.CommandStatus, *string) {
			result := gatehouse.AckExecuted
			if c.Targets.Failed > 0 {
				result = gatehouse.AckFailed
			}
			return gatehouse.Settle(c, gatehouse.Ack{CommandID: c.ID, Result: result}, true)
		}, now)
		if err != nil {
			return err
		}
	}
	return nil
}
