package shards

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/gatehouse/gatehouse"
	"github.com/gatehouse/gatehouse/internal/postgres"
	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// Moving an organization to another shard (gatehouse shard move,
// docs/decisions.md "Moving an organization"):
//
//  1. Bulk: the events and recent ids committed so far are copied into a
//     transaction on the target, while the organization writes on.
//  2. Freeze: the directory marks the organization moving, so every
//     router holds its calls; once no instance can still route it to the
//     source (directoryTrust) and every transaction the source was
//     running has ended, one source transaction deletes the
//     organization's rows, streaming each table to the target as it goes,
//     and the events stored since the bulk copy follow.
//  3. The target commits, with an offset on its transaction ids past
//     every position the source handed out, then the directory names the
//     target, then the source commits: the organization is served from
//     the target, and a consumer's cursor reads on.
//  4. The source's copies of the events are deleted in batches.
//
// A failure before 3 rolls both transactions back and unmarks the
// organization: nothing moved, nothing lost.

// MoveReport is what a move did.
type MoveReport struct {
	Organization uuid.UUID `json:"organization"`
	From         uuid.UUID `json:"from"`
	To           uuid.UUID `json:"to"`
	Events       int64     `json:"events"` // the events the target holds
	// BulkEvents are those copied while the organization wrote on; the
	// rest were copied while its calls were held.
	BulkEvents int64 `json:"bulk_events"`
	Rows       int64 `json:"rows"` // the rows of every other table
	// Bulk is how long the copy took while the organization wrote on;
	// Freeze how long its calls were held.
	Bulk   time.Duration `json:"bulk_ns"`
	Freeze time.Duration `json:"freeze_ns"`
	// Shift is the organization's offset on the target's transaction ids
	// (organizations.xid_shift).
	Shift int64 `json:"xid_shift"`
}

// Timings of a move (variables for the tests).
var (
	// fenceMargin is added to directoryTrust before the freeze waits for
	// the source's transactions: a call whose connection was taken just
	// before every router heard of the move has this long to begin.
	fenceMargin = 500 * time.Millisecond
	// fenceWait bounds the wait for the source's older transactions (the
	// statement timeout is 15 s); the move gives up after it.
	fenceWait = 20 * time.Second
)

// Move moves the organization org, with every record of it, to the shard
// whose id is to, while it keeps being served (above); say is told of
// each step. ErrConflict when it is being moved already; gatehouse.Invalid
// when it lives on that shard.
func (r *Router) Move(ctx context.Context, org, to uuid.UUID, say func(format string, args ...any)) (MoveReport, error) {
	rep := MoveReport{Organization: org, To: to}
	placed, err := r.main.ShardOf(ctx, org)
	if err != nil {
		return rep, err
	}
	if placed.Moving {
		return rep, fmt.Errorf("%w: organization %s is being moved already", gatehouse.ErrConflict, org)
	}
	rep.From = r.placedOn(placed)
	if rep.From == to {
		return rep, gatehouse.Invalid("shard", "is where the organization lives already")
	}
	src, err := r.answeringShard(rep.From)
	if err != nil {
		return rep, err
	}
	dst, err := r.answeringShard(to)
	if err != nil {
		return rep, err
	}
	m, err := openMover(ctx, org, src, dst, say)
	if err != nil {
		return rep, err
	}
	defer m.close()
	began := time.Now()
	if err := m.bulk(ctx); err != nil {
		return rep, err
	}
	rep.Bulk = time.Since(began)
	say("copied %d events while the organization wrote on, in %s", m.bulkEvents, rep.Bulk.Round(time.Millisecond))

	frozen := time.Now()
	if err := r.main.MarkMoving(ctx, org, rep.From); err != nil {
		return rep, err
	}
	if err := r.switchOver(ctx, m, rep.From, to); err != nil {
		return rep, err
	}
	rep.Freeze = time.Since(frozen)
	rep.Events, rep.BulkEvents, rep.Rows, rep.Shift = m.events, m.bulkEvents, m.rows, m.shift
	say("moved; its calls were held %s", rep.Freeze.Round(time.Millisecond))
	if err := m.dropSourceEvents(ctx); err != nil {
		say("the organization moved, but deleting its events from the source stopped: %v; "+
			"delete the rest with DELETE FROM events WHERE org = %d there (no one reads them)", err, m.srcOrg)
	}
	return rep, nil
}

// switchOver runs the freeze of m, a move of an organization marked
// moving from the shard from, and ends it: on the shard to, or where it
// was. Once the freeze began, the steps run to their end even when ctx
// ends (an interrupted command would leave the organization's calls held),
// and a step whose outcome is unknown is read back before the next.
func (r *Router) switchOver(ctx context.Context, m *mover, from, to uuid.UUID) error {
	ctx = context.WithoutCancel(ctx)
	org := m.org
	giveUp := func(err error) error {
		m.src.rollback()
		m.dst.rollback()
		return errors.Join(err, r.main.EndMove(ctx, org, from, from))
	}
	if err := m.freeze(ctx); err != nil {
		return giveUp(err)
	}
	if err := m.dst.commit(ctx); err != nil {
		var there bool
		if checkErr := m.aux.QueryRow(ctx, "SELECT EXISTS (SELECT 1 FROM organizations WHERE id = $1)", org).Scan(&there); checkErr != nil || !there {
			return giveUp(errors.Join(err, checkErr))
		}
	}
	if err := r.main.EndMove(ctx, org, from, to); err != nil {
		if now, readErr := r.main.ShardOf(ctx, org); readErr != nil || now.Moving || r.placedOn(now) != to {
			// The directory does not name the target: the organization
			// stays where it was, and the target's copy goes.
			m.src.rollback()
			return errors.Join(fmt.Errorf("shard move: the directory could not name the target, so the organization stays where it was: %w", err),
				r.main.EndMove(ctx, org, from, from), m.dropTarget(ctx))
		}
	}
	if err := m.src.commit(ctx); err != nil {
		return fmt.Errorf("shard move: the organization moved to shard %s and is served there, but its rows on the source (shard %s) "+
			"could not be deleted and are left there: delete them before it is moved back, and before the source's background work "+
			"(webhooks, alerts) acts on them (docs/deploy.md, \"A move that stopped half-way\"): %w", to, from, err)
	}
	return nil
}

// placedOn is the shard a directory entry names.
func (r *Router) placedOn(e postgres.DirectoryEntry) uuid.UUID {
	if e.Placed {
		return e.Shard
	}
	return r.mainIDLocked()
}

// mainIDLocked is the --db database's shard id.
func (r *Router) mainIDLocked() uuid.UUID {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.mainID()
}

// answeringShard returns the shard whose id is id, which must answer.
func (r *Router) answeringShard(id uuid.UUID) (Shard, error) {
	shards, _ := r.answering()
	for _, s := range shards {
		if s.ID == id {
			return s, nil
		}
	}
	return Shard{}, fmt.Errorf("%w: shard %s is not among --db and --shards, or does not answer (gatehouse shard list)", gatehouse.ErrUnavailable, id)
}

// side is one database of a move: a connection of its own, in a
// transaction while one is open.
type side struct {
	*pgx.Conn
	tx pgx.Tx
}

func (s *side) begin(ctx context.Context, opts pgx.TxOptions) error {
	tx, err := s.BeginTx(ctx, opts)
	s.tx = tx
	return err
}

func (s *side) commit(ctx context.Context) error {
	tx := s.tx
	s.tx = nil
	return tx.Commit(ctx)
}

func (s *side) rollback() {
	if s.tx != nil {
		s.tx.Rollback(context.Background())
		s.tx = nil
	}
}

// mover is one move under way.
type mover struct {
	org            uuid.UUID
	src, dst, aux  *side // aux: the target, outside the move's transaction
	plan           *movePlan
	srcOrg, dstOrg int64 // the organization's key on each
	bound          string
	events, rows   int64
	bulkEvents     int64
	shift          int64
	say            func(string, ...any)
}

// openMover connects to both shards and checks that the move can run.
func openMover(ctx context.Context, org uuid.UUID, src, dst Shard, say func(string, ...any)) (_ *mover, err error) {
	m := &mover{org: org, say: say}
	defer func() {
		if err != nil {
			m.close()
		}
	}()
	for _, c := range []struct {
		s   **side
		dsn string
	}{{&m.src, src.dsn}, {&m.dst, dst.dsn}, {&m.aux, dst.dsn}} {
		pool, err := pgxpool.ParseConfig(c.dsn) // which knows the pool's settings a DSN may carry
		if err != nil {
			return nil, fmt.Errorf("shard move: %w", err)
		}
		cfg := pool.ConnConfig
		// As the store's connections read times (postgres.Open), but with
		// no statement timeout: the bulk copy of a large organization is
		// one statement of minutes. A lock the move waits for while calls
		// are held (a table's, to reserve keys) waits 5 s at most.
		cfg.RuntimeParams["timezone"] = "UTC"
		cfg.RuntimeParams["statement_timeout"] = "0"
		cfg.RuntimeParams["lock_timeout"] = "5s"
		conn, err := pgx.ConnectConfig(ctx, cfg)
		if err != nil {
			return nil, fmt.Errorf("shard move: %w", err)
		}
		*c.s = &side{Conn: conn}
	}
	for _, s := range []*side{m.src, m.dst} {
		// The copy keeps every value as the source stored it: the target's
		// triggers would number and count the rows again.
		if _, err := s.Exec(ctx, "SET session_replication_role = replica"); err != nil {
			return nil, fmt.Errorf("shard move needs a role that may set session_replication_role "+
				"(a superuser, or GRANT SET ON PARAMETER session_replication_role TO the role): %w", err)
		}
	}
	var srcVersion, dstVersion int
	if err := m.src.QueryRow(ctx, "SELECT max(version) FROM schema_migrations").Scan(&srcVersion); err != nil {
		return nil, err
	}
	if err := m.dst.QueryRow(ctx, "SELECT max(version) FROM schema_migrations").Scan(&dstVersion); err != nil {
		return nil, err
	}
	if srcVersion != dstVersion {
		return nil, fmt.Errorf("shard move: the shards' schemas differ (migration %d and %d): migrate both first", srcVersion, dstVersion)
	}
	err = m.src.QueryRow(ctx, "SELECT seq FROM organizations WHERE id = $1", org).Scan(&m.srcOrg)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, fmt.Errorf("organization %s: %w", org, gatehouse.ErrNotFound)
	}
	if err != nil {
		return nil, err
	}
	var there bool
	if err := m.dst.QueryRow(ctx, "SELECT EXISTS (SELECT 1 FROM organizations WHERE id = $1)", org).Scan(&there); err != nil {
		return nil, err
	}
	if there {
		return nil, fmt.Errorf("%w: shard %s holds rows of organization %s already, left by a move that did not end: delete them first", gatehouse.ErrConflict, dst.ID, org)
	}
	m.plan, err = readMovePlan(ctx, m.dst.Conn)
	return m, err
}

func (m *mover) close() {
	for _, s := range []*side{m.src, m.dst, m.aux} {
		if s != nil {
			s.rollback()
			s.Close(context.Background())
		}
	}
}
