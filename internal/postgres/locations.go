package postgres

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/gatehouse/gatehouse"
	"github.com/gatehouse/gatehouse/internal/sqlstore"
	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
)

// CreateLocation stores a location of an organization.
func (db *DB) CreateLocation(ctx context.Context, e gatehouse.AuditEntry, orgID uuid.UUID, name string) (_ gatehouse.Location, err error) {
	defer sqlstore.Label(&err, "Store.CreateLocation", orgID)
	l, err := sqlstore.NewLocation(orgID, name, db.Now())
	if err != nil {
		return l, err
	}
	org, err := db.orgSeq(ctx, db.pool, orgID)
	if err != nil {
		return l, err
	}
	return l, db.withTx(ctx, func(tx pgx.Tx) error {
		_, err := tx.Exec(ctx, "INSERT INTO locations (id, org, name, created_at) VALUES ($1, $2, $3, $4)", l.ID, org, l.Name, time.Time(l.CreatedAt))
		if err != nil {
			return err
		}
		return db.appendAudit(ctx, tx, org, e.Of(orgID, gatehouse.AuditTarget{Type: gatehouse.TargetLocation, ID: l.ID, Name: l.Name}))
	})
}

// RenameLocation renames a location of an organization.
func (db *DB) RenameLocation(ctx context.Context, e gatehouse.AuditEntry, orgID, id uuid.UUID, name string) (_ gatehouse.Location, err error) {
	defer sqlstore.Label(&err, "Store.RenameLocation", orgID, id)
	name, err = gatehouse.CheckName("name", name)
	if err != nil {
		return gatehouse.Location{}, err
	}
	org, err := db.orgSeq(ctx, db.pool, orgID)
	if err != nil {
		return gatehouse.Location{}, err
	}
	err = db.withTx(ctx, func(tx pgx.Tx) error {
		var old string
		err := tx.QueryRow(ctx, "SELECT name FROM locations WHERE id = $1 AND org = $2 FOR UPDATE", id, org).Scan(&old)
		if errors.Is(err, pgx.ErrNoRows) {
			return fmt.Errorf("location %s: %w", id, gatehouse.ErrNotFound)
		}
		// An unchanged name returns here, before the UPDATE and the audit;
		// SQLite runs the UPDATE anyway (the same name), so both end alike.
		if err != nil || old == name {
			return err
		}
		if _, err := tx.Exec(ctx, "UPDATE locations SET name = $1 WHERE id = $2 AND org = $3", name, id, org); err != nil {
			return err
		}
		return db.appendAudit(ctx, tx, org, e.Of(orgID, gatehouse.AuditTarget{Type: gatehouse.TargetLocation, ID: id, Name: name}).Change("name", old, name))
	})
	if err != nil {
		return gatehouse.Location{}, err
	}
	// Read after the commit, so a change committed meanwhile shows; SQLite
	// reads the location inside its transaction, as it wrote it.
	return db.findLocation(ctx, orgID, id)
}

// FindLocation returns a location of an organization with its access points.
func (db *DB) FindLocation(ctx context.Context, orgID, id uuid.UUID) (_ gatehouse.Location, err error) {
	defer sqlstore.Label(&err, "Store.FindLocation", orgID, id)
	return db.findLocation(ctx, orgID, id)
}

// findLocation is [DB.FindLocation] without its label, for the methods
// that return a location they changed under their own.
func (db *DB) findLocation(ctx context.Context, orgID, id uuid.UUID) (gatehouse.Location, error) {
	org, err := db.orgSeq(ctx, db.pool, orgID)
	if err != nil {
		return gatehouse.Location{}, err
	}
	rows, _ := db.pool.Query(ctx, "SELECT "+locationColumns+" FROM locations WHERE id = $1 AND org = $2", id, org)
	locs, err := pgx.CollectRows(rows, scanLocation)
	if err != nil {
		return gatehouse.Location{}, wrap(err)
	}
	if len(locs) == 0 {
		return gatehouse.Location{}, fmt.Errorf("location %s: %w", id, gatehouse.ErrNotFound)
	}
	locs[0].OrgID = orgID
	return locs[0], wrap(db.attachAccessPoints(ctx, db.pool, locs, true))
}

// CreateAccessPoint stores an access point under a location of the organization.
func (db *DB) CreateAccessPoint(ctx context.Context, e gatehouse.AuditEntry, orgID, locationID uuid.UUID, name string) (_ gatehouse.AccessPoint, err error) {
	defer sqlstore.Label(&err, "Store.CreateAccessPoint", orgID, locationID)
	ap, err := sqlstore.NewAccessPoint(locationID, name, db.Now())
	if err != nil {
		return ap, err
	}
	org, err := db.orgSeq(ctx, db.pool, orgID)
	if err != nil {
		return ap, err
	}
	// Inserting through a SELECT of the organization's location makes a
	// foreign location insert nothing. The SELECT holds the location's row
	// (FOR KEY SHARE, as the foreign key would): a location deleted
	// meanwhile (DeleteLocation) inserts nothing either, rather than
	// failing the foreign key.
	return ap, db.withTx(ctx, func(tx pgx.Tx) error {
		universe, err := locationUniverse(ctx, tx, org, locationID)
		if err != nil {
			return err
		}
		if err := lockUniverse(ctx, tx, org, universe); err != nil {
			return err
		}
		tag, err := tx.Exec(ctx, `INSERT INTO access_points (id, org, location_id, name, created_at)
			SELECT $1, $2, id, $3, $4 FROM locations WHERE id = $5 AND org = $2 FOR KEY SHARE`, ap.ID, org, ap.Name, time.Time(ap.CreatedAt), locationID)
		if err != nil {
			return err
		}
		if tag.RowsAffected() == 0 {
			return fmt.Errorf("location %s: %w", locationID, gatehouse.ErrNotFound)
		}
		if err := checkUniverse(ctx, tx, org, universe, true, false); err != nil {
			return err
		}
		return db.appendAudit(ctx, tx, org, e.Of(orgID, gatehouse.AuditTarget{Type: gatehouse.TargetAccessPoint, ID: ap.ID, Name: ap.Name}))
	})
}

// ListLocations returns a page of an organization's locations by name
// then id: those of within only when it is not nil.
func (db *DB) ListLocations(ctx context.Context, orgID uuid.UUID, limit int, after *gatehouse.LocationKey, withArchived bool, within gatehouse.Reach) (_ []gatehouse.Location, _ *gatehouse.LocationKey, err error) {
	defer sqlstore.Label(&err, "Store.ListLocations", orgID)
	org, err := db.orgSeq(ctx, db.pool, orgID)
	if errors.Is(err, gatehouse.ErrNotFound) {
		return []gatehouse.Location{}, nil, nil
	}
	if err != nil {
		return nil, nil, err
	}
	query := `SELECT ` + locationColumns + ` FROM locations WHERE org = $1`
	args := []any{org, limit + 1}
	if !withArchived {
		query += ` AND archived_at IS NULL`
	}
	if after != nil {
		query += ` AND (name COLLATE "C", id) > ($3, $4)`
		args = append(args, after.Name, after.ID)
	}
	if within != nil {
		args = append(args, []uuid.UUID(within))
		query += ` AND id = ANY($` + strconv.Itoa(len(args)) + `::uuid[])`
	}
	rows, _ := db.replica.Query(ctx, query+` ORDER BY name COLLATE "C", id LIMIT $2`, args...)
	locs, err := pgx.CollectRows(rows, scanLocation)
	if err != nil {
		return nil, nil, wrap(err)
	}
	if locs == nil {
		locs = []gatehouse.Location{}
	}
	locs, next := sqlstore.LocationPage(locs, limit, orgID)
	return locs, next, wrap(db.attachAccessPoints(ctx, db.replica, locs, withArchived))
}

const locationColumns = `id, name, universe_id, created_at, archived_at`

func scanLocation(row pgx.CollectableRow) (gatehouse.Location, error) {
	l := gatehouse.Location{AccessPoints: []gatehouse.AccessPoint{}}
	var (
		at       time.Time
		archived *time.Time
	)
	err := row.Scan(&l.ID, &l.Name, &l.UniverseID, &at, &archived)
	l.CreatedAt, l.ArchivedAt = gatehouse.Time(at.UTC()), optTime(archived)
	return l, err
}

// attachAccessPoints fills in the access points of locs in one query:
// archived ones too when withArchived.
func (db *DB) attachAccessPoints(ctx context.Context, q querier, locs []gatehouse.Location, withArchived bool) error {
	if len(locs) == 0 {
		return nil
	}
	ids := make([]uuid.UUID, len(locs))
	for i, l := range locs {
		ids[i] = l.ID
	}
	archived := ""
	if !withArchived {
		archived = " AND archived_at IS NULL"
	}
	rows, _ := q.Query(ctx, `SELECT id, location_id, name, created_at, archived_at FROM access_points
		WHERE location_id = ANY($1)`+archived+` ORDER BY name COLLATE "C", id`, ids)
	aps, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (gatehouse.AccessPoint, error) {
		var (
			ap       gatehouse.AccessPoint
			at       time.Time
			archived *time.Time
		)
		err := row.Scan(&ap.ID, &ap.LocationID, &ap.Name, &at, &archived)
		ap.CreatedAt, ap.ArchivedAt = gatehouse.Time(at.UTC()), optTime(archived)
		return ap, err
	})
	sqlstore.AttachAccessPoints(locs, aps)
	return err
}
