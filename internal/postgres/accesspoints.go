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
		if ap, err = lockAccessPointWhole(ctx, tx, org, id); err != nil {
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
	return scanAccessPoint(tx.QueryRow(ctx, accessPointSelect+" WHERE a.id = $1 AND a.org = $2 FOR NO KEY UPDATE OF a", id, org), id)
}

// lockAccessPointWhole is lockAccessPoint for a change that ingest must
// not write past: a move (its events name the location) or a delete. FOR
// UPDATE waits for the batches that hold the access point (FOR KEY SHARE,
// holdDoors) and holds new ones back; lockAccessPoint's FOR NO KEY
// UPDATE, for a rename, a policy or an archive, waits for neither.
func lockAccessPointWhole(ctx context.Context, tx pgx.Tx, org int64, id uuid.UUID) (gatehouse.AccessPoint, error) {
	return scanAccessPoint(tx.QueryRow(ctx, accessPointSelect+" WHERE a.id = $1 AND a.org = $2 FOR UPDATE OF a", id, org), id)
}

// accessPointSelect reads an access point (alias a) with whether its
// location is archived, as scanAccessPoint scans it.
const accessPointSelect = `SELECT a.id, a.location_id, a.name, a.created_at, a.archived_at, l.archived_at IS NOT NULL
	FROM access_points a JOIN locations l ON l.id = a.location_id`

// scanAccessPoint scans the row of accessPointSelect of the access point
// id, or returns ErrNotFound.
func scanAccessPoint(row pgx.Row, id uuid.UUID) (gatehouse.AccessPoint, error) {
	var (
		ap       gatehouse.AccessPoint
		at       time.Time
		archived *time.Time
	)
	err := row.Scan(&ap.ID, &ap.LocationID, &ap.Name, &at, &archived, &ap.LocationArchived)
	if errors.Is(err, pgx.ErrNoRows) {
		return ap, fmt.Errorf("access point %s: %w", id, gatehouse.ErrNotFound)
	}
	ap.CreatedAt, ap.ArchivedAt = gatehouse.Time(at.UTC()), optTime(archived)
	return ap, err
}
