package shards

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/gatehouse/gatehouse/internal/clock"
	"github.com/gatehouse/gatehouse/internal/postgres"
	"github.com/jackc/pgx/v5"
)

// The steps of a move (move.go). Rows travel in PostgreSQL's binary COPY
// format, from a query on the source straight into a table on the
// target, never held whole in memory.

// stream copies the rows query returns on the source into table (with
// its column list) on the target, and returns how many.
func (m *mover) stream(ctx context.Context, query, into string) (int64, error) {
	pr, pw := io.Pipe()
	sent := make(chan error, 1)
	go func() {
		_, err := m.src.PgConn().CopyTo(ctx, pw, "COPY ("+query+") TO STDOUT (FORMAT binary)")
		pw.CloseWithError(err)
		sent <- err
	}()
	tag, err := m.dst.PgConn().CopyFrom(ctx, pr, "COPY "+into+" FROM STDIN (FORMAT binary)")
	pr.CloseWithError(err) // unblocks the source's side when the target failed
	if srcErr := <-sent; srcErr != nil && err == nil {
		err = srcErr
	}
	if err != nil {
		return 0, fmt.Errorf("shard move: copying %s: %w", into, err)
	}
	return tag.RowsAffected(), nil
}

// stage copies the rows query returns on the source into a new table of
// the move's transaction on the target, shaped as t, and returns how many.
func (m *mover) stage(ctx context.Context, name string, t *moveTable, query string) (int64, error) {
	stage := pgx.Identifier{name}.Sanitize()
	if _, err := m.dst.Exec(ctx, "CREATE TEMPORARY TABLE "+stage+" (LIKE "+pgx.Identifier{t.name}.Sanitize()+") ON COMMIT DROP"); err != nil {
		return 0, err
	}
	return m.stream(ctx, query, stage+" ("+t.columns()+")")
}

// copyEvents copies the organization's rows of table (events, or their
// recent ids) on the source that cond keeps straight into the table on the
// target, with its key there in place of the source's.
func (m *mover) copyEvents(ctx context.Context, table, cond string) (int64, error) {
	t := m.plan.byName[table]
	sel := strings.Replace(t.columns(), `"org"`, fmt.Sprintf("%d::%s", m.dstOrg, t.orgType), 1)
	return m.stream(ctx, fmt.Sprintf("SELECT %s FROM %s WHERE org = %d%s", sel, table, m.srcOrg, cond), table+" ("+t.columns()+")")
}

// bulk makes the target's partitions, begins the target's transaction with
// the organization's row, and copies the events and recent ids the source
// had committed.
func (m *mover) bulk(ctx context.Context) error {
	var months []time.Time
	if err := m.src.QueryRow(ctx, `SELECT coalesce(array_agg(DISTINCT date_trunc('month', occurred_at, 'UTC')), '{}')
		FROM events WHERE org = $1`, m.srcOrg).Scan(&months); err != nil {
		return err
	}
	now := time.Now().UTC()
	for i := range 3 { // the months the tail may add to (AddEventPartitions makes them too)
		months = append(months, time.Date(now.Year(), now.Month()+time.Month(i), 1, 0, 0, 0, 0, time.UTC))
	}
	// The partitions' upkeep waits for the move on both primaries, until
	// its connections close (postgres.MoveLock): retention on the target
	// must not take the months the copy fills for empty before it commits,
	// and a rebuild of a month on the source would hold the freeze. One
	// running now fails the move here, before any call is held.
	for _, s := range []*side{m.src, m.aux} {
		if _, err := s.Exec(ctx, "SELECT pg_advisory_lock_shared($1)", postgres.MoveLock); err != nil {
			return fmt.Errorf("shard move: retention or a rebuild of months runs on a shard; try again in a minute: %w", err)
		}
	}
	// Made before the target's transaction, which would hold the events'
	// table against the lock the attach takes. A month rebuilt packed
	// before (CompactPartitions) takes the copy's rows out of order: it is
	// unmarked, to be rebuilt again.
	if _, err := m.aux.Exec(ctx, "SELECT events_add_months($1)", months); err != nil {
		return fmt.Errorf("shard move: the target's partitions: %w", err)
	}
	if _, err := m.aux.Exec(ctx, `DO $$ DECLARE t regclass; BEGIN
		FOR t IN SELECT c.oid::regclass FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
			WHERE i.inhparent = 'events'::regclass AND obj_description(c.oid, 'pg_class') IS NOT NULL
				AND c.relname = ANY (`+monthNames(months)+`) LOOP
			EXECUTE format('COMMENT ON TABLE %s IS NULL', t);
		END LOOP; END $$`); err != nil {
		return fmt.Errorf("shard move: the target's partitions: %w", err)
	}
	if err := m.dst.begin(ctx, pgx.TxOptions{}); err != nil {
		return err
	}
	org := m.plan.byName["organizations"]
	if _, err := m.stage(ctx, "move_org", org, fmt.Sprintf("SELECT %s FROM organizations WHERE seq = %d", org.columns(), m.srcOrg)); err != nil {
		return err
	}
	cols := withoutSeq(org)
	if err := m.dst.QueryRow(ctx, "INSERT INTO organizations ("+cols+") SELECT "+cols+" FROM move_org RETURNING seq").Scan(&m.dstOrg); err != nil {
		return err
	}
	if err := m.src.begin(ctx, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly}); err != nil {
		return err
	}
	defer m.src.rollback()
	// Below the snapshot's xmin every transaction has ended: the events
	// under it are all there is of them; the freeze copies the rest. The
	// organization's positions there are shifted (it was moved in before),
	// and so is the bound.
	if err := m.src.QueryRow(ctx, `SELECT (pg_snapshot_xmin(pg_current_snapshot())::text::bigint + xid_shift)::text
		FROM organizations WHERE seq = $1`, m.srcOrg).Scan(&m.bound); err != nil {
		return err
	}
	n, err := m.copyEvents(ctx, "events", fmt.Sprintf(" AND xid < '%s'::xid8", m.bound))
	if err != nil {
		return err
	}
	m.bulkEvents = n
	_, err = m.copyEvents(ctx, "recent_event_ids", "")
	return err
}

// monthNames is an SQL array of the names of the months' tables.
func monthNames(months []time.Time) string {
	names := make([]string, len(months))
	for i, m := range months {
		names[i] = "'" + m.UTC().Format("events_2006_01") + "'"
	}
	return "ARRAY[" + strings.Join(names, ", ") + "]::name[]"
}

// withoutSeq is the organizations' column list but its key, which the
// target gives.
func withoutSeq(org *moveTable) string {
	t := *org
	t.cols = slices.DeleteFunc(slices.Clone(t.cols), func(c string) bool { return c == "seq" })
	return t.columns()
}

// freeze waits until nothing can write the organization on the source,
// then moves the rest of it into the target's transaction, and leaves the
// source's transaction, which deleted it, open.
func (m *mover) freeze(ctx context.Context) error {
	if !clock.Sleep(ctx, directoryTrust+fenceMargin) {
		return ctx.Err()
	}
	began := time.Now()
	if err := m.waitForSource(ctx); err != nil {
		return err
	}
	m.say("every router holds the organization's calls; the source's older transactions ended in %s", time.Since(began).Round(time.Millisecond))
	began = time.Now()
	if err := m.src.begin(ctx, pgx.TxOptions{}); err != nil {
		return err
	}
	var shift int64
	var ceiling string
	if err := m.src.QueryRow(ctx, `SELECT xid_shift, coalesce(cursor_ceiling, (SELECT xid FROM feed_cursor_ceiling))::text
		FROM organizations WHERE seq = $1`, m.srcOrg).Scan(&shift, &ceiling); err != nil {
		return err
	}
	if err := m.moveTables(ctx); err != nil {
		return err
	}
	tail, err := m.copyEvents(ctx, "events", fmt.Sprintf(" AND xid >= '%s'::xid8", m.bound))
	if err != nil {
		return err
	}
	m.say("moved %d rows of the other tables and the %d events stored since, in %s", m.rows, tail, time.Since(began).Round(time.Millisecond))
	if err := m.recentIDs(ctx); err != nil {
		return err
	}
	if err := m.dropErased(ctx); err != nil {
		return err
	}
	// Every position the source gave the organization is below its next
	// transaction id (shifted as its positions are there), read once its
	// rows are deleted: a background transaction of the source (a sweep,
	// a rollup) that changed one of them committed before the delete
	// reached it, and one that comes later finds nothing to change.
	var head int64
	if err := m.src.QueryRow(ctx, "SELECT pg_snapshot_xmax(pg_current_snapshot())::text::bigint + $1", shift).Scan(&head); err != nil {
		return err
	}
	m.events = m.bulkEvents + tail
	var next int64
	if err := m.dst.QueryRow(ctx, "SELECT pg_snapshot_xmax(pg_current_snapshot())::text::bigint").Scan(&next); err != nil {
		return err
	}
	// The organization's next writes on the target, in transactions that
	// begin after this one commits, are at next + shift or later: past
	// every position a consumer holds.
	m.shift = max(0, head-next)
	_, err = m.dst.Exec(ctx, "UPDATE organizations SET xid_shift = $2, cursor_ceiling = $3::xid8 WHERE seq = $1", m.dstOrg, m.shift, ceiling)
	return err
}

// recentIDs copies the recent ids of the events the freeze copied (an
// ingest stores both in one transaction); the bulk copy may have taken
// some of them already, from a transaction that had committed by its
// snapshot.
func (m *mover) recentIDs(ctx context.Context) error {
	t := m.plan.byName["recent_event_ids"]
	if _, err := m.stage(ctx, "move_recent", t, fmt.Sprintf("SELECT %s FROM recent_event_ids WHERE org = %d AND id IN (SELECT id FROM events WHERE org = %d AND xid >= '%s'::xid8)",
		t.columns(), m.srcOrg, m.srcOrg, m.bound)); err != nil {
		return err
	}
	_, err := m.dst.Exec(ctx, "INSERT INTO recent_event_ids ("+t.columns()+") SELECT "+t.values(m.dstOrg, nil)+" FROM move_recent s ON CONFLICT DO NOTHING")
	return err
}

// waitForSource waits until every client transaction the source was
// running has ended: no router routes the organization there any more,
// so what runs now is all that could still write it.
func (m *mover) waitForSource(ctx context.Context) error {
	var since time.Time
	if err := m.src.QueryRow(ctx, "SELECT clock_timestamp()").Scan(&since); err != nil {
		return err
	}
	deadline := time.Now().Add(fenceWait)
	for {
		var running int
		if err := m.src.QueryRow(ctx, `SELECT count(*) FROM pg_stat_activity WHERE datname = current_database()
			AND pid <> pg_backend_pid() AND backend_type = 'client backend' AND xact_start < $1`, since).Scan(&running); err != nil {
			return err
		}
		if running == 0 {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("shard move: %d transactions of the source ran longer than %s; nothing moved, try again", running, fenceWait)
		}
		if !clock.Sleep(ctx, 10*time.Millisecond) {
			return ctx.Err()
		}
	}
}

// moveTables moves every table but the bulk ones: each is deleted from
// the source into a staging table of the target, then the renumbered keys
// get their offsets, then the staged rows are stored.
func (m *mover) moveTables(ctx context.Context) error {
	var staged []*moveTable
	for i := range m.plan.tables {
		t := &m.plan.tables[i]
		if slices.Contains(movedInBulk, t.name) {
			continue
		}
		n, err := m.stage(ctx, "move_"+t.name, t, fmt.Sprintf("DELETE FROM %s WHERE %s RETURNING %s", pgx.Identifier{t.name}.Sanitize(), t.of(m.srcOrg), t.columns()))
		if err != nil {
			return err
		}
		if t.name == "organizations" {
			// The row the bulk step stored, as it is now.
			cols := withoutSeq(t)
			if _, err := m.dst.Exec(ctx, "UPDATE organizations SET ("+cols+") = (SELECT "+cols+" FROM move_organizations) WHERE seq = $1", m.dstOrg); err != nil {
				return err
			}
			continue
		}
		m.rows += n
		staged = append(staged, t)
	}
	offsets := map[string]int64{}
	for _, t := range staged {
		if t.renumber == "" {
			continue
		}
		off, err := m.reserve(ctx, t)
		if err != nil {
			return err
		}
		offsets[t.name] = off
	}
	for _, t := range staged {
		over := ""
		if t.identity {
			over = " OVERRIDING SYSTEM VALUE"
		}
		if _, err := m.dst.Exec(ctx, fmt.Sprintf("INSERT INTO %s (%s)%s SELECT %s FROM %s s", pgx.Identifier{t.name}.Sanitize(), t.columns(),
			over, t.values(m.dstOrg, offsets), pgx.Identifier{"move_" + t.name}.Sanitize())); err != nil {
			return fmt.Errorf("shard move: storing %s: %w", t.name, err)
		}
	}
	return nil
}

// reserve sets the sequence of t's renumbered key past a block as wide as
// the staged keys span, and returns the offset that moves them into it.
// It runs outside the move's transaction (a sequence is never rolled
// back), holding the table against inserts only while it reads its
// largest key.
func (m *mover) reserve(ctx context.Context, t *moveTable) (int64, error) {
	var lo, hi *int64
	col := pgx.Identifier{t.renumber}.Sanitize()
	if err := m.dst.QueryRow(ctx, fmt.Sprintf("SELECT min(%s), max(%s) FROM %s", col, col, pgx.Identifier{"move_" + t.name}.Sanitize())).Scan(&lo, &hi); err != nil {
		return 0, err
	}
	if lo == nil {
		return 0, nil
	}
	var offset int64
	err := pgx.BeginFunc(ctx, m.aux.Conn, func(tx pgx.Tx) error {
		table := pgx.Identifier{t.name}.Sanitize()
		var sequence string
		if err := tx.QueryRow(ctx, "SELECT pg_get_serial_sequence($1, $2)", t.name, t.renumber).Scan(&sequence); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, "LOCK TABLE "+table+" IN SHARE ROW EXCLUSIVE MODE"); err != nil {
			return err
		}
		var top int64
		if err := tx.QueryRow(ctx, fmt.Sprintf("SELECT greatest((SELECT coalesce(max(%s), 0) FROM %s), (SELECT last_value FROM %s))",
			col, table, sequence)).Scan(&top); err != nil {
			return err
		}
		offset = top + 1 - *lo
		_, err := tx.Exec(ctx, "SELECT setval($1, $2)", sequence, *hi+offset)
		return err
	})
	return offset, err
}

// dropErased deletes from the target the events the bulk step copied
// that the source no longer holds: erased, or past retention, meanwhile.
// Counting first spares the comparison when none went, as is usual.
func (m *mover) dropErased(ctx context.Context) error {
	var left int64
	if err := m.src.QueryRow(ctx, "SELECT count(*) FROM events WHERE org = $1 AND xid < $2::text::xid8", m.srcOrg, m.bound).Scan(&left); err != nil {
		return err
	}
	if left == m.bulkEvents {
		return nil
	}
	if _, err := m.dst.Exec(ctx, "CREATE TEMPORARY TABLE move_kept (xid xid8, seq bigint) ON COMMIT DROP"); err != nil {
		return err
	}
	if _, err := m.stream(ctx, fmt.Sprintf("SELECT xid, seq FROM events WHERE org = %d AND xid < '%s'::xid8", m.srcOrg, m.bound), "move_kept (xid, seq)"); err != nil {
		return err
	}
	tag, err := m.dst.Exec(ctx, `DELETE FROM events e WHERE e.org = $1 AND e.xid < $2::text::xid8
		AND NOT EXISTS (SELECT 1 FROM move_kept k WHERE k.xid = e.xid AND k.seq = e.seq)`, m.dstOrg, m.bound)
	m.bulkEvents -= tag.RowsAffected()
	return err
}

// dropTarget deletes what a move committed on the target, when the
// directory could not be told.
func (m *mover) dropTarget(ctx context.Context) error {
	return deleteOrganization(ctx, m.dst.Conn, m.plan, m.dstOrg)
}

// dropSourceEvents deletes the source's copies of the bulk tables, which
// the freeze left (deleting a million events would have held calls for
// seconds), in batches: no router reads them any more.
func (m *mover) dropSourceEvents(ctx context.Context) error {
	return deleteOrganization(ctx, m.src.Conn, &movePlan{tables: []moveTable{{name: "events"}, {name: "recent_event_ids"}}}, m.srcOrg)
}

// deleteOrganization deletes the rows of the organization whose key is org
// from every table of plan, in its order (sessions before the users they
// are found by), in batches, on a connection of a move (which foreign
// keys do not hold up). A row's ctid is unique within its partition only:
// the organization's condition is repeated.
func deleteOrganization(ctx context.Context, conn *pgx.Conn, plan *movePlan, org int64) error {
	for _, t := range plan.tables {
		table := pgx.Identifier{t.name}.Sanitize()
		for {
			tag, err := conn.Exec(ctx, fmt.Sprintf("DELETE FROM %s WHERE %s AND ctid = ANY (ARRAY(SELECT ctid FROM %s WHERE %s LIMIT 10000))",
				table, t.of(org), table, t.of(org)))
			if err != nil {
				return fmt.Errorf("deleting %s: %w", t.name, err)
			}
			if tag.RowsAffected() == 0 {
				break
			}
		}
	}
	return nil
}
