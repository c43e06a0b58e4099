package postgres

import (
	"bytes"
	"context"
	"errors"
	"hash/fnv"
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

// unlockBound is how long before now a command may have been issued and
// still run: it waits at most MaxCommandTTL for its first delivery, then
// runs at most MaxUnlockSeconds. It bounds the scan of a universe's
// commands for a server that joins.
const unlockBound = (gatehouse.MaxCommandTTL + gatehouse.MaxUnlockSeconds) * time.Second

// dueCommands selects the ids of the commands due to a server (see
// Store.TakeCommands), oldest first: $1 org, $2 job, $3 universe, $4
// cursor, $5 now, $6 the oldest issue of a running unlock, $7 limit.
const dueCommands = `SELECT id FROM (
		SELECT c.id, c.issued_at FROM command_deliveries d
		JOIN commands c ON c.org = d.org AND c.id = d.command_id AND c.issued
		WHERE d.org = $1 AND d.job_id = $2 AND d.result IS NULL AND (
			(c.status IN ('PENDING', 'DELIVERED') AND c.expires_at > $5 AND (d.delivered_at IS NULL OR d.gen > $4))
			OR (c.status = 'CANCELLED' AND d.delivered_at IS NOT NULL AND (d.sent_status IS DISTINCT FROM 'CANCELLED' OR d.gen > $4)))
		UNION ALL
		SELECT c.id, c.issued_at FROM commands c
		WHERE c.org = $1 AND c.issued AND c.scope = 'UNIVERSE' AND c.universe_id = $3 AND c.issued_at > $6
			AND c.status NOT IN ('CANCELLED', 'EXPIRED')
			AND CASE WHEN c.started_at IS NULL THEN c.expires_at > $5
				ELSE $5 < c.started_at + c.duration_s * interval '1 second' END
			AND NOT EXISTS (SELECT 1 FROM command_deliveries d WHERE d.org = c.org AND d.command_id = c.id AND d.job_id = $2)
	) due ORDER BY issued_at, id LIMIT $7`

// TakeCommands returns the commands due to the organization's server and
// marks them delivered under its next generation, in one transaction.
func (db *DB) TakeCommands(ctx context.Context, orgID uuid.UUID, jobID, universeID string, cursor int64, now time.Time) ([]gatehouse.Command, int64, error) {
	org, err := db.orgSeq(ctx, db.pool, orgID)
	if err != nil {
		return nil, 0, err
	}
	now = gatehouse.Truncate(now)
	args := []any{org, jobID, universeID, cursor, now, now.Add(-unlockBound), gatehouse.MaxSyncCommands}
	var (
		cmds = []gatehouse.Command{}
		gen  int64
		due  bool
	)
	// Most syncs find nothing due: they learn it in one read, with no
	// transaction and no lock. A server that never synced (no Heartbeat)
	// has nothing due.
	err = db.pool.QueryRow(ctx, `SELECT g.gen, EXISTS (`+dueCommands+`) FROM game_servers g WHERE g.org = $1 AND g.job_id = $2`,
		args...).Scan(&gen, &due)
	if errors.Is(err, pgx.ErrNoRows) {
		return cmds, 0, nil
	}
	if err != nil || !due {
		return cmds, gen, wrap(err)
	}
	err = db.withTx(ctx, func(tx pgx.Tx) error {
		cmds = []gatehouse.Command{}
		// The server's row first: two syncs of one server take one after
		// the other, so one command is not given under two generations.
		err := tx.QueryRow(ctx, "SELECT gen FROM game_servers WHERE org = $1 AND job_id = $2 FOR UPDATE", org, jobID).Scan(&gen)
		if errors.Is(err, pgx.ErrNoRows) {
			gen = 0
			return nil
		}
		if err != nil {
			return err
		}
		rows, _ := tx.Query(ctx, dueCommands, args...)
		ids, err := pgx.CollectRows(rows, pgx.RowTo[uuid.UUID])
		if err != nil || len(ids) == 0 {
			return err
		}
		// A server forgotten by the sweep comes back with a cursor above
		// its new generation: the next one is above both.
		if err := tx.QueryRow(ctx, "UPDATE game_servers SET gen = GREATEST(gen, $3) + 1 WHERE org = $1 AND job_id = $2 RETURNING gen",
			org, jobID, cursor).Scan(&gen); err != nil {
			return err
		}
		// Sent in one round trip: what follows startCommands holds locks
		// until the commit. A command another instance's sweep expired
		// since it was found due is neither sent nor read.
		batch := &pgx.Batch{}
		batch.Queue(startCommands, org, ids, now)
		batch.Queue(deliverCommands, org, jobID, ids, now, gen, shardOf(jobID))
		batch.Queue(commandSelect+` AND c.id = ANY($2) AND c.status <> 'EXPIRED' ORDER BY c.issued_at, c.id`, org, ids)
		br := tx.SendBatch(ctx, batch)
		if cmds, err = takeBatch(br, orgID); err != nil {
			return err
		}
		for i := range cmds {
			left := cmds[i].Remaining(now)
			cmds[i].RemainingSeconds = &left
		}
		return nil
	})
	if err != nil {
		return nil, 0, err
	}
	return cmds, gen, nil
}

// startCommands marks the first delivery of the commands that had none:
// the unlock starts now and PENDING moves to DELIVERED. Their rows are
// locked in id order, and a command another server started meanwhile is
// left as it is (the lock re-reads the row), so startedAt is the first
// delivery's. $1 org, $2 ids, $3 now.
const startCommands = `WITH first AS (
		SELECT id FROM commands
		WHERE org = $1 AND id = ANY($2) AND (status = 'PENDING' OR (status = 'DELIVERED' AND started_at IS NULL))
		ORDER BY id FOR UPDATE)
	UPDATE commands c SET started_at = coalesce(c.started_at, $3),
		status = CASE WHEN c.status = 'PENDING' THEN 'DELIVERED' ELSE c.status END,
		status_at = CASE WHEN c.status = 'PENDING' THEN $3 ELSE c.status_at END
	FROM first WHERE c.org = $1 AND c.id = first.id`

// deliverCommands marks the commands delivered to the server: each row
// keeps its first deliveredAt and takes the generation and the status
// sent; a server that joined gets a row now. A row's first delivery (the
// server's rows as they were before: prev) counts once in the server's
// shard of command_delivery_counts, as delivered for a target and joined
// otherwise; shards are taken in command id order. $1 org, $2 job, $3
// ids, $4 now, $5 gen, $6 shard.
const deliverCommands = `WITH prev AS (
		SELECT command_id, target, delivered_at FROM command_deliveries
		WHERE org = $1 AND job_id = $2 AND command_id = ANY($3)),
	sent AS (
		INSERT INTO command_deliveries (org, command_id, job_id, target, delivered_at, gen, sent_status)
			SELECT c.org, c.id, $2, false, $4, $5, c.status FROM commands c
			WHERE c.org = $1 AND c.id = ANY($3) AND c.status <> 'EXPIRED' ORDER BY c.id
		ON CONFLICT (org, command_id, job_id) DO UPDATE SET delivered_at = coalesce(command_deliveries.delivered_at, excluded.delivered_at),
			gen = excluded.gen, sent_status = excluded.sent_status
		RETURNING command_id)
	INSERT INTO command_delivery_counts AS n (org, command_id, shard, delivered, joined)
		SELECT $1, sent.command_id, $6,
			CASE WHEN p.target THEN 1 ELSE 0 END, CASE WHEN coalesce(p.target, false) THEN 0 ELSE 1 END
		FROM sent LEFT JOIN prev p ON p.command_id = sent.command_id
		WHERE p.delivered_at IS NULL ORDER BY sent.command_id
	ON CONFLICT (org, command_id, shard) DO UPDATE SET delivered = n.delivered + excluded.delivered, joined = n.joined + excluded.joined`

// deliveryShards is how many rows of command_delivery_counts a command's
// first deliveries spread over.
const deliveryShards = 16

// shardOf is the server's shard of command_delivery_counts.
func shardOf(jobID string) int16 {
	h := fnv.New32a()
	h.Write([]byte(jobID))
	return int16(h.Sum32() % deliveryShards)
}

// takeBatch reads the results of TakeCommands' batch (startCommands, the
// delivery rows, the commands delivered) and closes it.
func takeBatch(br pgx.BatchResults, orgID uuid.UUID) ([]gatehouse.Command, error) {
	defer br.Close()
	for range 2 {
		if _, err := br.Exec(); err != nil {
			return nil, err
		}
	}
	rows, err := br.Query()
	if err != nil {
		return nil, err
	}
	cmds, err := pgx.CollectRows(rows, scanCommand)
	if err != nil {
		return nil, err
	}
	for i := range cmds {
		cmds[i].OrgID = orgID
	}
	return cmds, br.Close()
}

// one is 1 for true: what a count adds.
func one(b bool) int {
	if b {
		return 1
	}
	return 0
}
