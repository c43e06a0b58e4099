package postgres

import (
	"time"

	"github.com/gatehouse/gatehouse"
	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
)

// The statements that store a batch of events (ingest.go): its rows as
// arrays or a copied table, the ids of the last 7 days checked first,
// and the positions of the events stored read back.

// eventArrays are the arguments of insertEventsQuery: the organization,
// the instant received, and a column of the batch in each array; the
// place of each event as the keys of its access point's, and its server
// job as its key (keys).
func eventArrays(org int64, events []gatehouse.NewEvent, keys batchKeys, received time.Time) []any {
	n := len(events)
	var (
		ids                   = make([]uuid.UUID, n)
		requesters, commands  = make([]*uuid.UUID, n), make([]*uuid.UUID, n)
		occurred              = make([]time.Time, n)
		types                 = make([]string, n)
		aps, locations, names = make([]int32, n), make([]int32, n), make([]int32, n)
		reasons, users        = make([]*string, n), make([]*string, n)
		jobs                  = make([]*int32, n)
		scopes, platformNames = make([]*string, n), make([]*string, n)
	)
	for i, ev := range events {
		k := keys.places[ev.AccessPointID]
		ids[i], requesters[i], occurred[i] = ev.ID, ev.RequestedBy, ev.OccurredAt
		if ev.Command != nil {
			commands[i] = &ev.Command.ID
		}
		types[i], aps[i], locations[i], names[i] = string(ev.Type), k.accessPoint, k.location, k.names
		reasons[i], users[i], jobs[i], scopes[i] = ev.Reason, ev.PlatformUserID, keys.job(ev.ServerJobID), (*string)(ev.Scope)
		platformNames[i] = ev.PlatformUserName
	}
	return []any{org, received,
		ids, types, occurred, reasons, users, jobs, scopes, aps, locations, names, requesters, commands, platformNames}
}

// insertEventsQuery inserts the events of insertEvents' arrays.
var insertEventsQuery = "WITH " + storeEventsCTEs(unnestedEvents, "") + " SELECT id FROM stored"

// unnestedEvents are the rows of insertEvents' arrays ($3 to $15), with
// their positions in the batch.
const unnestedEvents = `unnest($3::uuid[], $4::text[], $5::timestamptz[], $6::text[], $7::text[], $8::int[], $9::text[],
			$10::int[], $11::int[], $12::int[], $13::uuid[], $14::uuid[], $15::text[]) WITH ORDINALITY
			AS e(id, type, occurred_at, reason, platform_user_id, server_job_id, scope, access_point, location, names,
				requested_by, command_id, platform_user_name, pos)`

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
	stored AS (INSERT INTO events (org, id, type, occurred_at, received_at, reason, platform_user_id,
			server_job_id, scope, access_point, location, names, requested_by, command_id, platform_user_name, xid)
		SELECT $1, id, event_type_code(type), occurred_at, $2, reason, platform_user_id, server_job_id, event_scope_code(scope),
			access_point, location, names, requested_by, command_id, platform_user_name, ` + positionNow("$1") + `
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
