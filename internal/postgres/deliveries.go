package postgres

import (
	"bytes"
	"context"
	"errors"
	"slices"
	"time"

	"github.com/gatehouse/gatehouse"
	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
)

// Lock order of the commands' tables, in every transaction that takes
// more than one: the server's row (game_servers), then commands in id
// order, then deliveries, then the shards of command_delivery_counts in
// command id order. Two transactions then never wait for each other in a
// cycle, whatever their commands.

// AckCommands applies the acknowledgements of the organization's server
// jobID. The acknowledged commands are locked first, in id order: a
// command settles on the counts of every server's answer, so two servers
// answering one command at once must be applied one after the other.
// The lock, each answer and each read of its command for Settle go in
// one round trip, so the locks are held for little more than the commit.
func (db *DB) AckCommands(ctx context.Context, orgID uuid.UUID, jobID string, acks []gatehouse.Ack, at time.Time) ([]uuid.UUID, error) {
	org, err := db.orgSeq(ctx, db.pool, orgID)
	if err != nil {
		return nil, err
	}
	at = gatehouse.Truncate(at)
	ids := make([]uuid.UUID, 0, len(acks))
	for _, a := range acks {
		ids = append(ids, a.CommandID)
	}
	slices.SortFunc(ids, func(a, b uuid.UUID) int { return bytes.Compare(a[:], b[:]) })
	ids = slices.Compact(ids)
	var rejected []uuid.UUID
	err = db.withTx(ctx, func(tx pgx.Tx) error {
		batch := &pgx.Batch{}
		batch.Queue(`SELECT 1 FROM commands WHERE org = $1 AND id = ANY($2) AND issued ORDER BY id FOR UPDATE`, org, ids)
		for _, a := range acks {
			batch.Queue(answerDelivery, org, a.CommandID, jobID, string(a.Result), a.Detail, at,
				one(a.Result == gatehouse.AckExecuted), one(a.Result == gatehouse.AckFailed))
			batch.Queue(commandSelect+` AND c.id = $2`, org, a.CommandID)
		}
		var moves []settled
		moves, rejected, err = readAnswers(tx.SendBatch(ctx, batch), acks)
		if err != nil {
			return err
		}
		for _, m := range moves {
			if _, err := tx.Exec(ctx, "UPDATE commands SET status = $3, failure_reason = $4, status_at = $5 WHERE org = $1 AND id = $2",
				org, m.id, string(m.status), m.reason, at); err != nil {
				return err
			}
		}
		return nil
	})
	return rejected, err
}

// answerDelivery records one answer on the server's delivery row, if it
// is delivered and unanswered, and adds a target's answer to its
// command's counts (its row is locked already): $1 org, $2 command, $3
// job, $4 result, $5 detail, $6 time, $7 executed, $8 failed (0 or 1).
const answerDelivery = `WITH d AS (
		UPDATE command_deliveries d SET result = $4, detail = $5, acked_at = $6
		FROM commands c
		WHERE d.org = $1 AND d.command_id = $2 AND d.job_id = $3 AND d.delivered_at IS NOT NULL AND d.result IS NULL
			AND c.org = d.org AND c.id = d.command_id AND c.issued
		RETURNING d.target),
	counted AS (
		UPDATE commands c SET targets_executed = c.targets_executed + $7, targets_failed = c.targets_failed + $8
		FROM d WHERE c.org = $1 AND c.id = $2 AND d.target)
	SELECT target FROM d`

// settled is a command an answer moves, by gatehouse.Settle.
type settled struct {
	id     uuid.UUID
	status gatehouse.CommandStatus
	reason *string
}

// readAnswers reads the results of AckCommands' batch (the lock, then an
// answer and a read of its command per ack) and closes it. It returns the
// commands to move and the ids of the acks that did not count. Only the
// first answer to a command counts (the next finds its row answered), so
// each command moves at most once.
func readAnswers(br pgx.BatchResults, acks []gatehouse.Ack) ([]settled, []uuid.UUID, error) {
	defer br.Close()
	var moves []settled
	rejected := []uuid.UUID{}
	if _, err := br.Exec(); err != nil {
		return nil, nil, err
	}
	for _, a := range acks {
		var target bool
		counted := true
		if err := br.QueryRow().Scan(&target); errors.Is(err, pgx.ErrNoRows) {
			counted = false
		} else if err != nil {
			return nil, nil, err
		}
		rows, err := br.Query()
		if err != nil {
			return nil, nil, err
		}
		cmds, err := pgx.CollectRows(rows, scanCommand)
		if err != nil {
			return nil, nil, err
		}
		if !counted {
			rejected = append(rejected, a.CommandID)
			continue
		}
		if len(cmds) == 0 {
			continue
		}
		c := cmds[0]
		if status, reason := gatehouse.Settle(c, a, target); status != c.Status {
			moves = append(moves, settled{id: c.ID, status: status, reason: reason})
		}
	}
	return moves, rejected, br.Close()
}

// one is 1 for true: what a count adds.
func one(b bool) int {
	if b {
		return 1
	}
	return 0
}
