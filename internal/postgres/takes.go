package postgres

import (
	"context"
	"hash/fnv"
	"strings"
	"time"

	"github.com/gatehouse/gatehouse"
	"github.com/gatehouse/gatehouse/internal/sqlstore"
	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
)

// unlockBound is how long before now a command may have been issued and
// still run: it waits at most MaxCommandTTL for its first delivery, then
// runs at most MaxUnlockSeconds. It bounds the scan of a universe's
// commands for a server that joins.
const unlockBound = (gatehouse.MaxCommandTTL + gatehouse.MaxUnlockSeconds) * time.Second

// dueCommands selects the ids of the commands due to a server (see
// Store.TakeCommands), oldest first, among its unanswered rows, the
// executed rows of cancelled commands it has not been told of (marked by
// CancelCommand), and the universe's unlocks it joined: {job} and {cursor} are the server's
// job id and cursor (see dueFor); $1 org, $3 universe, $5 now, $6 the
// oldest issue of a running unlock, $7 limit. OFFSET 0 keeps the NOT
// EXISTS a lookup of the primary key per command: as an anti-join, the
// prepared statement's generic plan matched the command only after
// reading every delivery row of the organization with the job id (41 ms
// instead of 2.7 for 200 servers).
const dueCommands = `SELECT id FROM (
		SELECT c.id, c.issued_at FROM command_deliveries d
		JOIN commands c ON c.org = d.org AND c.id = d.command_id AND c.issued
		WHERE d.org = $1 AND d.job_id = {job} AND d.result IS NULL AND (
			(c.status IN ('PENDING', 'DELIVERED') AND c.expires_at > $5 AND (d.delivered_at IS NULL OR d.gen > {cursor}))
			OR (c.status = 'CANCELLED' AND d.delivered_at IS NOT NULL AND (d.sent_status IS DISTINCT FROM 'CANCELLED' OR d.gen > {cursor})))
		UNION ALL
		SELECT c.id, c.issued_at FROM command_deliveries d
		JOIN commands c ON c.org = d.org AND c.id = d.command_id AND c.issued
		WHERE d.org = $1 AND d.job_id = {job} AND d.relock AND d.result = 'EXECUTED' AND c.status = 'CANCELLED'
			AND $5 < c.started_at + c.duration_s * interval '1 second' AND (d.sent_status IS DISTINCT FROM 'CANCELLED' OR d.gen > {cursor})
		UNION ALL
		SELECT c.id, c.issued_at FROM commands c
		WHERE c.org = $1 AND c.issued AND c.scope = 'UNIVERSE' AND c.universe_id = $3 AND c.issued_at > $6
			AND c.status NOT IN ('CANCELLED', 'EXPIRED')
			AND CASE WHEN c.started_at IS NULL THEN c.expires_at > $5
				ELSE $5 < c.started_at + c.duration_s * interval '1 second' END
			AND NOT EXISTS (SELECT 1 FROM command_deliveries d WHERE d.org = c.org AND d.command_id = c.id AND d.job_id = {job} OFFSET 0)
	) due ORDER BY issued_at, id LIMIT $7`

// dueFor is dueCommands for the server whose job id and cursor are the
// SQL expressions job and cursor: the columns of the batch's servers,
// one lateral query each.
func dueFor(job, cursor string) string {
	return strings.NewReplacer("{job}", job, "{cursor}", cursor).Replace(dueCommands)
}

// batchServers is the batch's servers, with their position: $2 job ids,
// $4 cursors.
const batchServers = `unnest($2::text[], $4::bigint[]) WITH ORDINALITY AS j(job, cursor, i)`

// TakeCommands returns the commands due to the organization's server and
// marks them delivered under its next generation, in one transaction: a
// batch of one.
func (db *DB) TakeCommands(ctx context.Context, orgID uuid.UUID, jobID, universeID string, cursor int64, now time.Time) (_ []gatehouse.Command, _ int64, err error) {
	defer sqlstore.Label(&err, "Store.TakeCommands", orgID)
	taken, err := db.takeCommandsBatch(ctx, orgID, universeID, []gatehouse.TakeRequest{{JobID: jobID, Cursor: cursor}}, now)
	if err != nil {
		return nil, 0, err
	}
	return taken[0].Commands, taken[0].Cursor, nil
}

// TakeCommandsBatch takes for many servers of a universe in a few
// set-based statements (see Store.TakeCommandsBatch). A job id that comes
// twice waits for a later round: one round takes for each server once.
// SQLite runs one TakeCommands per server instead (sqlite/takes.go): its
// one writer gains nothing from a bigger transaction, while here a
// transaction per server costs the database far more than a few
// statements for all.
func (db *DB) TakeCommandsBatch(ctx context.Context, orgID uuid.UUID, universeID string, reqs []gatehouse.TakeRequest, now time.Time) (_ []gatehouse.Taken, err error) {
	defer sqlstore.Label(&err, "Store.TakeCommandsBatch", orgID)
	return db.takeCommandsBatch(ctx, orgID, universeID, reqs, now)
}

// takeCommandsBatch is [DB.TakeCommandsBatch] without its label, for
// [DB.TakeCommands], which labels the batch of one.
func (db *DB) takeCommandsBatch(ctx context.Context, orgID uuid.UUID, universeID string, reqs []gatehouse.TakeRequest, now time.Time) ([]gatehouse.Taken, error) {
	org, err := db.orgSeq(ctx, db.pool, orgID)
	if err != nil {
		return nil, err
	}
	r := takeRound{db: db, org: org, orgID: orgID, universeID: universeID, now: gatehouse.Truncate(now),
		reqs: reqs, taken: make([]gatehouse.Taken, len(reqs))}
	for i := range r.taken {
		r.taken[i].Commands = []gatehouse.Command{}
	}
	left := make([]int, len(reqs))
	for i := range left {
		left[i] = i
	}
	for len(left) > 0 {
		var round, later []int
		seen := make(map[string]bool, len(left))
		for _, i := range left {
			if seen[reqs[i].JobID] {
				later = append(later, i)
				continue
			}
			seen[reqs[i].JobID] = true
			round = append(round, i)
		}
		if err := r.take(ctx, round); err != nil {
			return nil, err
		}
		left = later
	}
	return r.taken, nil
}

// takeRound is one TakeCommandsBatch: its requests and their answers.
type takeRound struct {
	db         *DB
	org        int64
	orgID      uuid.UUID
	universeID string
	now        time.Time
	reqs       []gatehouse.TakeRequest
	taken      []gatehouse.Taken
}

// args are the parameters of dueFor for the requests at positions of
// reqs (their job ids distinct).
func (r *takeRound) args(positions []int) []any {
	jobs, cursors := make([]string, len(positions)), make([]int64, len(positions))
	for k, i := range positions {
		jobs[k], cursors[k] = r.reqs[i].JobID, r.reqs[i].Cursor
	}
	return []any{r.org, jobs, r.universeID, cursors, r.now, r.now.Add(-unlockBound), gatehouse.MaxSyncCommands}
}

// take answers the requests at positions (distinct job ids). Most
// servers find nothing due: that is learnt in one read, with no
// transaction and no lock; only the others go on to the transaction. A
// server that never synced (no Heartbeat) has nothing due.
func (r *takeRound) take(ctx context.Context, positions []int) error {
	rows, _ := r.db.pool.Query(ctx, `SELECT j.i, g.gen, EXISTS (`+dueFor("j.job", "j.cursor")+`)
		FROM `+batchServers+` JOIN game_servers g ON g.org = $1 AND g.job_id = j.job`, r.args(positions)...)
	var (
		due    []int
		i, gen int64
		some   bool
	)
	_, err := pgx.ForEachRow(rows, []any{&i, &gen, &some}, func() error {
		p := positions[i-1]
		r.taken[p].Cursor = gen
		if some {
			due = append(due, p)
		}
		return nil
	})
	if err != nil || len(due) == 0 {
		return wrap(err)
	}
	return r.db.withTx(ctx, func(tx pgx.Tx) error { return r.deliver(ctx, tx, due) })
}

// deliver takes, in tx, for the requests at positions (distinct job
// ids) that the first read found something due to.
func (r *takeRound) deliver(ctx context.Context, tx pgx.Tx, positions []int) error {
	args := r.args(positions)
	jobs := args[1].([]string)
	at := make(map[string]int, len(positions))
	for k, p := range positions {
		at[jobs[k]] = p
		r.taken[p] = gatehouse.Taken{Commands: []gatehouse.Command{}}
	}
	// The servers' rows first, in job id order: two syncs of one server
	// take one after the other, so one command is not given under two
	// generations.
	rows, _ := tx.Query(ctx, "SELECT job_id, gen FROM game_servers WHERE org = $1 AND job_id = ANY($2) ORDER BY job_id FOR UPDATE", r.org, jobs)
	var (
		job string
		gen int64
		id  uuid.UUID
	)
	if _, err := pgx.ForEachRow(rows, []any{&job, &gen}, func() error {
		r.taken[at[job]].Cursor = gen
		return nil
	}); err != nil {
		return err
	}
	// What is due now, under the locks: another sync may have taken it.
	rows, _ = tx.Query(ctx, `SELECT j.job, d.id FROM `+batchServers+`
		JOIN game_servers g ON g.org = $1 AND g.job_id = j.job
		CROSS JOIN LATERAL (`+dueFor("j.job", "j.cursor")+`) d`, args...)
	dueTo := map[string]map[uuid.UUID]bool{}
	var ids []uuid.UUID
	seen := map[uuid.UUID]bool{}
	if _, err := pgx.ForEachRow(rows, []any{&job, &id}, func() error {
		if dueTo[job] == nil {
			dueTo[job] = map[uuid.UUID]bool{}
		}
		dueTo[job][id] = true
		if !seen[id] {
			seen[id] = true
			ids = append(ids, id)
		}
		return nil
	}); err != nil || len(ids) == 0 {
		return err
	}
	var gotJobs []string
	var cursors []int64
	for job := range dueTo {
		gotJobs = append(gotJobs, job)
		cursors = append(cursors, r.reqs[at[job]].Cursor)
	}
	// A server forgotten by the sweep comes back with a cursor above its
	// new generation: the next one is above both.
	rows, _ = tx.Query(ctx, `UPDATE game_servers g SET gen = GREATEST(g.gen, j.cursor) + 1
		FROM unnest($2::text[], $3::bigint[]) AS j(job, cursor)
		WHERE g.org = $1 AND g.job_id = j.job RETURNING g.job_id, g.gen`, r.org, gotJobs, cursors)
	gens := map[string]int64{}
	if _, err := pgx.ForEachRow(rows, []any{&job, &gen}, func() error {
		gens[job] = gen
		r.taken[at[job]].Cursor = gen
		return nil
	}); err != nil {
		return err
	}
	var (
		pJobs []string
		pIDs  []uuid.UUID
		pGens []int64
	)
	for job, due := range dueTo {
		for id := range due {
			pJobs, pIDs, pGens = append(pJobs, job), append(pIDs, id), append(pGens, gens[job])
		}
	}
	// The batch counts in one shard, its first server's: batches that
	// run at once mostly add to different rows, instead of each to all of
	// them and in turn.
	shard := shardOf(jobs[0])
	// Sent in one round trip: what follows startCommands holds locks
	// until the commit. A command another instance's sweep expired since
	// it was found due is neither sent nor read.
	batch := &pgx.Batch{}
	batch.Queue(startCommands, r.org, ids, r.now)
	batch.Queue(deliverCommands, r.org, pJobs, pIDs, pGens, shard, r.now)
	batch.Queue(commandSelect+` AND c.id = ANY($2) AND c.status <> 'EXPIRED' ORDER BY c.issued_at, c.id`, r.org, ids)
	cmds, err := takeBatch(tx.SendBatch(ctx, batch), r.orgID)
	if err != nil {
		return err
	}
	for i := range cmds {
		left := cmds[i].Remaining(r.now)
		cmds[i].RemainingSeconds = &left
	}
	for job, due := range dueTo {
		p := at[job]
		for _, c := range cmds {
			if due[c.ID] {
				r.taken[p].Commands = append(r.taken[p].Commands, c)
			}
		}
	}
	return nil
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

// deliverCommands marks commands delivered to servers, one (job, command)
// pair per row of its arrays: each delivery row keeps its first
// deliveredAt and takes its server's generation and the status sent; a
// server that joined gets a row now. A row's first delivery (the rows as
// they were before: prev) counts once in command_delivery_counts, as
// delivered for a target and joined otherwise, all in the batch's shard.
// Rows are written in (command, job) order and shards taken in command
// order. $1 org, $2 jobs, $3 command ids, $4 gens, $5 shard, $6 now.
const deliverCommands = `WITH p AS (
		SELECT * FROM unnest($2::text[], $3::uuid[], $4::bigint[]) AS p(job, id, gen)),
	prev AS (
		SELECT d.command_id, d.job_id, d.target, d.delivered_at FROM command_deliveries d
		JOIN p ON d.org = $1 AND d.command_id = p.id AND d.job_id = p.job),
	sent AS (
		INSERT INTO command_deliveries (org, command_id, job_id, target, delivered_at, gen, sent_status)
			SELECT c.org, c.id, p.job, false, $6, p.gen, c.status FROM p
			JOIN commands c ON c.org = $1 AND c.id = p.id
			WHERE c.status <> 'EXPIRED' ORDER BY c.id, p.job
		ON CONFLICT (org, command_id, job_id) DO UPDATE SET delivered_at = coalesce(command_deliveries.delivered_at, excluded.delivered_at),
			gen = excluded.gen, sent_status = excluded.sent_status
		RETURNING command_id, job_id)
	INSERT INTO command_delivery_counts AS n (org, command_id, shard, delivered, joined)
		SELECT $1, sent.command_id, $5::smallint,
			count(*) FILTER (WHERE pr.target), count(*) FILTER (WHERE NOT coalesce(pr.target, false))
		FROM sent JOIN p ON p.id = sent.command_id AND p.job = sent.job_id
		LEFT JOIN prev pr ON pr.command_id = sent.command_id AND pr.job_id = sent.job_id
		WHERE pr.delivered_at IS NULL
		GROUP BY sent.command_id ORDER BY sent.command_id
	ON CONFLICT (org, command_id, shard) DO UPDATE SET delivered = n.delivered + excluded.delivered, joined = n.joined + excluded.joined`

// deliveryShards is how many rows of command_delivery_counts a command's
// first deliveries and answers spread over: a batch of takes adds to its
// first server's, an acknowledgement to its server's.
const deliveryShards = 16

// shardOf is the server's shard of command_delivery_counts.
func shardOf(jobID string) int16 {
	h := fnv.New32a()
	h.Write([]byte(jobID))
	return int16(h.Sum32() % deliveryShards)
}

// takeBatch reads the results of a take's batch (startCommands, the
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
