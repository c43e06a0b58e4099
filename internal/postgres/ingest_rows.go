package postgres

import (
	"time"

	"github.com/gatehouse/gatehouse"
	"github.com/gatehouse/gatehouse/internal/sqlstore"
	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
)

// The statements that store a batch of events (ingest.go): its rows as
// arrays or a copied table, the ids of the last 7 days checked first,
// and the positions of the events stored read back.

// eventArrays are the arguments of insertEventsQuery: the organization,
// the instant received, and a column of the batch in each array.
func eventArrays(org int64, events []gatehouse.NewEvent, places map[uuid.UUID]sqlstore.Place, received time.Time) []any {
	n := len(events)
	var (
		ids, locations, aps                   = make([]uuid.UUID, n), make([]uuid.UUID, n), make([]uuid.UUID, n)
		requesters, commands                  = make([]*uuid.UUID, n), make([]*uuid.UUID, n)
		occurred                              = make([]time.Time, n)
		types, locationNames, apNames         = make([]string, n), make([]string, n), make([]string, n)
		allowed, reasons, users, jobs, scopes = make([]*string, n), make([]*string, n), make([]*string, n), make([]*string, n), make([]*string, n)
		names                                 = make([]*string, n)
	)
	for i, ev := range events {
		p := places[ev.AccessPointID]
		ids[i], locations[i], aps[i], requesters[i], occurred[i] = ev.ID, p.LocationID, ev.AccessPointID, ev.RequestedBy, ev.OccurredAt
		if ev.Command != nil {
			commands[i] = &ev.Command.ID
		}
		types[i], locationNames[i], apNames[i] = string(ev.Type), p.LocationName, p.AccessPointName
		allowed[i], reasons[i], users[i], jobs[i], scopes[i] = (*string)(ev.Allowed), ev.Reason, ev.PlatformUserID, ev.ServerJobID, (*string)(ev.Scope)
		names[i] = ev.PlatformUserName
	}
	return []any{org, received,
		ids, types, occurred, allowed, reasons, users, jobs, scopes, locations, locationNames, aps, apNames, requesters, commands, names}
}

// insertEventsQuery inserts the events of insertEvents' arrays.
var insertEventsQuery = "WITH " + storeEventsCTEs(unnestedEvents, "") + " SELECT id FROM stored"

// unnestedEvents are the rows of insertEvents' arrays ($3 to $17), with
// their positions in the batch.
const unnestedEvents = `unnest($3::uuid[], $4::text[], $5::timestamptz[], $6::text[], $7::text[], $8::text[], $9::text[], $10::text[],
			$11::uuid[], $12::text[], $13::uuid[], $14::text[], $15::uuid[], $16::uuid[], $17::text[]) WITH ORDINALITY
			AS e(id, type, occurred_at, allowed, reason, platform_user_id, server_job_id, scope, location_id, location_name,
				access_point_id, access_point_name, requested_by, command_id, platform_user_name, pos)`

// storeEventsCTEs are the common table expressions that store the events
// of source (rows with a position pos and the columns of copyColumns) for
// organization $1, received at $2, where cond holds; the last, stored,
// returns the id of each event stored.
//
// An id is new when it is new to recent_event_ids, the ids received in
// the last 7 days (whatever their occurredAt), and new to its month's
// partition: the unique key of a table partitioned by time must hold the
// time, so an id older than 7 days is a duplicate only with the same
// occurredAt (docs/decisions.md, "Partitioning events by time"). Of an
// id given twice in the batch, the first is stored. Rows are inserted in
// id order, whatever the batch's order: each insert locks its id until
// commit, so two batches sharing ids in different orders would otherwise
// wait for each other, a deadlock. Each event's position is the
// organization's (positionNow), computed once for the batch.
func storeEventsCTEs(source, cond string) string {
	return `batch AS MATERIALIZED (SELECT DISTINCT ON (id) * FROM ` + source + cond + ` ORDER BY id, pos),
	fresh AS (INSERT INTO recent_event_ids (org, id, received_at) SELECT $1, id, $2 FROM batch ORDER BY id
		ON CONFLICT DO NOTHING RETURNING id),
	stored AS (INSERT INTO events (org, id, type, occurred_at, received_at, allowed, reason, platform_user_id,
			server_job_id, scope, location_id, location_name, access_point_id, access_point_name, requested_by, command_id,
			platform_user_name, xid)
		SELECT $1, id, type, occurred_at, $2, allowed, reason, platform_user_id, server_job_id, scope, location_id,
			location_name, access_point_id, access_point_name, requested_by, command_id, platform_user_name, ` + positionNow("$1") + `
		FROM batch WHERE id IN (SELECT id FROM fresh) ORDER BY id
		ON CONFLICT (org, id, occurred_at) DO NOTHING RETURNING id)`
}

// storedPositions reads the ids an INSERT … RETURNING stored and returns
// their positions in the batch (of an id given twice, the first). A NULL
// id (insertHeldQuery) is errPlacesChanged.
func storedPositions(rows pgx.Rows, events []gatehouse.NewEvent) (map[int]bool, error) {
	stored := make(map[uuid.UUID]bool)
	var id *uuid.UUID
	if _, err := pgx.ForEachRow(rows, []any{&id}, func() error {
		if id == nil {
			return errPlacesChanged
		}
		stored[*id] = true
		return nil
	}); err != nil {
		return nil, err
	}
	inserted := make(map[int]bool, len(stored))
	for i, ev := range events {
		if stored[ev.ID] {
			inserted[i] = true
			delete(stored, ev.ID) // a later copy of the id is a duplicate
		}
	}
	return inserted, nil
}
