package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/gatehouse/gatehouse"
	"github.com/gatehouse/gatehouse/internal/sqlstore"
	"github.com/google/uuid"
)

// RenameAccessPoint renames an access point of an organization.
func (db *DB) RenameAccessPoint(ctx context.Context, e gatehouse.AuditEntry, orgID, id uuid.UUID, name string) (_ gatehouse.AccessPoint, err error) {
	defer sqlstore.Label(&err, "Store.RenameAccessPoint", orgID, id)
	name, err = gatehouse.CheckName("name", name)
	if err != nil {
		return gatehouse.AccessPoint{}, err
	}
	var ap gatehouse.AccessPoint
	err = db.withTx(ctx, func(tx *sql.Tx) error {
		org, err := db.orgSeq(ctx, tx, orgID)
		if err != nil {
			return err
		}
		if ap, err = findAccessPoint(ctx, tx, org, id); err != nil || ap.Name == name {
			return err
		}
		if _, err := tx.ExecContext(ctx, "UPDATE access_points SET name = ? WHERE id = ? AND org = ?", name, id[:], org); err != nil {
			return err
		}
		old := ap.Name
		ap.Name = name
		return db.appendAudit(ctx, tx, org, e.Of(orgID, gatehouse.AuditTarget{Type: gatehouse.TargetAccessPoint, ID: id, Name: name}).Change("name", old, name))
	})
	return ap, err
}

// MoveAccessPoint re-homes an access point under another location of the
// same organization.
func (db *DB) MoveAccessPoint(ctx context.Context, e gatehouse.AuditEntry, orgID, id, locationID uuid.UUID) (_ gatehouse.AccessPoint, err error) {
	defer sqlstore.Label(&err, "Store.MoveAccessPoint", orgID, id, locationID)
	var ap gatehouse.AccessPoint
	err = db.withTx(ctx, func(tx *sql.Tx) error {
		org, err := db.orgSeq(ctx, tx, orgID)
		if err != nil {
			return err
		}
		if ap, err = findAccessPoint(ctx, tx, org, id); err != nil {
			return err
		}
		var n int
		if err := tx.QueryRowContext(ctx, "SELECT count(*) FROM locations WHERE id = ? AND org = ?", locationID[:], org).Scan(&n); err != nil {
			return err
		}
		if n == 0 {
			return fmt.Errorf("location %s: %w", locationID, gatehouse.ErrNotFound)
		}
		if ap.LocationID == locationID {
			return nil
		}
		from, err := locationUniverse(ctx, tx, org, ap.LocationID)
		if err != nil {
			return err
		}
		to, err := locationUniverse(ctx, tx, org, locationID)
		if err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, "UPDATE access_points SET location_id = ? WHERE id = ? AND org = ?", locationID[:], id[:], org); err != nil {
			return err
		}
		if err := checkUniverse(ctx, tx, org, to, to != from, to != from); err != nil {
			return err
		}
		old := ap.LocationID
		ap.LocationID = locationID
		return db.appendAudit(ctx, tx, org, e.Of(orgID, gatehouse.AuditTarget{Type: gatehouse.TargetAccessPoint, ID: id, Name: ap.Name}).
			Change("locationId", old.String(), locationID.String()))
	})
	return ap, err
}

// findAccessPoint returns the organization's access point, or ErrNotFound.
func findAccessPoint(ctx context.Context, q querier, org int64, id uuid.UUID) (gatehouse.AccessPoint, error) {
	var (
		ap               gatehouse.AccessPoint
		ms               int64
		at               sql.NullInt64
		locationArchived bool
	)
	err := q.QueryRowContext(ctx, `SELECT a.id, a.location_id, a.name, a.created_at, a.archived_at, l.archived_at IS NOT NULL
		FROM access_points a JOIN locations l ON l.id = a.location_id WHERE a.id = ? AND a.org = ?`, id[:], org).
		Scan(&ap.ID, &ap.LocationID, &ap.Name, &ms, &at, &locationArchived)
	if errors.Is(err, sql.ErrNoRows) {
		return ap, fmt.Errorf("access point %s: %w", id, gatehouse.ErrNotFound)
	}
	ap.CreatedAt, ap.ArchivedAt, ap.LocationArchived = gatehouse.Time(fromMillis(ms)), optTime(at), locationArchived
	return ap, err
}
