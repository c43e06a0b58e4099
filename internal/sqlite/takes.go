package sqlite

import (
	"bytes"
	"cmp"
	"context"
	"database/sql"
	"errors"
	"runtime"
	"slices"
	"sync"
	"time"

	"github.com/gatehouse/gatehouse"
	"github.com/gatehouse/gatehouse/internal/sqlstore"
	"github.com/google/uuid"
)

// one is 1 for true: what a count adds.
func one(b bool) int {
	if b {
		return 1
	}
	return 0
}

// unlockSpan bounds how long after its issue an unlock may still run: it
// starts before it expires and runs at most its duration. It lets a
// joining server's search read a bounded range of commands_universe.
const unlockSpan = (gatehouse.MaxCommandTTL + gatehouse.MaxUnlockSeconds) * time.Second

// dueOwn finds the commands due to a server through its own unanswered
// delivery rows (command_deliveries_by_server): never delivered or
// delivered under a generation after the cursor, while unsettled and
// unexpired; or cancelled after they were sent, until the server confirms
// the CANCELLED answer by sending back its cursor. CROSS JOIN keeps the
// server's rows the outer loop: left to itself, SQLite walks every
// command of the organization and probes the server's rows for each.
const dueOwn = `SELECT c.id, c.issued_at FROM command_deliveries d INDEXED BY command_deliveries_by_server
	CROSS JOIN commands c ON c.org = d.org AND c.id = d.command_id
	WHERE d.org = ?3 AND d.job_id = ?4 AND d.result IS NULL AND c.issued = 1 AND (
		(c.status IN ('PENDING', 'DELIVERED') AND c.expires_at > ?1 AND (d.delivered_at IS NULL OR d.gen > ?2))
		OR (c.status = 'CANCELLED' AND d.delivered_at IS NOT NULL AND (d.sent_status IS NOT 'CANCELLED' OR d.gen > ?2)))
	ORDER BY c.issued_at, c.id LIMIT ?5`

// dueRelock finds the cancelled commands that a server applied and
// answered EXECUTED before it learnt of the cancel (CancelCommand marks
// every row of the command; the unanswered ones are dueOwn's),
// while their unlock runs, until the server confirms the CANCELLED answer
// by sending back its cursor. ?1 now, ?2 cursor, ?3 org, ?4 job, ?5 limit.
const dueRelock = `SELECT c.id, c.issued_at FROM command_deliveries d INDEXED BY command_deliveries_relock
	CROSS JOIN commands c ON c.org = d.org AND c.id = d.command_id
	WHERE d.org = ?3 AND d.job_id = ?4 AND d.relock = 1 AND d.result = 'EXECUTED' AND c.status = 'CANCELLED'
		AND ?1 < c.started_at + c.duration_s * 1000 AND (d.sent_status IS NOT 'CANCELLED' OR d.gen > ?2)
	ORDER BY c.issued_at, c.id LIMIT ?5`

// dueJoined finds the universe's unlocks running now that a server that
// joined has no row for (commands_universe, a bounded range).
const dueJoined = `SELECT c.id, c.issued_at FROM commands c INDEXED BY commands_universe
	WHERE c.org = ? AND c.universe_id = ? AND c.issued = 1 AND c.scope = 'UNIVERSE' AND c.issued_at > ?
		AND c.status NOT IN ('CANCELLED', 'EXPIRED')
		AND ((c.started_at IS NULL AND c.expires_at > ?) OR (c.started_at IS NOT NULL AND ? < c.started_at + c.duration_s * 1000))
		AND NOT EXISTS (SELECT 1 FROM command_deliveries d WHERE d.org = c.org AND d.command_id = c.id AND d.job_id = ?)
	ORDER BY c.issued_at, c.id LIMIT ?`

type dueCommand struct {
	id     uuid.UUID
	issued int64
}

// TakeCommands returns the commands due to a server and marks them
// delivered under its next generation, in one transaction. A server that
// never synced (no Heartbeat) has nothing due. Every sync and every wake
// of a long poll asks, and mostly nothing is due: that is learnt on a
// read connection, so that idle polls never queue for the one writer.
func (db *DB) TakeCommands(ctx context.Context, orgID uuid.UUID, jobID, universeID string, cursor int64, now time.Time) (_ []gatehouse.Command, _ int64, err error) {
	defer sqlstore.Label(&err, "Store.TakeCommands", orgID)
	return db.takeCommands(ctx, orgID, jobID, universeID, cursor, now)
}

// takeCommands is [DB.TakeCommands] without its label, for
// [DB.TakeCommandsBatch], which labels the batch.
func (db *DB) takeCommands(ctx context.Context, orgID uuid.UUID, jobID, universeID string, cursor int64, now time.Time) ([]gatehouse.Command, int64, error) {
	org, err := db.orgSeq(ctx, db.read, orgID)
	if err != nil {
		return nil, 0, err
	}
	due, gen, err := findDue(ctx, db.read, org, jobID, universeID, cursor, now)
	if err != nil || len(due) == 0 {
		return nil, gen, wrap(err)
	}
	var out []gatehouse.Command
	err = db.withHotTx(ctx, func(tx querier) error {
		out = nil
		// Read again under the write lock: another sync of the server may
		// have taken them since.
		due, gen, err = findDue(ctx, tx, org, jobID, universeID, cursor, now)
		if err != nil || len(due) == 0 {
			return err
		}
		// A server forgotten by the sweep comes back with a cursor above
		// its new generation: the next one is above both.
		if err := tx.QueryRowContext(ctx, nextGen, cursor, org, jobID).Scan(&gen); err != nil {
			return err
		}
		for _, d := range due {
			c, err := deliver(ctx, tx, org, orgID, d.id, jobID, gen, now)
			if err != nil {
				return err
			}
			out = append(out, c)
		}
		for i := range out {
			r := out[i].Remaining(now)
			out[i].RemainingSeconds = &r
		}
		return nil
	})
	return out, gen, err
}

// TakeCommandsBatch takes for the requests on as many goroutines as
// there are processors, the requests of one job id in order on one: each
// is a TakeCommands, whose reads go to the read connections at once and
// whose writes queue for the one writer, as they would from concurrent
// syncs. One transaction for many servers would only hold the write lock
// longer, and TakeCommands' statements are prepared already. PostgreSQL
// takes the batch in a few set-based statements (postgres/takes.go),
// where a transaction per server is what costs.
func (db *DB) TakeCommandsBatch(ctx context.Context, orgID uuid.UUID, universeID string, reqs []gatehouse.TakeRequest, now time.Time) (_ []gatehouse.Taken, err error) {
	defer sqlstore.Label(&err, "Store.TakeCommandsBatch", orgID)
	taken := make([]gatehouse.Taken, len(reqs))
	byJob := map[string][]int{}
	var jobs []string
	for i, r := range reqs {
		if byJob[r.JobID] == nil {
			jobs = append(jobs, r.JobID)
		}
		byJob[r.JobID] = append(byJob[r.JobID], i)
	}
	var (
		wg   sync.WaitGroup
		mu   sync.Mutex
		next int
		errs []error
	)
	for range min(runtime.GOMAXPROCS(0), len(jobs)) {
		wg.Go(func() {
			for {
				mu.Lock()
				if next == len(jobs) || len(errs) > 0 {
					mu.Unlock()
					return
				}
				job := jobs[next]
				next++
				mu.Unlock()
				for _, i := range byJob[job] {
					cmds, gen, err := db.takeCommands(ctx, orgID, job, universeID, reqs[i].Cursor, now)
					if err != nil {
						mu.Lock()
						errs = append(errs, err)
						mu.Unlock()
						return
					}
					taken[i] = gatehouse.Taken{Commands: cmds, Cursor: gen}
				}
			}
		})
	}
	wg.Wait()
	if len(errs) > 0 {
		return nil, errs[0]
	}
	return taken, nil
}

// serverGen reads a server's generation: ? org, job.
const serverGen = "SELECT gen FROM game_servers WHERE org = ? AND job_id = ?"

// nextGen moves a server to its next generation: ? cursor, org, job.
const nextGen = "UPDATE game_servers SET gen = max(gen, ?) + 1 WHERE org = ? AND job_id = ? RETURNING gen"

// findDue returns the commands due to a server, oldest first and at most
// MaxSyncCommands, and the server's generation.
func findDue(ctx context.Context, q querier, org int64, jobID, universeID string, cursor int64, now time.Time) ([]dueCommand, int64, error) {
	var gen int64
	err := q.QueryRowContext(ctx, serverGen, org, jobID).Scan(&gen)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, 0, nil
	}
	if err != nil {
		return nil, 0, err
	}
	ms := millis(now)
	due, err := queryDue(ctx, q, dueOwn, ms, cursor, org, jobID, gatehouse.MaxSyncCommands)
	if err != nil {
		return nil, gen, err
	}
	joined, err := queryDue(ctx, q, dueJoined, org, universeID, ms-unlockSpan.Milliseconds(), ms, ms, jobID, gatehouse.MaxSyncCommands)
	if err != nil {
		return nil, gen, err
	}
	relock, err := queryDue(ctx, q, dueRelock, ms, cursor, org, jobID, gatehouse.MaxSyncCommands)
	if err != nil {
		return nil, gen, err
	}
	due = append(append(due, joined...), relock...)
	slices.SortFunc(due, func(a, b dueCommand) int {
		return cmp.Or(cmp.Compare(a.issued, b.issued), bytes.Compare(a.id[:], b.id[:]))
	})
	return due[:min(len(due), gatehouse.MaxSyncCommands)], gen, nil
}

func queryDue(ctx context.Context, q querier, query string, args ...any) ([]dueCommand, error) {
	return queryAll(ctx, q, func(rows *sql.Rows, d *dueCommand) error { return rows.Scan(&d.id, &d.issued) }, query, args...)
}

// deliveryState reads the server's row of a command, if it has one:
// whether it is a target, and whether it was delivered before. ? org,
// command, job.
const deliveryState = `SELECT target, delivered_at IS NOT NULL FROM command_deliveries
	WHERE org = ? AND command_id = ? AND job_id = ?`

// startCommand starts an unlock at its first delivery, moves PENDING to
// DELIVERED and adds a first delivery to the counts: ? now, now,
// delivered, joined, org, id.
const startCommand = `UPDATE commands SET started_at = coalesce(started_at, ?),
		status_at = CASE WHEN status = 'PENDING' THEN ? ELSE status_at END,
		status = CASE WHEN status = 'PENDING' THEN 'DELIVERED' ELSE status END,
		targets_delivered = targets_delivered + ?, targets_joined = targets_joined + ?
	WHERE org = ? AND id = ?`

// markDelivered creates or updates the server's row: it keeps its first
// deliveredAt and takes the generation and status sent. ? org, command,
// job, now, gen, status.
const markDelivered = `INSERT INTO command_deliveries (org, command_id, job_id, target, delivered_at, gen, sent_status)
	VALUES (?, ?, ?, 0, ?, ?, ?)
	ON CONFLICT (org, command_id, job_id) DO UPDATE SET delivered_at = coalesce(delivered_at, excluded.delivered_at),
		gen = excluded.gen, sent_status = excluded.sent_status`

// deliver marks one command delivered to the server under generation gen:
// the unlock starts at its first delivery, PENDING becomes DELIVERED, and
// the server's row (created, not a target, for a server that joined)
// keeps its first deliveredAt and records the status sent. A row's first
// delivery counts once, as delivered for a target and joined otherwise:
// a lost answer sent again counts nothing.
func deliver(ctx context.Context, q querier, org int64, orgID, id uuid.UUID, jobID string, gen int64, now time.Time) (gatehouse.Command, error) {
	ms := millis(now)
	var target, delivered bool
	err := q.QueryRowContext(ctx, deliveryState, org, id[:], jobID).Scan(&target, &delivered)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return gatehouse.Command{}, err
	}
	first := !delivered
	if _, err := q.ExecContext(ctx, startCommand, ms, ms, one(first && target), one(first && !target), org, id[:]); err != nil {
		return gatehouse.Command{}, err
	}
	c, err := findCommand(ctx, q, org, orgID, id, false)
	if err != nil {
		return c, err
	}
	_, err = q.ExecContext(ctx, markDelivered, org, id[:], jobID, ms, gen, string(c.Status))
	return c, err
}

// hotQueries are the statements of the sync path, each run by most syncs
// of every server, and of ingest, run for every event: withHotTx keeps
// them prepared on the write connection.
var hotQueries = []string{
	commandByID, serverGen, dueOwn, dueJoined, dueRelock, nextGen, deliveryState, startCommand, markDelivered,
	answerDelivery, countAnswer, settleCommand, heartbeatDigest, heartbeatTotals, heartbeatSeen, heartbeatServer, clearPlayers, addPlayer,
	placeOf, userOf, insertEvent, insertTerm, upsertSpan, upsertCommand, addInsightHourTotals, addInsightHour, addInsightDay, addInsightDoorDay, addInsightDoorMonth,
}
