package postgres

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/gatehouse/gatehouse"
	"github.com/gatehouse/gatehouse/internal/sqlstore"
	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
)

// SetLocationArchived archives (at set) or restores (at nil) a location
// of an organization.
func (db *DB) SetLocationArchived(ctx context.Context, e gatehouse.AuditEntry, orgID, id uuid.UUID, at *time.Time) (_ gatehouse.Location, err error) {
	defer sqlstore.Label(&err, "Store.SetLocationArchived", orgID, id)
	org, err := db.orgSeq(ctx, db.pool, orgID)
	if err != nil {
		return gatehouse.Location{}, err
	}
	err = db.withTx(ctx, func(tx pgx.Tx) error {
		var (
			name string
			old  *time.Time
		)
		err := tx.QueryRow(ctx, "SELECT name, archived_at FROM locations WHERE id = $1 AND org = $2 FOR NO KEY UPDATE", id, org).Scan(&name, &old)
		if errors.Is(err, pgx.ErrNoRows) {
			return fmt.Errorf("location %s: %w", id, gatehouse.ErrNotFound)
		}
		if err != nil || (old != nil) == (at != nil) {
			return err
		}
		if _, err := tx.Exec(ctx, "UPDATE locations SET archived_at = $1 WHERE id = $2 AND org = $3", archivedAt(at), id, org); err != nil {
			return err
		}
		return db.appendAudit(ctx, tx, org, sqlstore.ArchiveEntry(e, orgID, gatehouse.TargetLocation, id, name, optTime(old), optTime(archivedAt(at))))
	})
	if err != nil {
		return gatehouse.Location{}, err
	}
	// Read after the commit, as RenameLocation does.
	return db.findLocation(ctx, orgID, id)
}

// archivedAt is at as stored: in UTC, to the millisecond, as every
// instant Gatehouse keeps, so that what a change returns is what a read
// returns.
func archivedAt(at *time.Time) *time.Time {
	if at == nil {
		return nil
	}
	t := at.UTC().Truncate(time.Millisecond)
	return &t
}

// SetAccessPointArchived archives (at set) or restores (at nil) an access
// point of an organization.
func (db *DB) SetAccessPointArchived(ctx context.Context, e gatehouse.AuditEntry, orgID, id uuid.UUID, at *time.Time) (_ gatehouse.AccessPoint, err error) {
	defer sqlstore.Label(&err, "Store.SetAccessPointArchived", orgID, id)
	org, err := db.orgSeq(ctx, db.pool, orgID)
	if err != nil {
		return gatehouse.AccessPoint{}, err
	}
	var ap gatehouse.AccessPoint
	err = db.withTx(ctx, func(tx pgx.Tx) error {
		if ap, err = lockAccessPoint(ctx, tx, org, id); err != nil || (ap.ArchivedAt != nil) == (at != nil) {
			return err
		}
		if _, err := tx.Exec(ctx, "UPDATE access_points SET archived_at = $1 WHERE id = $2 AND org = $3", archivedAt(at), id, org); err != nil {
			return err
		}
		old := ap.ArchivedAt
		ap.ArchivedAt = optTime(archivedAt(at))
		return db.appendAudit(ctx, tx, org, sqlstore.ArchiveEntry(e, orgID, gatehouse.TargetAccessPoint, id, ap.Name, old, ap.ArchivedAt))
	})
	return ap, err
}

// DeleteLocation deletes a location of an organization that nothing
// names, with its grants. The location's row is locked first (FOR
// UPDATE) and its history read after, in statements of their own (fresh
// snapshots under READ COMMITTED): an access point created in it or moved
// to it, which takes the location's row first (its foreign key, or FOR
// SHARE), either committed before, and is counted, or waits and then
// finds no location.
func (db *DB) DeleteLocation(ctx context.Context, e gatehouse.AuditEntry, orgID, id uuid.UUID) (err error) {
	defer sqlstore.Label(&err, "Store.DeleteLocation", orgID, id)
	org, err := db.orgSeq(ctx, db.pool, orgID)
	if err != nil {
		return err
	}
	return db.withTx(ctx, func(tx pgx.Tx) error {
		l := gatehouse.Location{ID: id, OrgID: orgID}
		err := tx.QueryRow(ctx, "SELECT name, universe_id FROM locations WHERE id = $1 AND org = $2 FOR UPDATE", id, org).Scan(&l.Name, &l.UniverseID)
		if errors.Is(err, pgx.ErrNoRows) {
			return fmt.Errorf("location %s: %w", id, gatehouse.ErrNotFound)
		}
		if err != nil {
			return err
		}
		var h gatehouse.History
		if err := tx.QueryRow(ctx, `SELECT
			(SELECT count(*) FROM access_points WHERE org = $1 AND location_id = $2),
			(SELECT count(*) FROM (SELECT 1 FROM events e WHERE e.org = $1 AND e.location = `+valueKey(kindLocation, "$2::uuid::text")+` LIMIT $3) e),
			(SELECT count(*) FROM (SELECT 1 FROM commands WHERE org = $1 AND location_id = $2 AND lockdown_id IS NULL LIMIT $3) c),
			(SELECT count(*) FROM (SELECT 1 FROM lockdowns WHERE org = $1 AND location_id = $2 LIMIT $3) d)`,
			org, id, gatehouse.MaxHistoryCount).Scan(&h.AccessPoints, &h.Events, &h.Commands, &h.Lockdowns); err != nil {
			return err
		}
		if err := h.Deletable("location", l.Name); err != nil {
			return err
		}
		tag, err := tx.Exec(ctx, "DELETE FROM grants WHERE org = $1 AND location_id = $2", org, id)
		if err != nil {
			return err
		}
		if tag.RowsAffected() > 0 {
			if err := notifyWake(ctx, tx, gatehouse.Wake{OrgID: orgID}); err != nil {
				return err
			}
		}
		if _, err := tx.Exec(ctx, "DELETE FROM locations WHERE id = $1 AND org = $2", id, org); err != nil {
			return err
		}
		return db.appendAudit(ctx, tx, org, sqlstore.LocationDeletedEntry(e, l, int(tag.RowsAffected())))
	})
}

// DeleteAccessPoint deletes an access point of an organization that
// nothing names, with its policy versions, and takes it off its grants.
// The access point's row is locked first (FOR UPDATE), then its history
// read in a statement of its own: an ingest or a remote unlock, which
// holds the rows of the access points it stores events of (FOR KEY
// SHARE) until it commits, either committed before, and its events are
// counted, or waits and then finds the access point gone (ingest.go).
func (db *DB) DeleteAccessPoint(ctx context.Context, e gatehouse.AuditEntry, orgID, id uuid.UUID) (err error) {
	defer sqlstore.Label(&err, "Store.DeleteAccessPoint", orgID, id)
	org, err := db.orgSeq(ctx, db.pool, orgID)
	if err != nil {
		return err
	}
	return db.withTx(ctx, func(tx pgx.Tx) error {
		ap, err := lockAccessPointWhole(ctx, tx, org, id)
		if err != nil {
			return err
		}
		var h gatehouse.History
		if err := tx.QueryRow(ctx, `SELECT
			(SELECT count(*) FROM (SELECT 1 FROM events e WHERE e.org = $1 AND e.access_point = `+valueKey(kindAccessPoint, "$2::uuid::text")+` LIMIT $3) e),
			(SELECT count(*) FROM (SELECT 1 FROM commands WHERE org = $1 AND access_point_id = $2 LIMIT $3) c)`,
			org, id, gatehouse.MaxHistoryCount).Scan(&h.Events, &h.Commands); err != nil {
			return err
		}
		if err := h.Deletable("access point", ap.Name); err != nil {
			return err
		}
		versions, err := tx.Exec(ctx, "DELETE FROM policies WHERE org = $1 AND access_point_id = $2", org, id)
		if err != nil {
			return err
		}
		// The grants that list it lose it from their list; one left with
		// none is deleted.
		grants, err := tx.Exec(ctx, `UPDATE grants SET access_point_ids = array_remove(access_point_ids, $2)
			WHERE org = $1 AND id IN (SELECT grant_id FROM grant_access_points WHERE org = $1 AND access_point_id = $2)`, org, id)
		if err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `DELETE FROM grants WHERE org = $1 AND location_id IS NULL AND access_point_ids = '{}'
			AND id IN (SELECT grant_id FROM grant_access_points WHERE org = $1 AND access_point_id = $2)`, org, id); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, "DELETE FROM grant_access_points WHERE org = $1 AND access_point_id = $2", org, id); err != nil {
			return err
		}
		if grants.RowsAffected() > 0 {
			if err := notifyWake(ctx, tx, gatehouse.Wake{OrgID: orgID}); err != nil {
				return err
			}
		}
		if _, err := tx.Exec(ctx, "DELETE FROM access_points WHERE id = $1 AND org = $2", id, org); err != nil {
			return err
		}
		return db.appendAudit(ctx, tx, org, sqlstore.AccessPointDeletedEntry(e, orgID, ap,
			int(versions.RowsAffected()), int(grants.RowsAffected())))
	})
}
