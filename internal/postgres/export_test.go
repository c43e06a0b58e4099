package postgres

import (
	"context"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/gatehouse/gatehouse"
	"github.com/gatehouse/gatehouse/internal/sqlstore"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
)

// SleepForTest runs a statement that takes d, to test timeouts.
func (db *DB) SleepForTest(ctx context.Context, d time.Duration) error {
	_, err := db.pool.Exec(ctx, "SELECT pg_sleep($1)", d.Seconds())
	return wrap(err)
}

// WithTxForTest runs fn as a store method runs its transaction.
func (db *DB) WithTxForTest(ctx context.Context, fn func(pgx.Tx) error) error {
	return db.withTx(ctx, fn)
}

// MigrateThroughForTest applies the migrations up to version last, and
// the one that adds the last column every insert of events names
// (0027_player_names.sql), which a test storing events at an older schema
// needs: it adds a column only, and every later schema has it too.
func (db *DB) MigrateThroughForTest(ctx context.Context, last int) error {
	return db.migrateWhere(ctx, func(version int) bool { return version <= last || version == 27 })
}

// ExecForTest runs a statement on the pool.
func (db *DB) ExecForTest(ctx context.Context, query string, args ...any) error {
	_, err := db.pool.Exec(ctx, query, args...)
	return err
}

// SetWatchPingForTest makes an idle watcher ping every d and give up on
// its connection after d without an answer, until restore.
func SetWatchPingForTest(d time.Duration) (restore func()) {
	ping, timeout := watchPing, watchPingTimeout
	watchPing, watchPingTimeout = d, d
	return func() { watchPing, watchPingTimeout = ping, timeout }
}

// FloatForTest runs a query of one number.
func (db *DB) FloatForTest(ctx context.Context, query string, args ...any) (float64, error) {
	var f float64
	err := db.pool.QueryRow(ctx, query, args...).Scan(&f)
	return f, err
}

// AfterIngestResolveForTest makes every ingest run fn between the read of
// its places and its write.
func (db *DB) AfterIngestResolveForTest(fn func()) { db.afterIngestResolve = fn }

// PlayerLevelsForTest lists an organization's rows of
// insight_player_levels as "player type reason scope level", in order.
func (db *DB) PlayerLevelsForTest(ctx context.Context, orgID uuid.UUID) ([]string, error) {
	org, err := db.orgSeq(ctx, db.pool, orgID)
	if err != nil {
		return nil, err
	}
	rows, _ := db.pool.Query(ctx, `SELECT platform_user_id || ' ' || type || ' ' || reason || ' ' || scope || ' ' || level
		FROM insight_player_levels WHERE org = $1 ORDER BY platform_user_id, type, month, reason, scope, level`, org)
	return pgx.CollectRows(rows, pgx.RowTo[string])
}

// IngestBeforePartitionsForTest stores events as the releases before
// migration 0029 did, with one INSERT whose conflict is any unique key's:
// a test of an earlier migration stores its events at the schema before
// it, where today's statement (recent ids, the partitions' key) fails.
func (db *DB) IngestBeforePartitionsForTest(ctx context.Context, orgID uuid.UUID, events []gatehouse.NewEvent) (gatehouse.IngestResult, error) {
	org, err := db.orgSeq(ctx, db.pool, orgID)
	if err != nil {
		return gatehouse.IngestResult{}, err
	}
	places, err := resolvePlaces(ctx, db.pool, org, events)
	if err != nil {
		return gatehouse.IngestResult{}, err
	}
	rows, _ := db.pool.Query(ctx, `INSERT INTO events (org, id, type, occurred_at, received_at, allowed, reason, platform_user_id,
			server_job_id, scope, location_id, location_name, access_point_id, access_point_name, requested_by, command_id,
			platform_user_name)
		SELECT $1, id, type, occurred_at, $2, allowed, reason, platform_user_id, server_job_id, scope, location_id,
			location_name, access_point_id, access_point_name, requested_by, command_id, platform_user_name
		FROM unnest($3::uuid[], $4::text[], $5::timestamptz[], $6::text[], $7::text[], $8::text[], $9::text[], $10::text[],
			$11::uuid[], $12::text[], $13::uuid[], $14::text[], $15::uuid[], $16::uuid[], $17::text[]) WITH ORDINALITY
			AS e(id, type, occurred_at, allowed, reason, platform_user_id, server_job_id, scope, location_id, location_name,
				access_point_id, access_point_name, requested_by, command_id, platform_user_name, pos)
		ORDER BY id, pos ON CONFLICT DO NOTHING RETURNING id`,
		wideEventArrays(org, events, places, gatehouse.Truncate(db.Now()))...)
	stored, err := storedPositions(rows, events)
	return gatehouse.IngestResult{Accepted: len(stored), Duplicates: len(events) - len(stored)}, err
}

// wideEventArrays are the columns of a batch in the row before migration
// 0033, as arrays.
func wideEventArrays(org int64, events []gatehouse.NewEvent, places map[uuid.UUID]sqlstore.Place, received time.Time) []any {
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

// ReadFeedBeforeCompactForTest reads the ids and positions of the
// organization's events from the row before migration 0033, in the
// feed's order.
func (db *DB) ReadFeedBeforeCompactForTest(ctx context.Context, orgID uuid.UUID) (gatehouse.FeedPage, error) {
	var page gatehouse.FeedPage
	rows, _ := db.pool.Query(ctx, `SELECT e.id, e.xid::text::bigint, e.seq FROM events e JOIN organizations o ON o.seq = e.org
		WHERE o.id = $1 ORDER BY e.xid, e.seq`, orgID)
	var (
		id  uuid.UUID
		pos gatehouse.FeedPosition
	)
	_, err := pgx.ForEachRow(rows, []any{&id, &pos.Txn, &pos.Seq}, func() error {
		page.Events = append(page.Events, gatehouse.Event{ID: id})
		page.Positions = append(page.Positions, pos)
		return nil
	})
	return page, err
}

// PartitionsForTest lists the partitions of events by name, each with
// its bounds.
func (db *DB) PartitionsForTest(ctx context.Context) (map[string]string, error) {
	rows, _ := db.pool.Query(ctx, `SELECT c.relname, pg_get_expr(c.relpartbound, c.oid) FROM pg_inherits i
		JOIN pg_class c ON c.oid = i.inhrelid WHERE i.inhparent = 'events'::regclass`)
	parts := map[string]string{}
	var name, bound string
	_, err := pgx.ForEachRow(rows, []any{&name, &bound}, func() error { parts[name] = bound; return nil })
	return parts, err
}

// SetPrefixKeysForTest sets the most events of an id prefix that a search
// looks up apart from its page (qPrefixKeys).
func (db *DB) SetPrefixKeysForTest(n int) { db.prefixKeys = n }

// StringForTest runs query, which returns one text value.
func (db *DB) StringForTest(ctx context.Context, query string) (string, error) {
	var v string
	err := db.pool.QueryRow(ctx, query).Scan(&v)
	return v, err
}

// ExplainEventPageForTest returns the plan, in JSON, of the page query of
// f for the organization, planned once for every value as
// pages are (withGenericPlans), with sequential scans priced out (a
// test's tables are a few pages, which a scan reads fastest).
func (db *DB) ExplainEventPageForTest(ctx context.Context, orgID uuid.UUID, f gatehouse.EventFilter) (string, error) {
	org, err := db.orgSeq(ctx, db.pool, orgID)
	if err != nil {
		return "", err
	}
	query, args := eventQuery(org, f, 0)
	return db.explainForTest(ctx, query, args)
}

// ExplainFeedPageForTest is ExplainEventPageForTest for a page of the
// feed after the position after.
func (db *DB) ExplainFeedPageForTest(ctx context.Context, orgID uuid.UUID, f gatehouse.EventFilter, after gatehouse.FeedPosition) (string, error) {
	org, err := db.orgSeq(ctx, db.pool, orgID)
	if err != nil {
		return "", err
	}
	q, where, err := feedAfter(org, after, strconv.FormatUint(math.MaxInt64, 10), f)
	if err != nil {
		return "", err
	}
	query := feedPage(q, where, f.Limit)
	return db.explainForTest(ctx, query, q.args)
}

// ExplainFeedReadersForTest explains, for the organization orgID, the
// statements besides a page that read its events in the feed's order:
// the player fold's batch ("fold"), the last position ("last") and the
// check for organizations with nothing new ("idle").
func (db *DB) ExplainFeedReadersForTest(ctx context.Context, orgID uuid.UUID) (map[string]string, error) {
	org, err := db.orgSeq(ctx, db.pool, orgID)
	if err != nil {
		return nil, err
	}
	plans := make(map[string]string)
	for name, s := range map[string]struct {
		query string
		args  []any
	}{
		"fold": {foldPlayers, []any{org, "1000", int64(70), sqlstore.RollBatch}},
		"last": {lastPosition, []any{org}},
		"idle": {putOffIdle, []any{db.Now(), db.Now()}},
	} {
		if plans[name], err = db.explainForTest(ctx, s.query, s.args); err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
	}
	return plans, nil
}

// ExplainTermSearchForTest is ExplainEventPageForTest for the page of a
// search that reads the events of terms (eventSearch.Keys).
func (db *DB) ExplainTermSearchForTest(ctx context.Context, orgID uuid.UUID, f gatehouse.EventFilter, terms []sqlstore.Term) (string, error) {
	org, err := db.orgSeq(ctx, db.pool, orgID)
	if err != nil {
		return "", err
	}
	query, args, err := eventSearch{db: db, q: db.pool, org: org, f: f}.keysQuery(ctx, terms)
	if err != nil {
		return "", err
	}
	return db.explainForTest(ctx, query, args)
}

func (db *DB) explainForTest(ctx context.Context, query string, args []any) (string, error) {
	values := make([]string, len(args))
	for i, a := range args {
		switch a := a.(type) {
		case int64:
			values[i] = strconv.FormatInt(a, 10)
		case int:
			values[i] = strconv.Itoa(a)
		case time.Time:
			values[i] = "'" + a.UTC().Format(time.RFC3339Nano) + "'"
		case uuid.UUID:
			values[i] = "'" + a.String() + "'"
		case string:
			values[i] = "'" + strings.ReplaceAll(a, "'", "''") + "'"
		case []string: // names without quotes or commas
			values[i] = "'{" + strings.Join(a, ",") + "}'"
		case []uuid.UUID:
			ids := make([]string, len(a))
			for j, id := range a {
				ids[j] = id.String()
			}
			values[i] = "'{" + strings.Join(ids, ",") + "}'"
		default:
			return "", fmt.Errorf("no literal for %T", a)
		}
	}
	var plan string
	err := withGenericPlans(ctx, db.pool, "; SET LOCAL enable_seqscan = off", func(q querier) error {
		if _, err := q.Exec(ctx, "PREPARE page AS "+query); err != nil {
			return err
		}
		if err := q.QueryRow(ctx, "EXPLAIN (FORMAT JSON) EXECUTE page("+strings.Join(values, ", ")+")").Scan(&plan); err != nil {
			return err
		}
		_, err := q.Exec(ctx, "DEALLOCATE page")
		return err
	})
	return plan, err
}

// StringsForTest runs a query of one text column on the pool.
func (db *DB) StringsForTest(ctx context.Context, query string, args ...any) ([]string, error) {
	rows, _ := db.pool.Query(ctx, query, args...)
	return pgx.CollectRows(rows, pgx.RowTo[string])
}
