package postgres

import (
	"cmp"
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/gatehouse/gatehouse"
	"github.com/gatehouse/gatehouse/internal/sqlstore"
	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
)

// An event names its access point, its location, the pair of names it
// was recorded with (migration 0033) and its server job (0034) by keys of
// event_values, a dictionary per organization: four bytes each in the
// row and in the indexes, where the ids took sixteen, a job id 37 and the
// names their length. A key is never reused and never changes meaning,
// so every instance keeps what it has read or stored (valueCache) for
// good, with nothing to invalidate across instances; a page maps the keys
// of its rows through it, and asks the database only for those it has
// never seen.

// valueKind is what an event value is (event_values.kind).
type valueKind byte

// The kinds of event values.
const (
	kindAccessPoint valueKind = 'a' // value: the access point's id
	kindLocation    valueKind = 'l' // value: the location's id
	kindNames       valueKind = 'n' // value: the access point's name; value2: its location's
	kindServerJob   valueKind = 'j' // value: the server job's id
)

// literal is the kind as an SQL literal.
func (k valueKind) literal() string { return "'" + string(rune(k)) + "'" }

// eventValue is one value of event_values.
type eventValue struct {
	kind          valueKind
	value, value2 string
}

// placeKeys are the keys of an event's place: its access point, its
// location and their names as recorded.
type placeKeys struct{ accessPoint, location, names int32 }

// placeValues are the values of a place's keys.
func placeValues(id uuid.UUID, p sqlstore.Place) [3]eventValue {
	return [3]eventValue{
		{kind: kindAccessPoint, value: id.String()},
		{kind: kindLocation, value: p.LocationID.String()},
		{kind: kindNames, value: p.AccessPointName, value2: p.LocationName},
	}
}

type orgKey struct {
	org int64
	key int32
}

type orgValue struct {
	org int64
	eventValue
}

// valueCache is what this instance knows of event_values, both ways.
type valueCache struct {
	byKey   sqlstore.Memory[orgKey, eventValue]
	byValue sqlstore.Memory[orgValue, int32]
}

func (c *valueCache) add(org int64, key int32, v eventValue) {
	c.byKey.Put(orgKey{org, key}, v)
	c.byValue.Put(orgValue{org, v}, key)
}

// batchKeys are the keys of a batch's values: each access point's place,
// and each server job's.
type batchKeys struct {
	places map[uuid.UUID]placeKeys
	jobs   map[string]int32
}

// job is the key of the server job id, nil for none.
func (k batchKeys) job(id *string) *int32 {
	if id == nil {
		return nil
	}
	key := k.jobs[*id]
	return &key
}

// batchKeys returns the keys of the places of a batch (by access point)
// and of its server jobs, storing the values the organization has never
// had in a short transaction of their own on conn, before the batch's: a
// value is stored before any event names it, and one whose batch then
// fails stays, harmless.
func (db *DB) batchKeys(ctx context.Context, conn txBeginner, org int64, places map[uuid.UUID]sqlstore.Place, events []gatehouse.NewEvent) (batchKeys, error) {
	values := make([]eventValue, 0, 3*len(places)+1)
	for id, p := range places {
		v := placeValues(id, p)
		values = append(values, v[:]...)
	}
	for _, ev := range events {
		if ev.ServerJobID != nil {
			values = append(values, jobValue(*ev.ServerJobID))
		}
	}
	keys, missing := db.knownKeys(org, values)
	if len(missing) > 0 {
		var stored map[eventValue]int32
		err := retrying(ctx, func() error {
			return pgx.BeginTxFunc(ctx, conn, pgx.TxOptions{IsoLevel: pgx.ReadCommitted}, func(tx pgx.Tx) (err error) {
				stored, err = storeValues(ctx, tx, org, missing)
				return err
			})
		})
		if err != nil {
			return batchKeys{}, err
		}
		db.rememberValues(org, stored)
		maps.Copy(keys, stored)
	}
	out := batchKeys{places: make(map[uuid.UUID]placeKeys, len(places)), jobs: map[string]int32{}}
	for id, p := range places {
		v := placeValues(id, p)
		out.places[id] = placeKeys{accessPoint: keys[v[0]], location: keys[v[1]], names: keys[v[2]]}
	}
	for v, k := range keys {
		if v.kind == kindServerJob {
			out.jobs[v.value] = k
		}
	}
	return out, nil
}

// jobValue is the value of a server job id.
func jobValue(id string) eventValue { return eventValue{kind: kindServerJob, value: id} }

// knownKeys returns the keys of values this instance knows, and the
// values it does not, each once, sorted.
func (db *DB) knownKeys(org int64, values []eventValue) (map[eventValue]int32, []eventValue) {
	keys := make(map[eventValue]int32, len(values))
	var missing []eventValue
	for _, v := range values {
		if k, ok := db.values.byValue.Get(orgValue{org, v}); ok {
			keys[v] = k
		} else {
			missing = append(missing, v)
		}
	}
	slices.SortFunc(missing, compareValues)
	return keys, slices.Compact(missing)
}

// rememberValues records keys a committed transaction stored or read.
func (db *DB) rememberValues(org int64, keys map[eventValue]int32) {
	for v, k := range keys {
		db.values.add(org, k, v)
	}
}

func compareValues(a, b eventValue) int {
	return cmp.Or(cmp.Compare(a.kind, b.kind), strings.Compare(a.value, b.value), strings.Compare(a.value2, b.value2))
}

// txBeginner is a connection, or the pool, that begins transactions of
// a given isolation.
type txBeginner interface {
	BeginTx(ctx context.Context, opts pgx.TxOptions) (pgx.Tx, error)
}

// storeValues returns the keys of values in tx, storing those the
// organization does not have with the next keys. The organization's
// advisory lock, held to tx's end, makes two transactions taking keys
// take them in turn; those that only read keys take no lock. tx must
// read committed (the default): its insert, a statement after the lock,
// then sees every key taken before it.
func storeValues(ctx context.Context, tx pgx.Tx, org int64, values []eventValue) (map[eventValue]int32, error) {
	kinds, vals, vals2 := make([]string, len(values)), make([]string, len(values)), make([]string, len(values))
	for i, v := range values {
		kinds[i], vals[i], vals2[i] = string(rune(v.kind)), v.value, v.value2
	}
	if _, err := tx.Exec(ctx, "SELECT pg_advisory_xact_lock(hashtextextended('gatehouse.event_values', $1))", org); err != nil {
		return nil, err
	}
	rows, _ := tx.Query(ctx, `WITH v AS (SELECT * FROM unnest($2::text[], $3::text[], $4::text[]) WITH ORDINALITY AS v (kind, value, value2, n)),
		added AS (INSERT INTO event_values (org, key, kind, value, value2)
			SELECT $1, (SELECT coalesce(max(key), 0) FROM event_values WHERE org = $1) + row_number() OVER (ORDER BY v.n),
				v.kind::"char", v.value, v.value2
			FROM v WHERE NOT EXISTS (SELECT 1 FROM event_values e
				WHERE e.org = $1 AND e.kind = v.kind::"char" AND e.value = v.value AND e.value2 = v.value2)
			RETURNING key, kind::text, value, value2)
		SELECT * FROM added
		UNION ALL SELECT e.key, e.kind::text, e.value, e.value2 FROM v
			JOIN event_values e ON e.org = $1 AND e.kind = v.kind::"char" AND e.value = v.value AND e.value2 = v.value2`,
		org, kinds, vals, vals2)
	keys := make(map[eventValue]int32, len(values))
	if err := forEachValue(rows, func(key int32, v eventValue) { keys[v] = key }); err != nil {
		return nil, err
	}
	for _, v := range values {
		if _, ok := keys[v]; !ok { // an event would read as another's, or fail to read
			return nil, fmt.Errorf("no key stored for the %c value %q", v.kind, v.value)
		}
	}
	return keys, nil
}

// forEachValue calls fn with each row of rows: a key, its kind (as text),
// its value and value2.
func forEachValue(rows pgx.Rows, fn func(int32, eventValue)) error {
	var (
		key  int32
		kind string
		v    eventValue
	)
	_, err := pgx.ForEachRow(rows, []any{&key, &kind, &v.value, &v.value2}, func() error {
		v.kind = valueKind(kind[0])
		fn(key, v)
		return nil
	})
	return err
}

// eventValues returns the values of keys, of the organization's events,
// reading from q those this instance has never seen.
func (db *DB) eventValues(ctx context.Context, q querier, org int64, keys []int32) (map[int32]eventValue, error) {
	values := make(map[int32]eventValue, len(keys))
	var unknown []int32
	for _, k := range keys {
		if _, done := values[k]; done {
			continue
		}
		if v, ok := db.values.byKey.Get(orgKey{org, k}); ok {
			values[k] = v
		} else if !slices.Contains(unknown, k) {
			unknown = append(unknown, k)
		}
	}
	if len(unknown) == 0 {
		return values, nil
	}
	rows, _ := q.Query(ctx, "SELECT key, kind::text, value, value2 FROM event_values WHERE org = $1 AND key = ANY($2)", org, unknown)
	err := forEachValue(rows, func(key int32, v eventValue) {
		values[key] = v
		db.values.add(org, key, v)
	})
	return values, wrap(err)
}

// keyedEvent is an event read with the keys of its place and server job,
// not yet mapped.
type keyedEvent struct {
	gatehouse.Event
	place placeKeys
	job   *int32
}

// placeEvents returns events with their places and server jobs mapped
// from their keys.
func (db *DB) placeEvents(ctx context.Context, q querier, org int64, events []keyedEvent) ([]gatehouse.Event, error) {
	keys := make([]int32, 0, 4*len(events))
	for _, e := range events {
		keys = append(keys, e.place.accessPoint, e.place.location, e.place.names)
		if e.job != nil {
			keys = append(keys, *e.job)
		}
	}
	values, err := db.eventValues(ctx, q, org, keys)
	if err != nil {
		return nil, err
	}
	out := make([]gatehouse.Event, len(events))
	for i, e := range events {
		ap, loc, names := values[e.place.accessPoint], values[e.place.location], values[e.place.names]
		if ap.kind != kindAccessPoint || loc.kind != kindLocation || names.kind != kindNames {
			return nil, fmt.Errorf("event %s: its place's keys %v are not its organization's", e.ID, e.place)
		}
		ev := e.Event
		if ev.AccessPoint.ID, err = uuid.Parse(ap.value); err != nil {
			return nil, err
		}
		if ev.Location.ID, err = uuid.Parse(loc.value); err != nil {
			return nil, err
		}
		ev.AccessPoint.Name, ev.Location.Name = names.value, names.value2
		if e.job != nil {
			job := values[*e.job]
			if job.kind != kindServerJob {
				return nil, fmt.Errorf("event %s: its server job's key %d is not its organization's", e.ID, *e.job)
			}
			ev.ServerJobID = &job.value
		}
		out[i] = ev
	}
	return out, nil
}
