package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/gatehouse/gatehouse"
	"github.com/gatehouse/gatehouse/internal/sqlstore"
	"github.com/google/uuid"
)

// CreateLocation stores a location of an organization.
func (db *DB) CreateLocation(ctx context.Context, e gatehouse.AuditEntry, orgID uuid.UUID, name string) (_ gatehouse.Location, err error) {
	defer sqlstore.Label(&err, "Store.CreateLocation", orgID)
	l, err := sqlstore.NewLocation(orgID, name, db.Now())
	if err != nil {
		return l, err
	}
	err = db.withTx(ctx, func(tx *sql.Tx) error {
		org, err := db.orgSeq(ctx, tx, orgID)
		if err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, "INSERT INTO locations (id, org, name, created_at) VALUES (?, ?, ?, ?)",
			l.ID[:], org, l.Name, millis(time.Time(l.CreatedAt)))
		if err != nil {
			return err
		}
		return db.appendAudit(ctx, tx, org, e.Of(orgID, gatehouse.AuditTarget{Type: gatehouse.TargetLocation, ID: l.ID, Name: l.Name}))
	})
	return l, err
}

// RenameLocation renames a location of an organization.
func (db *DB) RenameLocation(ctx context.Context, e gatehouse.AuditEntry, orgID, id uuid.UUID, name string) (_ gatehouse.Location, err error) {
	defer sqlstore.Label(&err, "Store.RenameLocation", orgID, id)
	name, err = gatehouse.CheckName("name", name)
	if err != nil {
		return gatehouse.Location{}, err
	}
	var l gatehouse.Location
	err = db.withTx(ctx, func(tx *sql.Tx) error {
		org, err := db.orgSeq(ctx, tx, orgID)
		if err != nil {
			return err
		}
		var old string
		err = tx.QueryRowContext(ctx, "SELECT name FROM locations WHERE id = ? AND org = ?", id[:], org).Scan(&old)
		if errors.Is(err, sql.ErrNoRows) {
			return fmt.Errorf("location %s: %w", id, gatehouse.ErrNotFound)
		}
		if err != nil {
			return err
		}
		// Unlike PostgreSQL, which returns early on an unchanged name, the
		// UPDATE runs anyway: it writes the same name, and no audit follows.
		if _, err := tx.ExecContext(ctx, "UPDATE locations SET name = ? WHERE id = ? AND org = ?", name, id[:], org); err != nil {
			return err
		}
		if l, err = findLocation(ctx, tx, org, orgID, id); err != nil || old == name {
			return err
		}
		return db.appendAudit(ctx, tx, org, e.Of(orgID, gatehouse.AuditTarget{Type: gatehouse.TargetLocation, ID: id, Name: name}).Change("name", old, name))
	})
	return l, err
}

// FindLocation returns a location of an organization with its access points.
func (db *DB) FindLocation(ctx context.Context, orgID, id uuid.UUID) (_ gatehouse.Location, err error) {
	defer sqlstore.Label(&err, "Store.FindLocation", orgID, id)
	org, err := db.orgSeq(ctx, db.read, orgID)
	if err != nil {
		return gatehouse.Location{}, err
	}
	l, err := findLocation(ctx, db.read, org, orgID, id)
	return l, wrap(err)
}

func findLocation(ctx context.Context, q querier, org int64, orgID, id uuid.UUID) (gatehouse.Location, error) {
	rows, err := q.QueryContext(ctx, "SELECT "+locationColumns+" FROM locations WHERE id = ? AND org = ?", id[:], org)
	if err != nil {
		return gatehouse.Location{}, err
	}
	locs, err := scanLocations(rows)
	if err != nil {
		return gatehouse.Location{}, err
	}
	if len(locs) == 0 {
		return gatehouse.Location{}, fmt.Errorf("location %s: %w", id, gatehouse.ErrNotFound)
	}
	locs[0].OrgID = orgID
	if err := attachAccessPoints(ctx, q, locs, true); err != nil {
		return gatehouse.Location{}, err
	}
	return locs[0], nil
}

// CreateAccessPoint stores an access point under a location of the organization.
func (db *DB) CreateAccessPoint(ctx context.Context, e gatehouse.AuditEntry, orgID, locationID uuid.UUID, name string) (_ gatehouse.AccessPoint, err error) {
	defer sqlstore.Label(&err, "Store.CreateAccessPoint", orgID, locationID)
	ap, err := sqlstore.NewAccessPoint(locationID, name, db.Now())
	if err != nil {
		return ap, err
	}
	err = db.withTx(ctx, func(tx *sql.Tx) error {
		org, err := db.orgSeq(ctx, tx, orgID)
		if err != nil {
			return err
		}
		var n int
		if err := tx.QueryRowContext(ctx, "SELECT count(*) FROM locations WHERE id = ? AND org = ?", locationID[:], org).Scan(&n); err != nil {
			return err
		}
		if n == 0 {
			return fmt.Errorf("location %s: %w", locationID, gatehouse.ErrNotFound)
		}
		_, err = tx.ExecContext(ctx, "INSERT INTO access_points (id, org, location_id, name, created_at) VALUES (?, ?, ?, ?, ?)",
			ap.ID[:], org, locationID[:], ap.Name, millis(time.Time(ap.CreatedAt)))
		if err != nil {
			return err
		}
		universe, err := locationUniverse(ctx, tx, org, locationID)
		if err != nil {
			return err
		}
		if err := checkUniverse(ctx, tx, org, universe, true, false); err != nil {
			return err
		}
		return db.appendAudit(ctx, tx, org, e.Of(orgID, gatehouse.AuditTarget{Type: gatehouse.TargetAccessPoint, ID: ap.ID, Name: ap.Name}))
	})
	return ap, err
}

// ListLocations returns a page of an organization's locations by name
// then id: those of within only when it is not nil.
func (db *DB) ListLocations(ctx context.Context, orgID uuid.UUID, limit int, after *gatehouse.LocationKey, withArchived bool, within gatehouse.Reach) (_ []gatehouse.Location, _ *gatehouse.LocationKey, err error) {
	defer sqlstore.Label(&err, "Store.ListLocations", orgID)
	org, err := db.orgSeq(ctx, db.read, orgID)
	if errors.Is(err, gatehouse.ErrNotFound) {
		return []gatehouse.Location{}, nil, nil
	}
	if err != nil {
		return nil, nil, err
	}
	query := "SELECT " + locationColumns + " FROM locations WHERE org = ?"
	args := []any{org}
	if !withArchived {
		query += " AND archived_at IS NULL"
	}
	if within != nil {
		cond, ids := inLocations("id", within)
		query, args = query+" AND "+cond, append(args, ids...)
	}
	if after != nil {
		query += " AND (name, id) > (?, ?)"
		args = append(args, after.Name, after.ID[:])
	}
	query += " ORDER BY name, id LIMIT ?"
	args = append(args, limit+1)
	rows, err := db.read.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, nil, wrap(err)
	}
	locs, err := scanLocations(rows)
	if err != nil {
		return nil, nil, wrap(err)
	}
	locs, next := sqlstore.LocationPage(locs, limit, orgID)
	return locs, next, wrap(attachAccessPoints(ctx, db.read, locs, withArchived))
}

// inLocations is the condition that column, a location id, is one of
// within's, with its arguments: one placeholder per id. An empty within
// matches nothing, never everything.
func inLocations(column string, within gatehouse.Reach) (string, []any) {
	if len(within) == 0 {
		return "0", nil
	}
	args := make([]any, len(within))
	for i, id := range within {
		args[i] = id[:]
	}
	return column + " IN (?" + strings.Repeat(", ?", len(within)-1) + ")", args
}

// locationColumns are what scanLocations reads.
const locationColumns = "id, name, universe_id, created_at, archived_at"

func scanLocations(rows *sql.Rows) ([]gatehouse.Location, error) {
	defer rows.Close()
	locs := []gatehouse.Location{}
	for rows.Next() {
		var (
			l        = gatehouse.Location{AccessPoints: []gatehouse.AccessPoint{}}
			universe sql.NullString
			ms       int64
			archived sql.NullInt64
		)
		if err := rows.Scan(&l.ID, &l.Name, &universe, &ms, &archived); err != nil {
			return nil, err
		}
		l.UniverseID, l.ArchivedAt = fromOptString(universe), optTime(archived)
		l.CreatedAt = gatehouse.Time(fromMillis(ms))
		locs = append(locs, l)
	}
	return locs, rows.Err()
}

// attachAccessPoints fills in the access points of locs in one query:
// archived ones too when withArchived.
func attachAccessPoints(ctx context.Context, q querier, locs []gatehouse.Location, withArchived bool) error {
	if len(locs) == 0 {
		return nil
	}
	args := make([]any, len(locs))
	for i, l := range locs {
		args[i] = l.ID[:]
	}
	archived := ""
	if !withArchived {
		archived = " AND archived_at IS NULL"
	}
	rows, err := q.QueryContext(ctx, `SELECT id, location_id, name, created_at, archived_at FROM access_points
		WHERE location_id IN (?`+strings.Repeat(", ?", len(locs)-1)+`)`+archived+` ORDER BY name, id`, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	var aps []gatehouse.AccessPoint
	for rows.Next() {
		var (
			ap gatehouse.AccessPoint
			ms int64
			at sql.NullInt64
		)
		if err := rows.Scan(&ap.ID, &ap.LocationID, &ap.Name, &ms, &at); err != nil {
			return err
		}
		ap.CreatedAt, ap.ArchivedAt = gatehouse.Time(fromMillis(ms)), optTime(at)
		aps = append(aps, ap)
	}
	sqlstore.AttachAccessPoints(locs, aps)
	return rows.Err()
}
