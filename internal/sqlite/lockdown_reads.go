package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"strings"
	"time"

	"github.com/gatehouse/gatehouse"
	"github.com/gatehouse/gatehouse/internal/sqlstore"
	"github.com/google/uuid"
)

// LockdownsOf returns the organization's lockdowns covering a location
// that run at at.
func (db *DB) LockdownsOf(ctx context.Context, orgID, locationID uuid.UUID, universeID string, at time.Time) (_ []gatehouse.Lockdown, err error) {
	defer sqlstore.Label(&err, "Store.LockdownsOf", orgID, locationID)
	org, err := db.orgSeq(ctx, db.read, orgID)
	if err != nil {
		return nil, err
	}
	t := millis(at)
	ls, err := readLockdowns(ctx, db.read, org, orgID, at, lockdownSelect+runningAt+`
		AND (d.scope = 'ORGANIZATION' OR d.scope = 'UNIVERSE' AND d.universe_id = ? OR d.scope = 'LOCATION' AND d.location_id = ?)
		ORDER BY d.started_at, d.id`, org, t, t, t, universeID, locationID[:])
	return ls, wrap(err)
}

// UniverseLockdowns returns the organization's running lockdowns that
// cover an access point of the universe's set.
func (db *DB) UniverseLockdowns(ctx context.Context, orgID uuid.UUID, universeID string, now time.Time) (_ []gatehouse.Lockdown, err error) {
	defer sqlstore.Label(&err, "Store.UniverseLockdowns", orgID)
	org, err := db.orgSeq(ctx, db.read, orgID)
	if errors.Is(err, gatehouse.ErrNotFound) {
		return []gatehouse.Lockdown{}, nil
	}
	if err != nil {
		return nil, err
	}
	t := millis(now)
	ls, err := readLockdownsWith(ctx, db.read, org, orgID, now, false, lockdownSelect+" AND d.released_at IS NULL"+runningAt+`
		AND (d.scope = 'ORGANIZATION' OR d.scope = 'UNIVERSE' AND d.universe_id = ?
			OR d.scope = 'LOCATION' AND d.location_id IN (SELECT id FROM locations WHERE org = ? AND universe_id = ?))
		ORDER BY d.started_at, d.id`, org, t, t, t, universeID, org, universeID)
	return ls, wrap(err)
}

// OrgUniverses returns the universes the organization's locations name.
func (db *DB) OrgUniverses(ctx context.Context, orgID uuid.UUID) (_ []string, err error) {
	defer sqlstore.Label(&err, "Store.OrgUniverses", orgID)
	org, err := db.orgSeq(ctx, db.read, orgID)
	if err != nil {
		return nil, err
	}
	us, err := queryAll(ctx, db.read, func(r *sql.Rows, u *string) error { return r.Scan(u) },
		"SELECT DISTINCT universe_id FROM locations WHERE org = ? AND universe_id IS NOT NULL ORDER BY universe_id", org)
	if us == nil {
		us = []string{}
	}
	return us, wrap(err)
}

// ReadLockdownChanges returns the organization's lockdown starts and
// releases after a position, in the order they were stored.
func (db *DB) ReadLockdownChanges(ctx context.Context, orgID uuid.UUID, after gatehouse.FeedPosition, limit int) (_ []gatehouse.LockdownChange, err error) {
	defer sqlstore.Label(&err, "Store.ReadLockdownChanges", orgID)
	org, err := db.orgSeq(ctx, db.read, orgID)
	if errors.Is(err, gatehouse.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	changes, err := queryAll(ctx, db.read, func(r *sql.Rows, c *gatehouse.LockdownChange) error {
		return r.Scan(&c.ID, &c.Released, &c.Position.Seq)
	}, `SELECT lockdown_id, released, seq FROM lockdown_changes WHERE org = ? AND seq > ?
		ORDER BY seq LIMIT ?`, org, after.Seq, limit)
	return changes, wrap(err)
}

// ListLockdowns returns a page of the organization's lockdowns, newest
// first.
func (db *DB) ListLockdowns(ctx context.Context, orgID uuid.UUID, f gatehouse.LockdownFilter) (_ gatehouse.LockdownPage, err error) {
	defer sqlstore.Label(&err, "Store.ListLockdowns", orgID)
	org, err := db.orgSeq(ctx, db.read, orgID)
	if errors.Is(err, gatehouse.ErrNotFound) {
		return gatehouse.LockdownPage{Lockdowns: []gatehouse.Lockdown{}}, nil
	}
	if err != nil {
		return gatehouse.LockdownPage{}, err
	}
	var b strings.Builder
	b.WriteString(lockdownSelect)
	args := []any{org}
	if f.Active {
		now := millis(f.Now)
		b.WriteString(runningAt)
		args = append(args, now, now, now)
	}
	if f.Within != nil {
		cond, a := lockdownsWithin(org, f.Within)
		b.WriteString(" AND " + cond)
		args = append(args, a...)
	}
	if f.After != nil {
		b.WriteString(" AND (d.started_at, d.id) < (?, ?)")
		args = append(args, millis(f.After.StartedAt), f.After.ID[:])
	}
	b.WriteString(" ORDER BY d.started_at DESC, d.id DESC LIMIT ?")
	args = append(args, f.Limit+1)
	ls, err := readLockdowns(ctx, db.read, org, orgID, f.Now, b.String(), args...)
	if err != nil {
		return gatehouse.LockdownPage{}, wrap(err)
	}
	ls, next := sqlstore.KeysetPage(ls, f.Limit, gatehouse.Lockdown.Key)
	return gatehouse.LockdownPage{Lockdowns: ls, Next: next}, nil
}

// lockdownsWithin is the condition of a lockdown that covers one of
// within's locations, with its arguments: the organization's, a
// universe's that one of them names now, or one of theirs. An empty
// within has no location to cover, so not even the organization's.
func lockdownsWithin(org int64, within gatehouse.Reach) (string, []any) {
	if len(within) == 0 {
		return "0", nil
	}
	named, args := inLocations("id", within)
	loc, locArgs := inLocations("d.location_id", within)
	return `(d.scope = 'ORGANIZATION'
		OR d.scope = 'UNIVERSE' AND d.universe_id IN (SELECT universe_id FROM locations WHERE org = ? AND ` + named + `)
		OR d.scope = 'LOCATION' AND ` + loc + `)`, append(append([]any{org}, args...), locArgs...)
}
