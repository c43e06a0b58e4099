package postgres

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/gatehouse/gatehouse"
	"github.com/gatehouse/gatehouse/internal/sqlstore"
	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// IngestEvents stores a batch in one transaction, all or nothing: the rows
// are copied (COPY) into a temporary table, then inserted with ON CONFLICT
// DO NOTHING, which counts the duplicates.
//
// The batch's search terms this instance has not seen are stored first,
// in a short transaction of their own: a term is written before any event
// shows it, and two batches bringing the same new player wait for each
// other's few rows of terms, not for each other's whole batch (which kept
// concurrent imports to one writer's speed). A term whose events then fail
// stays, harmless: it leads a search to no event. SQLite writes terms,
// spans and events in the batch's one transaction (sqlite/ingest.go): its
// one writer runs batches in turn, so there is no wait to shorten.
func (db *DB) IngestEvents(ctx context.Context, orgID uuid.UUID, events []gatehouse.NewEvent) (_ gatehouse.IngestResult, err error) {
	defer sqlstore.Label(&err, "Store.IngestEvents", orgID)
	res := gatehouse.IngestResult{IDs: make([]uuid.UUID, len(events))}
	for i, ev := range events {
		res.IDs[i] = ev.ID
	}
	org, err := db.orgSeq(ctx, db.pool, orgID)
	if err != nil {
		return gatehouse.IngestResult{}, err
	}
	// One connection for the three steps: a batch of recorded decisions
	// waits for one connection of the pool, not three.
	conn, err := db.pool.Acquire(ctx)
	if err != nil {
		return gatehouse.IngestResult{}, wrap(err)
	}
	defer conn.Release()
	for attempt := 1; ; attempt++ {
		err = db.withMonths(ctx, conn, batchMonths(events), func() error { return db.ingestAt(ctx, conn, org, events, &res) })
		if !errors.Is(err, errPlacesChanged) {
			break
		}
		if attempt == placeAttempts { // the doors keep moving: a retry later stores it
			err = fmt.Errorf("%w: %w", gatehouse.ErrUnavailable, err)
			break
		}
	}
	if err != nil {
		return gatehouse.IngestResult{}, err
	}
	return res, nil
}

// ingestAt stores events, counted in res, at the places it reads first,
// or returns errPlacesChanged having stored nothing.
//
// The places are read before the write, so that the terms they bring are
// stored in a short transaction of their own (storeTerms), as are the
// spans of the batch's server jobs (storeSpans) and the keys of its
// places' and jobs' values the organization never had (batchKeys). The
// write then holds the rows of the batch's access points (FOR KEY SHARE)
// until it commits, and writes only if each is still where it was read:
// an access point cannot be deleted (DeleteAccessPoint holds its row FOR
// UPDATE first, then counts its events) or moved between the check and
// the commit, and one deleted or moved before the check sends the batch
// back to read its places again. A rename that lands between the read
// and the write shows in the events that follow it.
func (db *DB) ingestAt(ctx context.Context, conn *pgxpool.Conn, org int64, events []gatehouse.NewEvent, res *gatehouse.IngestResult) error {
	places, err := resolvePlaces(ctx, conn, org, events)
	if err != nil {
		return wrap(err)
	}
	if db.afterIngestResolve != nil {
		db.afterIngestResolve()
	}
	if err := db.storeTerms(ctx, conn, org, events, places); err != nil {
		return err
	}
	if err := db.storeSpans(ctx, conn, org, events); err != nil {
		return err
	}
	keys, err := db.batchKeys(ctx, conn, org, places, events)
	if err != nil {
		return err
	}
	held := heldDoors(places)
	// receivedAt is read in each attempt: an attempt aborted as a deadlock's
	// victim waited a second, and the feed's completeThrough may have
	// passed the instant read before it.
	if len(events) <= maxArrayInsert && !sqlstore.HasCommands(events) && db.beforeIngestCommit == nil {
		// One statement is a transaction of its own: a few recorded
		// decisions are stored in one round trip, without BEGIN and COMMIT.
		return retrying(ctx, func() error {
			inserted, err := insertEvents(ctx, conn, org, events, keys, held, gatehouse.Truncate(db.Now()))
			res.Accepted, res.Duplicates = len(inserted), len(events)-len(inserted)
			return err
		})
	}
	return withTxOn(ctx, conn, func(tx pgx.Tx) error {
		if err := holdDoors(ctx, tx, org, held); err != nil {
			return err
		}
		inserted, err := copyEvents(ctx, tx, org, events, keys, gatehouse.Truncate(db.Now()))
		if err != nil {
			return err
		}
		res.Accepted, res.Duplicates = len(inserted), len(events)-len(inserted)
		if err := upsertCommands(ctx, tx, org, events, inserted); err != nil {
			return err
		}
		if db.beforeIngestCommit != nil {
			db.beforeIngestCommit()
		}
		return nil
	})
}

// storeTerms stores, in a statement of its own, the terms of events
// stored at places that this instance does not know to be stored.
func (db *DB) storeTerms(ctx context.Context, conn querier, org int64, events []gatehouse.NewEvent, places map[uuid.UUID]sqlstore.Place) error {
	var terms []sqlstore.Term
	for _, ev := range events {
		terms = sqlstore.AppendTerms(terms, ev, places[ev.AccessPointID])
	}
	if len(db.terms.Missing(org, terms)) == 0 {
		return nil
	}
	var stored []sqlstore.Term
	err := retrying(ctx, func() (err error) { // one statement, one transaction
		stored, err = db.insertTerms(ctx, conn, org, terms)
		return err
	})
	if err == nil {
		db.terms.Add(org, stored)
	}
	return err
}

// storeSpans widens, in a statement of its own, the stored spans of the
// batch's server jobs that this instance does not know to hold the
// batch's events: like a term, a span holds an event before the event is
// stored (a batch that then fails leaves it wider, harmless), and two
// batches of one job wait for each other's one row, not their batches.
// A search reads a job's events through their index (migration 0034):
// the spans tell retention which jobs' terms no event needs any more
// (pruneSpans).
func (db *DB) storeSpans(ctx context.Context, conn querier, org int64, events []gatehouse.NewEvent) error {
	wider := db.spans.Wider(org, sqlstore.JobSpans(events))
	if len(wider) == 0 {
		return nil
	}
	jobs, from, to := make([]string, len(wider)), make([]time.Time, len(wider)), make([]time.Time, len(wider))
	for i, s := range wider {
		jobs[i], from[i], to[i] = s.Job, s.From, s.To
	}
	// In job order (JobSpans), the same in every transaction: two
	// widening the same spans never deadlock.
	err := retrying(ctx, func() error {
		_, err := conn.Exec(ctx, `INSERT INTO job_spans (org, job, from_at, to_at)
			SELECT $1, job, from_at, to_at FROM unnest($2::text[], $3::timestamptz[], $4::timestamptz[]) WITH ORDINALITY AS s (job, from_at, to_at, n)
			ORDER BY n
			ON CONFLICT (org, job) DO UPDATE SET from_at = least(job_spans.from_at, excluded.from_at), to_at = greatest(job_spans.to_at, excluded.to_at)`,
			org, jobs, from, to)
		return err
	})
	if err == nil {
		db.spans.Add(org, wider)
	}
	return err
}

// insertTerms stores the terms this instance does not know to be stored
// yet, in one statement, and returns them for the cache once the
// transaction commits: a term is stored no later than the first event
// that shows it, so no event is ever stored without its terms.
func (db *DB) insertTerms(ctx context.Context, tx querier, org int64, terms []sqlstore.Term) ([]sqlstore.Term, error) {
	missing := db.terms.Missing(org, terms)
	if len(missing) == 0 {
		return nil, nil
	}
	fields, refs, values, folded := make([]int16, len(missing)), make([]uuid.UUID, len(missing)), make([]string, len(missing)), make([]string, len(missing))
	for i, t := range missing {
		fields[i], refs[i], values[i], folded[i] = int16(t.Field), t.Ref, t.Value, t.Folded()
	}
	// In the cache's order (WITH ORDINALITY), the same in every
	// transaction: two inserting the same new terms never deadlock.
	_, err := tx.Exec(ctx, `INSERT INTO search_terms (org, field, ref, value, folded)
		SELECT $1, field, ref, value, folded
		FROM unnest($2::smallint[], $3::uuid[], $4::text[], $5::text[]) WITH ORDINALITY AS t (field, ref, value, folded, n)
		ORDER BY n
		ON CONFLICT DO NOTHING`, org, fields, refs, values, folded)
	return missing, err
}

// resolvePlaces looks up the batch's access points and requesters in the
// organization, and reports every one that is not the organization's.
func resolvePlaces(ctx context.Context, tx querier, org int64, events []gatehouse.NewEvent) (map[uuid.UUID]sqlstore.Place, error) {
	apIDs, userIDs := sqlstore.References(events)
	places := make(map[uuid.UUID]sqlstore.Place, len(apIDs))
	rows, _ := tx.Query(ctx, `SELECT a.id, l.id, l.name, a.name FROM access_points a
		JOIN locations l ON l.id = a.location_id WHERE a.id = ANY($1) AND a.org = $2`, apIDs, org)
	var (
		id uuid.UUID
		p  sqlstore.Place
	)
	if _, err := pgx.ForEachRow(rows, []any{&id, &p.LocationID, &p.LocationName, &p.AccessPointName}, func() error {
		places[id] = p
		return nil
	}); err != nil {
		return nil, err
	}
	users := make(map[uuid.UUID]bool, len(userIDs))
	if len(userIDs) > 0 {
		rows, _ := tx.Query(ctx, "SELECT id FROM users WHERE id = ANY($1) AND org = $2", userIDs, org)
		if _, err := pgx.ForEachRow(rows, []any{&id}, func() error { users[id] = true; return nil }); err != nil {
			return nil, err
		}
	}
	return places, sqlstore.CheckReferences(events, places, users)
}

var copyColumns = []string{"pos", "id", "type", "occurred_at", "reason", "platform_user_id", "server_job_id",
	"scope", "access_point", "location", "names", "requested_by", "command_id", "platform_user_name"}

// copyEvents stores the events not yet stored (storeEventsCTEs) and
// returns the positions of those it stored.
func copyEvents(ctx context.Context, tx pgx.Tx, org int64, events []gatehouse.NewEvent, keys batchKeys, received time.Time) (map[int]bool, error) {
	if len(events) <= maxArrayInsert {
		return insertEvents(ctx, tx, org, events, keys, doors{}, received)
	}
	if _, err := tx.Exec(ctx, `CREATE TEMPORARY TABLE events_in (
		pos int, id uuid, type text, occurred_at timestamptz, reason text, platform_user_id text,
		server_job_id int, scope text, access_point int, location int, names int,
		requested_by uuid, command_id uuid, platform_user_name text) ON COMMIT DROP`); err != nil {
		return nil, err
	}
	_, err := tx.CopyFrom(ctx, pgx.Identifier{"events_in"}, copyColumns, pgx.CopyFromSlice(len(events), func(i int) ([]any, error) {
		ev, k := events[i], keys.places[events[i].AccessPointID]
		var command *uuid.UUID
		if ev.Command != nil {
			command = &ev.Command.ID
		}
		return []any{i, ev.ID, string(ev.Type), ev.OccurredAt, ev.Reason, ev.PlatformUserID, keys.job(ev.ServerJobID),
			(*string)(ev.Scope), k.accessPoint, k.location, k.names, ev.RequestedBy, command, ev.PlatformUserName}, nil
	}))
	if err != nil {
		return nil, err
	}
	rows, _ := tx.Query(ctx, "WITH "+storeEventsCTEs("events_in", "")+" SELECT id FROM stored", org, received)
	return storedPositions(rows, events)
}

// maxArrayInsert is the largest batch inserted from arrays in one
// statement: a small batch (a few recorded decisions, a game server's
// flush) does not pay for a temporary table, which costs more than its
// rows; a large one is copied.
const maxArrayInsert = 200

// insertEvents is copyEvents for a small batch: one statement from
// arrays.
//
// doors, when set, are held as holdDoors holds them, in the statement
// itself (a statement is its own transaction): when one is gone or
// elsewhere, nothing is inserted and errPlacesChanged returned.
func insertEvents(ctx context.Context, tx querier, org int64, events []gatehouse.NewEvent, keys batchKeys,
	d doors, received time.Time) (map[int]bool, error) {
	args := eventArrays(org, events, keys, received)
	if d.ids == nil {
		rows, _ := tx.Query(ctx, insertEventsQuery, args...)
		return storedPositions(rows, events)
	}
	// The doors are counted in a CTE the insert waits for, and the one
	// row of a NULL id says they were not all there.
	rows, _ := tx.Query(ctx, insertHeldQuery, append(args, d.ids, d.locations, len(d.ids))...)
	return storedPositions(rows, events)
}

// upsertCommands creates each command on first sight with the fields of
// its first event in the batch, and moves its status to that of the
// latest event by occurredAt, never backwards. One statement for the batch.
// A command Gatehouse issued is never changed: its status is its own
// (servers' acknowledgements, the sweep), not what events report.
func upsertCommands(ctx context.Context, tx pgx.Tx, org int64, events []gatehouse.NewEvent, inserted map[int]bool) error {
	type row struct {
		c        gatehouse.NewCommand
		ap       uuid.UUID
		status   gatehouse.CommandStatus
		statusAt time.Time
	}
	var order []uuid.UUID
	rows := map[uuid.UUID]*row{}
	for i, ev := range events {
		if ev.Command == nil || !inserted[i] {
			continue
		}
		r, seen := rows[ev.Command.ID]
		if !seen {
			r = &row{c: *ev.Command, ap: ev.AccessPointID, status: ev.Command.Status, statusAt: ev.OccurredAt}
			rows[ev.Command.ID] = r
			order = append(order, ev.Command.ID)
		} else if !ev.OccurredAt.Before(r.statusAt) {
			r.status, r.statusAt = ev.Command.Status, ev.OccurredAt
		}
	}
	if len(order) == 0 {
		return nil
	}
	var (
		ids, aps            []uuid.UUID
		scopes, statuses    []string
		jobs, users         []*string
		issued, statusTimes []time.Time
	)
	// Upserts lock their rows: in id order, like the events, so concurrent
	// batches never wait on each other in a cycle.
	slices.SortFunc(order, func(a, b uuid.UUID) int { return bytes.Compare(a[:], b[:]) })
	for _, id := range order {
		r := rows[id]
		ids, aps = append(ids, id), append(aps, r.ap)
		scopes, statuses = append(scopes, string(r.c.Scope)), append(statuses, string(r.status))
		jobs, users = append(jobs, r.c.ServerJobID), append(users, r.c.PlatformUserID)
		issued, statusTimes = append(issued, r.c.IssuedAt), append(statusTimes, r.statusAt)
	}
	_, err := tx.Exec(ctx, `INSERT INTO commands
			(org, id, access_point_id, scope, status, server_job_id, platform_user_id, issued_at, status_at)
		SELECT $1, * FROM unnest($2::uuid[], $3::uuid[], $4::text[], $5::text[], $6::text[], $7::text[], $8::timestamptz[], $9::timestamptz[])
		ON CONFLICT (org, id) DO UPDATE SET status = excluded.status, status_at = excluded.status_at
		WHERE excluded.status_at >= commands.status_at AND NOT commands.issued`,
		org, ids, aps, scopes, statuses, jobs, users, issued, statusTimes)
	return err
}
