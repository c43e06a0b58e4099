package postgres

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"time"

	"github.com/gatehouse/gatehouse"
	"github.com/gatehouse/gatehouse/internal/sqlstore"
	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
)

// LockdownsOf returns the organization's lockdowns covering a location
// that run at at.
func (db *DB) LockdownsOf(ctx context.Context, orgID, locationID uuid.UUID, universeID string, at time.Time) (_ []gatehouse.Lockdown, err error) {
	defer sqlstore.Label(&err, "Store.LockdownsOf", orgID, locationID)
	org, err := db.orgSeq(ctx, db.pool, orgID)
	if err != nil {
		return nil, err
	}
	ls, err := readLockdowns(ctx, db.pool, org, orgID, at, lockdownSelect+runningAt+`
		AND (d.scope = 'ORGANIZATION' OR d.scope = 'UNIVERSE' AND d.universe_id = $3 OR d.scope = 'LOCATION' AND d.location_id = $4)
		ORDER BY d.started_at, d.id`, org, at, universeID, locationID)
	return ls, wrap(err)
}

// UniverseLockdowns returns the organization's running lockdowns that
// cover an access point of the universe's set.
func (db *DB) UniverseLockdowns(ctx context.Context, orgID uuid.UUID, universeID string, now time.Time) (_ []gatehouse.Lockdown, err error) {
	defer sqlstore.Label(&err, "Store.UniverseLockdowns", orgID)
	org, err := db.orgSeq(ctx, db.pool, orgID)
	if errors.Is(err, gatehouse.ErrNotFound) {
		return []gatehouse.Lockdown{}, nil
	}
	if err != nil {
		return nil, err
	}
	ls, err := readLockdownsWith(ctx, db.pool, org, orgID, now, false, lockdownSelect+" AND d.released_at IS NULL"+runningAt+`
		AND (d.scope = 'ORGANIZATION' OR d.scope = 'UNIVERSE' AND d.universe_id = $3
			OR d.scope = 'LOCATION' AND d.location_id IN (SELECT id FROM locations WHERE org = $1 AND universe_id = $3))
		ORDER BY d.started_at, d.id`, org, now, universeID)
	return ls, wrap(err)
}

// OrgUniverses returns the universes the organization's locations name.
func (db *DB) OrgUniverses(ctx context.Context, orgID uuid.UUID) (_ []string, err error) {
	defer sqlstore.Label(&err, "Store.OrgUniverses", orgID)
	org, err := db.orgSeq(ctx, db.pool, orgID)
	if err != nil {
		return nil, err
	}
	rows, _ := db.pool.Query(ctx, "SELECT DISTINCT universe_id FROM locations WHERE org = $1 AND universe_id IS NOT NULL ORDER BY universe_id", org)
	us, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if us == nil {
		us = []string{}
	}
	return us, wrap(err)
}

// ReadLockdownChanges returns the organization's lockdown starts and
// releases after a position, in (xid, seq) order below the oldest
// running transaction (horizon).
func (db *DB) ReadLockdownChanges(ctx context.Context, orgID uuid.UUID, after gatehouse.FeedPosition, limit int) (_ []gatehouse.LockdownChange, err error) {
	defer sqlstore.Label(&err, "Store.ReadLockdownChanges", orgID)
	org, err := db.orgSeq(ctx, db.pool, orgID)
	if errors.Is(err, gatehouse.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	rows, _ := db.pool.Query(ctx, `SELECT lockdown_id, released, xid::text::bigint, seq FROM lockdown_changes
		WHERE org = $1 AND (xid, seq) > ($2::text::xid8, $3)
		AND xid < `+horizon("$1")+`
		ORDER BY xid, seq LIMIT $4`, org, strconv.FormatUint(after.Txn, 10), after.Seq, limit)
	changes, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (gatehouse.LockdownChange, error) {
		var (
			c   gatehouse.LockdownChange
			txn int64
		)
		err := r.Scan(&c.ID, &c.Released, &txn, &c.Position.Seq)
		c.Position.Txn = uint64(txn)
		return c, err
	})
	return changes, wrap(err)
}

// ListLockdowns returns a page of the organization's lockdowns, newest
// first.
func (db *DB) ListLockdowns(ctx context.Context, orgID uuid.UUID, f gatehouse.LockdownFilter) (_ gatehouse.LockdownPage, err error) {
	defer sqlstore.Label(&err, "Store.ListLockdowns", orgID)
	org, err := db.orgSeq(ctx, db.pool, orgID)
	if errors.Is(err, gatehouse.ErrNotFound) {
		return gatehouse.LockdownPage{Lockdowns: []gatehouse.Lockdown{}}, nil
	}
	if err != nil {
		return gatehouse.LockdownPage{}, err
	}
	var b strings.Builder
	b.WriteString(lockdownSelect)
	args := []any{org, f.Now}
	if f.Active {
		b.WriteString(runningAt)
	} else {
		b.WriteString(" AND $2::timestamptz IS NOT NULL")
	}
	if f.After != nil {
		b.WriteString(" AND (d.started_at, d.id) < ($3, $4)")
		args = append(args, f.After.StartedAt, f.After.ID)
	}
	if f.Within != nil {
		args = append(args, []uuid.UUID(f.Within))
		b.WriteString(" AND " + lockdownsWithin("$"+strconv.Itoa(len(args))))
	}
	b.WriteString(" ORDER BY d.started_at DESC, d.id DESC LIMIT " + strconv.Itoa(f.Limit+1))
	ls, err := readLockdowns(ctx, db.pool, org, orgID, f.Now, b.String(), args...)
	if err != nil {
		return gatehouse.LockdownPage{}, wrap(err)
	}
	ls, next := sqlstore.KeysetPage(ls, f.Limit, gatehouse.Lockdown.Key)
	return gatehouse.LockdownPage{Lockdowns: ls, Next: next}, nil
}

// lockdownsWithin is the condition of a lockdown that covers one of the
// locations of the uuid[] parameter within: the organization's, a
// universe's that one of them names now, or one of theirs. An empty
// within has no location to cover, so not even the organization's.
func lockdownsWithin(within string) string {
	in := " = ANY(" + within + "::uuid[])"
	return `cardinality(` + within + `::uuid[]) > 0 AND (d.scope = 'ORGANIZATION'
		OR d.scope = 'UNIVERSE' AND d.universe_id IN (SELECT universe_id FROM locations WHERE org = $1 AND id` + in + `)
		OR d.scope = 'LOCATION' AND d.location_id` + in + `)`
}
