package sqlite

import (
	"context"
	"database/sql"
	"time"

	"github.com/gatehouse/gatehouse"
	"github.com/gatehouse/gatehouse/internal/sqlstore"
	"github.com/google/uuid"
)

// SetLocationArchived archives (at set) or restores (at nil) a location
// of an organization.
func (db *DB) SetLocationArchived(ctx context.Context, e gatehouse.AuditEntry, orgID, id uuid.UUID, at *time.Time) (_ gatehouse.Location, err error) {
	defer sqlstore.Label(&err, "Store.SetLocationArchived", orgID, id)
	var l gatehouse.Location
	err = db.withTx(ctx, func(tx *sql.Tx) error {
		org, err := db.orgSeq(ctx, tx, orgID)
		if err != nil {
			return err
		}
		if l, err = findLocation(ctx, tx, org, orgID, id); err != nil || (l.ArchivedAt != nil) == (at != nil) {
			return err
		}
		if _, err := tx.ExecContext(ctx, "UPDATE locations SET archived_at = ? WHERE id = ? AND org = ?", optMillis(at), id[:], org); err != nil {
			return err
		}
		old := l.ArchivedAt
		if l, err = findLocation(ctx, tx, org, orgID, id); err != nil {
			return err
		}
		return db.appendAudit(ctx, tx, org, sqlstore.ArchiveEntry(e, orgID, gatehouse.TargetLocation, id, l.Name, old, l.ArchivedAt))
	})
	return l, err
}

// SetAccessPointArchived archives (at set) or restores (at nil) an access
// point of an organization.
func (db *DB) SetAccessPointArchived(ctx context.Context, e gatehouse.AuditEntry, orgID, id uuid.UUID, at *time.Time) (_ gatehouse.AccessPoint, err error) {
	defer sqlstore.Label(&err, "Store.SetAccessPointArchived", orgID, id)
	var ap gatehouse.AccessPoint
	err = db.withTx(ctx, func(tx *sql.Tx) error {
		org, err := db.orgSeq(ctx, tx, orgID)
		if err != nil {
			return err
		}
		if ap, err = findAccessPoint(ctx, tx, org, id); err != nil || (ap.ArchivedAt != nil) == (at != nil) {
			return err
		}
		if _, err := tx.ExecContext(ctx, "UPDATE access_points SET archived_at = ? WHERE id = ? AND org = ?", optMillis(at), id[:], org); err != nil {
			return err
		}
		old := ap.ArchivedAt
		if ap, err = findAccessPoint(ctx, tx, org, id); err != nil {
			return err
		}
		return db.appendAudit(ctx, tx, org, sqlstore.ArchiveEntry(e, orgID, gatehouse.TargetAccessPoint, id, ap.Name, old, ap.ArchivedAt))
	})
	return ap, err
}

// DeleteLocation deletes a location of an organization that nothing
// names, with its grants. SQLite's one writer runs it between whole
// transactions, so nothing can come to name the location between the
// read of its history and the delete.
func (db *DB) DeleteLocation(ctx context.Context, e gatehouse.AuditEntry, orgID, id uuid.UUID) (err error) {
	defer sqlstore.Label(&err, "Store.DeleteLocation", orgID, id)
	return db.withTx(ctx, func(tx *sql.Tx) error {
		org, err := db.orgSeq(ctx, tx, orgID)
		if err != nil {
			return err
		}
		l, err := findLocation(ctx, tx, org, orgID, id)
		if err != nil {
			return err
		}
		var h gatehouse.History
		if err := tx.QueryRowContext(ctx, `SELECT
			(SELECT count(*) FROM access_points WHERE org = ? AND location_id = ?),
			(SELECT count(*) FROM (SELECT 1 FROM events WHERE org = ? AND location_id = ? LIMIT ?)),
			(SELECT count(*) FROM (SELECT 1 FROM commands WHERE org = ? AND location_id = ? AND lockdown_id IS NULL LIMIT ?)),
			(SELECT count(*) FROM (SELECT 1 FROM lockdowns WHERE org = ? AND location_id = ? LIMIT ?))`,
			org, id[:], org, id[:], gatehouse.MaxHistoryCount, org, id[:], gatehouse.MaxHistoryCount, org, id[:], gatehouse.MaxHistoryCount,
		).Scan(&h.AccessPoints, &h.Events, &h.Commands, &h.Lockdowns); err != nil {
			return err
		}
		if err := h.Deletable("location", l.Name); err != nil {
			return err
		}
		res, err := tx.ExecContext(ctx, "DELETE FROM grants WHERE org = ? AND location_id = ?", org, id[:])
		if err != nil {
			return err
		}
		grants, _ := res.RowsAffected()
		if grants > 0 {
			if err := db.leaveWake(ctx, tx, gatehouse.Wake{OrgID: orgID}); err != nil {
				return err
			}
		}
		if _, err := tx.ExecContext(ctx, "DELETE FROM locations WHERE id = ? AND org = ?", id[:], org); err != nil {
			return err
		}
		return db.appendAudit(ctx, tx, org, sqlstore.LocationDeletedEntry(e, l, int(grants)))
	})
}

// DeleteAccessPoint deletes an access point of an organization that
// nothing names, with its policy versions, and takes it off its grants.
// As DeleteLocation, it runs between whole transactions of the one
// writer: an ingest or a remote unlock that names the access point either
// committed its events before the history is read, or runs after the
// delete and finds no such access point.
func (db *DB) DeleteAccessPoint(ctx context.Context, e gatehouse.AuditEntry, orgID, id uuid.UUID) (err error) {
	defer sqlstore.Label(&err, "Store.DeleteAccessPoint", orgID, id)
	return db.withTx(ctx, func(tx *sql.Tx) error {
		org, err := db.orgSeq(ctx, tx, orgID)
		if err != nil {
			return err
		}
		ap, err := findAccessPoint(ctx, tx, org, id)
		if err != nil {
			return err
		}
		var h gatehouse.History
		if err := tx.QueryRowContext(ctx, `SELECT
			(SELECT count(*) FROM (SELECT 1 FROM events WHERE org = ? AND access_point_id = ? LIMIT ?)),
			(SELECT count(*) FROM (SELECT 1 FROM commands WHERE org = ? AND access_point_id = ? LIMIT ?))`,
			org, id[:], gatehouse.MaxHistoryCount, org, id[:], gatehouse.MaxHistoryCount).Scan(&h.Events, &h.Commands); err != nil {
			return err
		}
		if err := h.Deletable("access point", ap.Name); err != nil {
			return err
		}
		res, err := tx.ExecContext(ctx, "DELETE FROM policies WHERE org = ? AND access_point_id = ?", org, id[:])
		if err != nil {
			return err
		}
		versions, _ := res.RowsAffected()
		// The grants that list it lose it from their list; one left with
		// none is deleted.
		listed := "SELECT grant_id FROM grant_access_points WHERE org = ? AND access_point_id = ?"
		res, err = tx.ExecContext(ctx, `UPDATE grants SET access_point_ids =
			(SELECT json_group_array(j.value) FROM json_each(grants.access_point_ids) j WHERE j.value <> ?)
			WHERE org = ? AND id IN (`+listed+`)`, id.String(), org, org, id[:])
		if err != nil {
			return err
		}
		grants, _ := res.RowsAffected()
		if _, err := tx.ExecContext(ctx, `DELETE FROM grants WHERE org = ? AND location_id IS NULL AND access_point_ids = '[]'
			AND id IN (`+listed+`)`, org, org, id[:]); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, "DELETE FROM grant_access_points WHERE org = ? AND access_point_id = ?", org, id[:]); err != nil {
			return err
		}
		if grants > 0 {
			if err := db.leaveWake(ctx, tx, gatehouse.Wake{OrgID: orgID}); err != nil {
				return err
			}
		}
		if _, err := tx.ExecContext(ctx, "DELETE FROM access_points WHERE id = ? AND org = ?", id[:], org); err != nil {
			return err
		}
		return db.appendAudit(ctx, tx, org, sqlstore.AccessPointDeletedEntry(e, orgID, ap, int(versions), int(grants)))
	})
}
