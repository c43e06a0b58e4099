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

// RenameAccessPoint renames an access point of an organization.
func (db *DB) RenameAccessPoint(ctx context.Context, e gatehouse.AuditEntry, orgID, id uuid.UUID, name string) (_ gatehouse.AccessPoint, err error) {
	defer sqlstore.Label(&err, "Store.RenameAccessPoint", orgID, id)
	name, err = gatehouse.CheckName("name", name)
	if err != nil {
		return gatehouse.AccessPoint{}, err
	}
	org, err := db.orgSeq(ctx, db.pool, orgID)
	if err != nil {
		return gatehouse.AccessPoint{}, err
	}
	var ap gatehouse.AccessPoint
	err = db.withTx(ctx, func(tx pgx.Tx) error {
		if ap, err = lockAccessPoint(ctx, tx, org, id); err != nil || ap.Name == name {
			return err
		}
		if _, err := tx.Exec(ctx, "UPDATE access_points SET name = $1 WHERE id = $2 AND org = $3", name, id, org); err != nil {
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
	org, err := db.orgSeq(ctx, db.pool, orgID)
	if err != nil {
		return gatehouse.AccessPoint{}, err
	}
	var ap gatehouse.AccessPoint
	err = db.withTx(ctx, func(tx pgx.Tx) error {
		if ap, err = lockAccessPoint(ctx, tx, org, id); err != nil {
			return err
		}
		// The location is read in the transaction (FOR SHARE) so that it
		// cannot vanish between the check and the update.
		var n int
		if err := tx.QueryRow(ctx, "SELECT count(*) FROM (SELECT 1 FROM locations WHERE id = $1 AND org = $2 FOR SHARE) l", locationID, org).Scan(&n); err != nil {
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
		if to != from {
			if err := lockUniverse(ctx, tx, org, to); err != nil {
				return err
			}
		}
		if _, err := tx.Exec(ctx, "UPDATE access_points SET location_id = $1 WHERE id = $2 AND org = $3", locationID, id, org); err != nil {
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

// lockAccessPoint reads the organization's access point for update, or
// returns ErrNotFound.
func lockAccessPoint(ctx context.Context, tx pgx.Tx, org int64, id uuid.UUID) (gatehouse.AccessPoint, error) {
	var (
		ap gatehouse.AccessPoint
		at time.Time
	)
	err := tx.QueryRow(ctx, "SELECT id, location_id, name, created_at FROM access_points WHERE id = $1 AND org = $2 FOR UPDATE", id, org).
		Scan(&ap.ID, &ap.LocationID, &ap.Name, &at)
	if errors.Is(err, pgx.ErrNoRows) {
		return ap, fmt.Errorf("access point %s: %w", id, gatehouse.ErrNotFound)
	}
	ap.CreatedAt = gatehouse.Time(at.UTC())
	return ap, err
}
