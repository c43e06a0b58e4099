package postgres

import (
	"bytes"
	"context"
	"slices"
	"time"

	"github.com/gatehouse/gatehouse"
	"github.com/gatehouse/gatehouse/internal/sqlstore"
	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
)

// Lock order of the commands' tables, in every transaction that takes
// more than one: the servers' rows (game_servers) in job id order, then
// commands in id order, then deliveries, then the shards of
// command_delivery_counts in (command id, shard) order. Two transactions
// then never wait for each other in a cycle, whatever their commands. An
// acknowledgement takes no command's row: it locks its server's delivery
// rows and shards only.

// AckCommands applies the acknowledgements of the organization's server
// jobID, then settles their commands. The answers go in one transaction
// that locks only the server's delivery rows and its shard of each
// command's counts, so the answers of a thousand servers to one command
// do not queue on the command's row through each commit. After the
// commit each command moves by gatehouse.Settle on its summed counts:
// the last answer to commit reads every earlier one, so a command
// settles when its last target answers. The move is conditional on the
// command being unsettled still: status only moves forward, and of two
// answers that both settle it the first move stands. The sweep settles a
// command whose move was lost with its instance (settleAnswered).
func (db *DB) AckCommands(ctx context.Context, orgID uuid.UUID, jobID string, acks []gatehouse.Ack, at time.Time) (_ []uuid.UUID, err error) {
	defer sqlstore.Label(&err, "Store.AckCommands", orgID)
	org, err := db.orgSeq(ctx, db.pool, orgID)
	if err != nil {
		return nil, err
	}
	at = gatehouse.Truncate(at)
	// Only the first ack of a command may count; a later one finds its
	// row answered.
	first := make(map[uuid.UUID]int, len(acks))
	for i, a := range acks {
		if _, ok := first[a.CommandID]; !ok {
			first[a.CommandID] = i
		}
	}
	ids := make([]uuid.UUID, 0, len(first))
	for id := range first {
		ids = append(ids, id)
	}
	slices.SortFunc(ids, func(a, b uuid.UUID) int { return bytes.Compare(a[:], b[:]) })
	results, details := make([]string, len(ids)), make([]*string, len(ids))
	for k, id := range ids {
		a := acks[first[id]]
		results[k], details[k] = string(a.Result), a.Detail
	}
	var counted map[uuid.UUID]bool // command -> the answer was a target's
	err = db.withTx(ctx, func(tx pgx.Tx) error {
		counted = map[uuid.UUID]bool{}
		rows, _ := tx.Query(ctx, answerDeliveries, org, jobID, ids, results, details, at, shardOf(jobID))
		var (
			id     uuid.UUID
			target bool
		)
		_, err := pgx.ForEachRow(rows, []any{&id, &target}, func() error {
			counted[id] = target
			return nil
		})
		return err
	})
	if err != nil {
		return nil, err
	}
	rejected := []uuid.UUID{}
	for i, a := range acks {
		if _, ok := counted[a.CommandID]; !ok || first[a.CommandID] != i {
			rejected = append(rejected, a.CommandID)
		}
	}
	return rejected, db.settleAnswered(ctx, org, counted, func(c gatehouse.Command) (gatehouse.CommandStatus, *string) {
		return gatehouse.Settle(c, acks[first[c.ID]], counted[c.ID])
	}, at)
}

// answerDeliveries records a server's answers on its delivery rows, each
// if it is delivered and unanswered, and counts a target's answer in the
// server's shard of its command's counts: $1 org, $2 job, $3 command ids
// (distinct, in order), $4 results, $5 details, $6 time, $7 shard. It
// returns the answered commands and whether the server is their target.
const answerDeliveries = `WITH a AS (
		SELECT * FROM unnest($3::uuid[], $4::text[], $5::text[]) AS a(id, result, detail)),
	d AS (
		UPDATE command_deliveries d SET result = a.result, detail = a.detail, acked_at = $6
		FROM a, commands c
		WHERE d.org = $1 AND d.job_id = $2 AND d.command_id = a.id AND d.delivered_at IS NOT NULL AND d.result IS NULL
			AND c.org = d.org AND c.id = d.command_id AND c.issued
		RETURNING d.command_id, d.target, d.result),
	counted AS (
		INSERT INTO command_delivery_counts AS n (org, command_id, shard, delivered, joined, executed, failed)
			SELECT $1, command_id, $7, 0, 0, CASE WHEN result = 'EXECUTED' THEN 1 ELSE 0 END, CASE WHEN result = 'FAILED' THEN 1 ELSE 0 END
			FROM d WHERE target ORDER BY command_id
		ON CONFLICT (org, command_id, shard) DO UPDATE SET executed = n.executed + excluded.executed, failed = n.failed + excluded.failed)
	SELECT command_id, target FROM d`

// settleAnswered reads the commands ids names, as they are now, and
// moves those that settle (by move) that are still unsettled, at time at.
func (db *DB) settleAnswered(ctx context.Context, org int64, ids map[uuid.UUID]bool, move func(gatehouse.Command) (gatehouse.CommandStatus, *string), at time.Time) error {
	if len(ids) == 0 {
		return nil
	}
	read := make([]uuid.UUID, 0, len(ids))
	for id := range ids {
		read = append(read, id)
	}
	// What Settle reads of a command, and nothing it does not: every
	// answer reads it.
	rows, _ := db.pool.Query(ctx, `SELECT c.id, c.status, c.failure_reason, c.scope, c.targets_live, t.executed, t.failed
		FROM commands c CROSS JOIN LATERAL (`+answerCounts+`) t WHERE c.org = $1 AND c.id = ANY($2)`, org, read)
	cmds, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (gatehouse.Command, error) {
		var c gatehouse.Command
		err := row.Scan(&c.ID, &c.Status, &c.FailureReason, &c.Scope, &c.Targets.Live, &c.Targets.Executed, &c.Targets.Failed)
		return c, err
	})
	if err != nil {
		return wrap(err)
	}
	var (
		moved             []uuid.UUID
		statuses, reasons []*string
	)
	for _, c := range cmds {
		if status, reason := move(c); status != c.Status {
			st := string(status)
			moved, statuses, reasons = append(moved, c.ID), append(statuses, &st), append(reasons, reason)
		}
	}
	if len(moved) == 0 {
		return nil
	}
	_, err = db.pool.Exec(ctx, `UPDATE commands c SET status = m.status, failure_reason = m.reason, status_at = $5
		FROM unnest($2::uuid[], $3::text[], $4::text[]) AS m (id, status, reason)
		WHERE c.org = $1 AND c.id = m.id AND c.status IN ('PENDING', 'DELIVERED')`, org, moved, statuses, reasons, at)
	return wrap(err)
}
