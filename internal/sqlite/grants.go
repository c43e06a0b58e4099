package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/gatehouse/gatehouse"
	"github.com/gatehouse/gatehouse/internal/sqlstore"
	"github.com/google/uuid"
)

// grantColumns are what scanGrant reads: the grant and who created it.
const grantColumns = `g.id, g.platform_user_id, g.access_point_ids, g.location_id, g.from_at, g.until_at, g.revoked_at,
	g.note, g.source_type, g.receipt_id, g.created_at,
	g.created_by, coalesce(u.email, ''), coalesce(u.name, ''), g.created_by_key, coalesce(k.name, ''), coalesce(k.prefix, '')`

// grantJoins follow FROM grants g.
const grantJoins = `
	LEFT JOIN users u ON u.id = g.created_by
	LEFT JOIN api_keys k ON k.id = g.created_by_key`

func scanGrant(rows interface{ Scan(...any) error }, orgID uuid.UUID) (gatehouse.Grant, error) {
	var (
		g                    = gatehouse.Grant{OrgID: orgID}
		aps                  string
		from, until, created int64
		revoked              sql.NullInt64
		note, receipt        sql.NullString
		by                   sqlstore.Creator
	)
	err := rows.Scan(&g.ID, &g.PlatformUserID, &aps, &g.LocationID, &from, &until, &revoked, &note, &g.Source.Type, &receipt, &created,
		&by.User, &by.Email, &by.Name, &by.Key, &by.KeyName, &by.KeyPrefix)
	if err != nil {
		return g, err
	}
	if err := json.Unmarshal([]byte(aps), &g.AccessPointIDs); err != nil {
		return g, err
	}
	g.Note, g.Source.ReceiptID = fromOptString(note), fromOptString(receipt)
	sqlstore.FillGrant(&g, fromMillis(from), fromMillis(until), fromMillis(created), fromOptMillis(revoked), by)
	return g, nil
}

// CreateGrant stores an organization's grant, or returns the one of its
// receipt id.
func (db *DB) CreateGrant(ctx context.Context, e gatehouse.AuditEntry, g gatehouse.NewGrant) (_ gatehouse.Grant, created bool, err error) {
	defer sqlstore.Label(&err, "Store.CreateGrant", g.OrgID)
	var id uuid.UUID
	err = db.withTx(ctx, func(tx *sql.Tx) error {
		org, err := db.orgSeq(ctx, tx, g.OrgID)
		if err != nil {
			return err
		}
		aps, err := json.Marshal(g.AccessPointIDs)
		if err != nil {
			return err
		}
		res, err := tx.ExecContext(ctx, `INSERT INTO grants (id, org, platform_user_id, access_point_ids, location_id,
			from_at, until_at, note, source_type, receipt_id, created_at, created_by, created_by_key)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (org, receipt_id) DO NOTHING`,
			g.ID[:], org, g.PlatformUserID, string(aps), optUUID(g.LocationID),
			millis(time.Time(g.From)), millis(time.Time(g.Until)), optString(g.Note), string(g.Source.Type), optString(g.Source.ReceiptID),
			millis(time.Time(g.CreatedAt)), optUUID(g.CreatedByUser), optUUID(g.CreatedByKeyID))
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil || n == 0 {
			if err != nil {
				return err
			}
			return tx.QueryRowContext(ctx, "SELECT id FROM grants WHERE org = ? AND receipt_id = ?", org, *g.Source.ReceiptID).Scan(&id)
		}
		id, created = g.ID, true
		if err := grantTargetsExist(ctx, tx, org, g); err != nil {
			return err
		}
		for _, ap := range g.AccessPointIDs {
			if _, err := tx.ExecContext(ctx, "INSERT INTO grant_access_points (org, access_point_id, grant_id) VALUES (?, ?, ?)",
				org, ap[:], g.ID[:]); err != nil {
				return err
			}
		}
		return db.grantChanged(ctx, tx, org, g.Wakes, e.Of(g.OrgID, sqlstore.GrantTarget(g.ID, g.PlatformUserID)))
	})
	if err != nil {
		return gatehouse.Grant{}, false, err
	}
	out, err := db.findGrant(ctx, db.read, g.OrgID, id)
	return out, created, err
}

// grantChanged ends a grant's change in tx: it wakes the syncs of the
// servers that host the grant's player and records e.
func (db *DB) grantChanged(ctx context.Context, tx *sql.Tx, org int64, wakes []gatehouse.Wake, e gatehouse.AuditEntry) error {
	for _, w := range wakes {
		if err := db.leaveWake(ctx, tx, w); err != nil {
			return err
		}
	}
	return db.appendAudit(ctx, tx, org, e)
}

// FindGrant returns an organization's grant.
func (db *DB) FindGrant(ctx context.Context, orgID, id uuid.UUID) (_ gatehouse.Grant, err error) {
	defer sqlstore.Label(&err, "Store.FindGrant", orgID, id)
	return db.findGrant(ctx, db.read, orgID, id)
}

func (db *DB) findGrant(ctx context.Context, q querier, orgID, id uuid.UUID) (gatehouse.Grant, error) {
	g, err := scanGrant(q.QueryRowContext(ctx, `SELECT `+grantColumns+` FROM grants g `+grantJoins+`
		JOIN organizations o ON o.seq = g.org WHERE o.id = ? AND g.id = ?`, orgID[:], id[:]), orgID)
	if errors.Is(err, sql.ErrNoRows) {
		return g, fmt.Errorf("grant %s: %w", id, gatehouse.ErrNotFound)
	}
	return g, wrap(err)
}

// ListGrants returns a page of an organization's grants, newest first.
func (db *DB) ListGrants(ctx context.Context, orgID uuid.UUID, f gatehouse.GrantFilter) (_ gatehouse.GrantPage, err error) {
	defer sqlstore.Label(&err, "Store.ListGrants", orgID)
	if err := f.Check(); err != nil {
		return gatehouse.GrantPage{}, err
	}
	org, err := db.orgSeq(ctx, db.read, orgID)
	if errors.Is(err, gatehouse.ErrNotFound) {
		return gatehouse.GrantPage{Grants: []gatehouse.Grant{}}, nil
	}
	if err != nil {
		return gatehouse.GrantPage{}, err
	}
	where, args := []string{"g.org = ?"}, []any{org}
	if f.PlatformUserID != nil {
		where, args = append(where, "g.platform_user_id = ?"), append(args, *f.PlatformUserID)
	}
	if f.ReceiptID != nil {
		where, args = append(where, "g.receipt_id = ?"), append(args, *f.ReceiptID)
	}
	if f.AccessPointID != nil {
		cond := "g.id IN (SELECT grant_id FROM grant_access_points WHERE org = ? AND access_point_id = ?)"
		args = append(args, org, f.AccessPointID[:])
		if f.LocationOf != nil {
			cond = "(" + cond + " OR g.location_id = ?)"
			args = append(args, f.LocationOf[:])
		}
		where = append(where, cond)
	}
	if f.Within != nil {
		cond, a := grantsWithin(f.Within)
		where, args = append(where, cond), append(args, a...)
	}
	if f.Active != nil {
		now := millis(f.Now)
		running := "(g.from_at <= ? AND g.until_at > ? AND (g.revoked_at IS NULL OR g.revoked_at > ?))"
		if !*f.Active {
			running = "NOT " + running
		}
		where, args = append(where, running), append(args, now, now, now)
	}
	if f.After != nil {
		where = append(where, "(g.created_at < ? OR (g.created_at = ? AND g.id < ?))")
		at := millis(f.After.CreatedAt)
		args = append(args, at, at, f.After.ID[:])
	}
	args = append(args, f.Limit+1)
	rows, err := db.read.QueryContext(ctx, `SELECT `+grantColumns+` FROM grants g `+grantJoins+`
		WHERE `+strings.Join(where, " AND ")+` ORDER BY g.created_at DESC, g.id DESC LIMIT ?`, args...)
	if err != nil {
		return gatehouse.GrantPage{}, wrap(err)
	}
	defer rows.Close()
	var grants []gatehouse.Grant
	for rows.Next() {
		g, err := scanGrant(rows, orgID)
		if err != nil {
			return gatehouse.GrantPage{}, wrap(err)
		}
		grants = append(grants, g)
	}
	if err := rows.Err(); err != nil {
		return gatehouse.GrantPage{}, wrap(err)
	}
	return sqlstore.GrantPage(grants, f.Limit), nil
}

// grantsWithin is the condition of a grant all of whose targets lie in
// within's locations, with its arguments: a location grant of one of
// them, or a grant of access points none of which is now elsewhere. The
// grant's own list (json_each) finds its access points by primary key;
// one not found counts as elsewhere, and a list of none reaches nothing.
func grantsWithin(within gatehouse.Reach) (string, []any) {
	loc, args := inLocations("g.location_id", within)
	ap, apArgs := inLocations("a.location_id", within)
	return `(` + loc + ` OR g.location_id IS NULL AND g.access_point_ids <> '[]' AND NOT EXISTS (SELECT 1
		FROM json_each(g.access_point_ids) j LEFT JOIN access_points a ON a.id = unhex(replace(j.value, '-', '')) AND a.org = g.org
		WHERE a.id IS NULL OR NOT ` + ap + `))`, append(args, apArgs...)
}

// RevokeGrant ends an organization's grant at at.
func (db *DB) RevokeGrant(ctx context.Context, e gatehouse.AuditEntry, orgID, id uuid.UUID, at time.Time, wakes []gatehouse.Wake) (_ gatehouse.Grant, revoked bool, err error) {
	defer sqlstore.Label(&err, "Store.RevokeGrant", orgID, id)
	var g gatehouse.Grant
	err = db.withTx(ctx, func(tx *sql.Tx) error {
		org, err := db.orgSeq(ctx, tx, orgID)
		if err != nil {
			return err
		}
		if g, err = db.findGrant(ctx, tx, orgID, id); err != nil {
			return err
		}
		if g.RevokedAt != nil {
			return nil
		}
		if _, err := tx.ExecContext(ctx, "UPDATE grants SET revoked_at = ? WHERE org = ? AND id = ?", millis(at), org, id[:]); err != nil {
			return err
		}
		revoked = true
		g.RevokedAt = gatehouse.TimePtr(&at)
		return db.grantChanged(ctx, tx, org, wakes, e.Of(orgID, sqlstore.GrantTarget(id, g.PlatformUserID)))
	})
	if err != nil {
		return gatehouse.Grant{}, false, err
	}
	return g, revoked, nil
}

// RunningGrants returns the player's grants covering an access point at
// an instant.
func (db *DB) RunningGrants(ctx context.Context, orgID, accessPointID, locationID uuid.UUID, player string, at time.Time) (_ []gatehouse.ActiveGrant, err error) {
	defer sqlstore.Label(&err, "Store.RunningGrants", orgID, accessPointID)
	org, err := db.orgSeq(ctx, db.read, orgID)
	if errors.Is(err, gatehouse.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	ms := millis(at)
	out, err := queryAll(ctx, db.read, func(rows *sql.Rows, g *gatehouse.ActiveGrant) error {
		var from, until int64
		var revoked sql.NullInt64
		if err := rows.Scan(&from, &until, &revoked); err != nil {
			return err
		}
		*g = sqlstore.ActiveGrant(player, fromMillis(from), fromMillis(until), fromOptMillis(revoked))
		return nil
	}, `SELECT g.from_at, g.until_at, g.revoked_at FROM grants g
		WHERE g.org = ? AND g.platform_user_id = ? AND g.until_at > ? AND g.from_at <= ?
		AND (g.revoked_at IS NULL OR g.revoked_at > ?)
		AND (g.location_id = ? OR EXISTS (SELECT 1 FROM grant_access_points p
			WHERE p.org = g.org AND p.access_point_id = ? AND p.grant_id = g.id))`,
		org, player, ms, ms, ms, locationID[:], accessPointID[:])
	return out, wrap(err)
}

// LiveGrants returns the players' grants in force or to come, those that
// end soonest first.
func (db *DB) LiveGrants(ctx context.Context, orgID uuid.UUID, players []string, now time.Time, limit int) (_ []gatehouse.Grant, err error) {
	defer sqlstore.Label(&err, "Store.LiveGrants", orgID)
	out := []gatehouse.Grant{}
	if (players != nil && len(players) == 0) || limit < 1 {
		return out, nil
	}
	org, err := db.orgSeq(ctx, db.read, orgID)
	if errors.Is(err, gatehouse.ErrNotFound) {
		return out, nil
	}
	if err != nil {
		return nil, err
	}
	cond, args := "", []any{org, millis(now)}
	if players != nil {
		list, err := json.Marshal(players)
		if err != nil {
			return nil, err
		}
		cond, args = " AND g.platform_user_id IN (SELECT value FROM json_each(?))", append(args, string(list))
	}
	rows, err := db.read.QueryContext(ctx, `SELECT `+grantColumns+` FROM grants g `+grantJoins+`
		WHERE g.org = ? AND g.until_at > ? AND g.revoked_at IS NULL`+cond+`
		ORDER BY g.until_at, g.id LIMIT ?`, append(args, limit)...)
	if err != nil {
		return nil, wrap(err)
	}
	defer rows.Close()
	for rows.Next() {
		g, err := scanGrant(rows, orgID)
		if err != nil {
			return nil, wrap(err)
		}
		out = append(out, g)
	}
	return out, wrap(rows.Err())
}

// PlayerServers returns the organization's servers hosting a player.
func (db *DB) PlayerServers(ctx context.Context, orgID uuid.UUID, player string, since time.Time) (_ []gatehouse.GameServer, err error) {
	defer sqlstore.Label(&err, "Store.PlayerServers", orgID)
	org, err := db.orgSeq(ctx, db.read, orgID)
	if errors.Is(err, gatehouse.ErrNotFound) {
		return []gatehouse.GameServer{}, nil
	}
	if err != nil {
		return nil, err
	}
	out, err := queryAll(ctx, db.read, func(rows *sql.Rows, s *gatehouse.GameServer) error {
		var seen int64
		if err := rows.Scan(&s.JobID, &s.UniverseID, &seen); err != nil {
			return err
		}
		s.SeenAt = fromMillis(seen)
		return nil
	}, `SELECT s.job_id, s.universe_id, s.seen_at FROM server_players p
		JOIN game_servers s ON s.org = p.org AND s.job_id = p.job_id
		WHERE p.org = ? AND p.platform_user_id = ? AND s.seen_at >= ? ORDER BY s.job_id`, org, player, millis(since))
	if out == nil {
		out = []gatehouse.GameServer{}
	}
	return out, wrap(err)
}

// grantTargetsExist fails a new grant with ErrNotFound when an access
// point or the location it names is gone: deleted between the service's
// check and this transaction (the one writer runs a delete between whole
// transactions, so none can go after).
func grantTargetsExist(ctx context.Context, tx *sql.Tx, org int64, g gatehouse.NewGrant) error {
	var n int
	for _, ap := range g.AccessPointIDs {
		if err := tx.QueryRowContext(ctx, "SELECT count(*) FROM access_points WHERE org = ? AND id = ?", org, ap[:]).Scan(&n); err != nil {
			return err
		}
		if n == 0 {
			return fmt.Errorf("access point %s of grant %s: %w", ap, g.ID, gatehouse.ErrNotFound)
		}
	}
	if g.LocationID != nil {
		if err := tx.QueryRowContext(ctx, "SELECT count(*) FROM locations WHERE org = ? AND id = ?", org, g.LocationID[:]).Scan(&n); err != nil {
			return err
		}
		if n == 0 {
			return fmt.Errorf("location %s of grant %s: %w", *g.LocationID, g.ID, gatehouse.ErrNotFound)
		}
	}
	return nil
}
