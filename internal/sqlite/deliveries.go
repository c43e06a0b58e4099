package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"github.com/gatehouse/gatehouse"
	"github.com/gatehouse/gatehouse/internal/sqlstore"
	"github.com/google/uuid"
)

// AckCommands applies a server's acknowledgements, each moving its
// command by gatehouse.Settle, in one transaction.
func (db *DB) AckCommands(ctx context.Context, orgID uuid.UUID, jobID string, acks []gatehouse.Ack, at time.Time) (_ []uuid.UUID, err error) {
	defer sqlstore.Label(&err, "Store.AckCommands", orgID)
	var rejected []uuid.UUID
	err = db.withHotTx(ctx, func(q querier) error {
		rejected = []uuid.UUID{}
		org, err := db.orgSeq(ctx, q, orgID)
		if err != nil {
			return err
		}
		for _, a := range acks {
			ok, err := db.ack(ctx, q, org, orgID, jobID, a, at)
			if err != nil {
				return err
			}
			if !ok {
				rejected = append(rejected, a.CommandID)
			}
		}
		return nil
	})
	return rejected, err
}

// answerDelivery records a server's answer on its delivery row, if it
// was delivered and is unanswered: ? result, detail, acked_at, org,
// command, job.
const answerDelivery = `UPDATE command_deliveries SET result = ?, detail = ?, acked_at = ?
	WHERE org = ? AND command_id = ? AND job_id = ? AND delivered_at IS NOT NULL AND result IS NULL
	RETURNING target`

// countAnswer adds a target's answer to its command's counts.
const countAnswer = `UPDATE commands SET targets_executed = targets_executed + ?, targets_failed = targets_failed + ?
	WHERE org = ? AND id = ?`

// settleCommand moves an unsettled command to the status Settle chose.
const settleCommand = `UPDATE commands SET status = ?, failure_reason = ?, status_at = ?
	WHERE org = ? AND id = ? AND status IN ('PENDING', 'DELIVERED')`

// ack applies one acknowledgement and reports whether it counted: the
// command was delivered to the server, which had not answered it. A
// target's answer counts in the command's row before Settle reads it.
func (db *DB) ack(ctx context.Context, q querier, org int64, orgID uuid.UUID, jobID string, a gatehouse.Ack, at time.Time) (bool, error) {
	var target bool
	err := q.QueryRowContext(ctx, answerDelivery, string(a.Result), optString(a.Detail), millis(at),
		org, a.CommandID[:], jobID).Scan(&target)
	if errors.Is(err, sql.ErrNoRows) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	if target {
		if _, err := q.ExecContext(ctx, countAnswer, one(a.Result == gatehouse.AckExecuted), one(a.Result == gatehouse.AckFailed),
			org, a.CommandID[:]); err != nil {
			return false, err
		}
	}
	c, err := findCommand(ctx, q, org, orgID, a.CommandID, false)
	if err != nil {
		return false, err
	}
	status, reason := gatehouse.Settle(c, a, target)
	if status == c.Status {
		return true, nil
	}
	_, err = q.ExecContext(ctx, settleCommand, string(status), optString(reason), millis(at), org, a.CommandID[:])
	return true, err
}
