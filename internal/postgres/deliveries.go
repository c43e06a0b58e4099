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
// order, then deliveries. Two transactions then never wait for each
// other in a cycle, whatever their commands.

// AckCommands applies the acknowledgements of the organization's server
// jobID. The acknowledged commands are locked first, in id order: a
// command settles on the counts of every server's answer, so two servers
// answering one command at once must be applied one after the other.
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
		rejected = []uuid.UUID{}
		if _, err := tx.Exec(ctx, `SELECT 1 FROM commands WHERE org = $1 AND id = ANY($2) AND issued ORDER BY id FOR UPDATE`, org, ids); err != nil {
			return err
		}
		for _, a := range acks {
			ok, err := db.applyAck(ctx, tx, org, orgID, jobID, a, at)
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

// applyAck records one answer and moves its command by gatehouse.Settle,
// which reads the counts with the answer. The answer and the read go in
// one round trip: the command stays locked until the commit.
func (db *DB) applyAck(ctx context.Context, tx pgx.Tx, org int64, orgID uuid.UUID, jobID string, a gatehouse.Ack, at time.Time) (bool, error) {
	batch := &pgx.Batch{}
	batch.Queue(answerDelivery, org, a.CommandID, jobID, string(a.Result), a.Detail, at,
		one(a.Result == gatehouse.AckExecuted), one(a.Result == gatehouse.AckFailed))
	batch.Queue(commandSelect+` AND c.id = $2`, org, a.CommandID)
	br := tx.SendBatch(ctx, batch)
	defer br.Close()
	var target bool
	err := br.QueryRow().Scan(&target)
	if errors.Is(err, pgx.ErrNoRows) {
		return false, br.Close()
	}
	if err != nil {
		return false, err
	}
	rows, err := br.Query()
	if err != nil {
		return false, err
	}
	cmds, err := pgx.CollectRows(rows, scanCommand)
	if err != nil {
		return false, err
	}
	if err := br.Close(); err != nil || len(cmds) == 0 {
		return true, err
	}
	c := cmds[0]
	c.OrgID = orgID
	status, reason := gatehouse.Settle(c, a, target)
	if status == c.Status {
		return true, nil
	}
	_, err = tx.Exec(ctx, "UPDATE commands SET status = $3, failure_reason = $4, status_at = $5 WHERE org = $1 AND id = $2",
		org, c.ID, string(status), reason, at)
	return true, err
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
		// From startCommands on, the commands are locked until the commit:
		// what remains is sent in one round trip. Each delivery row keeps
		// its first deliveredAt and takes the generation and the status
		// sent; a server that joined gets a row now. A command another
		// instance's sweep expired since it was found due is neither sent
		// nor read.
		batch := &pgx.Batch{}
		batch.Queue(startCommands, org, ids, now, jobID)
		batch.Queue(`INSERT INTO command_deliveries (org, command_id, job_id, target, delivered_at, gen, sent_status)
				SELECT c.org, c.id, $2, false, $4, $5, c.status FROM commands c
				WHERE c.org = $1 AND c.id = ANY($3) AND c.status <> 'EXPIRED' ORDER BY c.id
			ON CONFLICT (org, command_id, job_id) DO UPDATE SET delivered_at = coalesce(command_deliveries.delivered_at, excluded.delivered_at),
				gen = excluded.gen, sent_status = excluded.sent_status`, org, jobID, ids, now, gen)
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

// startCommands locks the commands about to be delivered to the server,
// in id order, and marks their first delivery: the unlock starts now and
// PENDING moves to DELIVERED. A command another server started meanwhile
// is left as it is (the lock re-reads the row), so startedAt is the first
// delivery's. The server's row of each command (none for a server that
// joined) says whether this delivery is its first, which counts once: as
// delivered for a target, joined otherwise. A command expired since it
// was found due is not delivered, and counts nothing. $1 org, $2 ids, $3
// now, $4 job.
const startCommands = `WITH due AS (
		SELECT id FROM commands WHERE org = $1 AND id = ANY($2) ORDER BY id FOR UPDATE)
	UPDATE commands c SET
		started_at = CASE WHEN c.status IN ('PENDING', 'DELIVERED') THEN coalesce(c.started_at, $3) ELSE c.started_at END,
		status = CASE WHEN c.status = 'PENDING' THEN 'DELIVERED' ELSE c.status END,
		status_at = CASE WHEN c.status = 'PENDING' THEN $3 ELSE c.status_at END,
		targets_delivered = c.targets_delivered
			+ CASE WHEN c.status <> 'EXPIRED' AND d.delivered_at IS NULL AND d.target THEN 1 ELSE 0 END,
		targets_joined = c.targets_joined
			+ CASE WHEN c.status <> 'EXPIRED' AND d.delivered_at IS NULL AND NOT coalesce(d.target, false) THEN 1 ELSE 0 END
	FROM due LEFT JOIN command_deliveries d ON d.org = $1 AND d.command_id = due.id AND d.job_id = $4
	WHERE c.org = $1 AND c.id = due.id`

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
