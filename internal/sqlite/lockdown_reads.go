package sqlite

import (
	"context"
	"database/sql"
	"errors"
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
