package postgres

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/gatehouse/gatehouse"
	"github.com/gatehouse/gatehouse/internal/sqlstore"
	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
)

// grantColumns are what scanGrant reads: the grant and who created it.
const grantColumns = `g.id, g.platform_user_id, g.access_point_ids, g.location_id, g.from_at, g.until_at, g.revoked_at,
	g.note, g.source_type, g.receipt_id, g.created_at,
	g.created_by, coalesce(u.email, ''), coalesce(u.name, ''), g.created_by_key, coalesce(k.name, ''), coalesce(k.prefix, '')`

// grantJoins follow FROM grants g.
const grantJoins = `
	LEFT JOIN users u ON u.id = g.created_by AND u.org = g.org
	LEFT JOIN api_keys k ON k.id = g.created_by_key AND k.org = g.org`

func scanGrant(row pgx.CollectableRow) (gatehouse.Grant, error) {
	var (
		g                    gatehouse.Grant
		from, until, created time.Time
		revoked              *time.Time
		by                   sqlstore.Creator
	)
	err := row.Scan(&g.ID, &g.PlatformUserID, &g.AccessPointIDs, &g.LocationID, &from, &until, &revoked,
		&g.Note, &g.Source.Type, &g.Source.ReceiptID, &created, &by.User, &by.Email, &by.Name, &by.Key, &by.KeyName, &by.KeyPrefix)
	if err != nil {
		return g, err
	}
	sqlstore.FillGrant(&g, from, until, created, revoked, by)
	return g, nil
}

// readGrants runs a query of grantColumns and sets each grant's
// organization.
func readGrants(ctx context.Context, q querier, orgID uuid.UUID, query string, args ...any) ([]gatehouse.Grant, error) {
	rows, _ := q.Query(ctx, query, args...)
	grants, err := pgx.CollectRows(rows, scanGrant)
	for i := range grants {
		grants[i].OrgID = orgID
	}
	if grants == nil {
		grants = []gatehouse.Grant{}
	}
	return grants, err
}

// CreateGrant stores an organization's grant, or returns the one of its
// receipt id. Two requests with one receipt id meet at the unique index:
// the later waits for the earlier's commit, inserts nothing, and reads
// the grant the earlier stored.
func (db *DB) CreateGrant(ctx context.Context, e gatehouse.AuditEntry, g gatehouse.NewGrant) (_ gatehouse.Grant, created bool, err error) {
	defer sqlstore.Label(&err, "Store.CreateGrant", g.OrgID)
	var id uuid.UUID
	err = db.withTx(ctx, func(tx pgx.Tx) error {
		created = false
		org, err := db.orgSeq(ctx, tx, g.OrgID)
		if err != nil {
			return err
		}
		tag, err := tx.Exec(ctx, `INSERT INTO grants (id, org, platform_user_id, access_point_ids, location_id,
			from_at, until_at, note, source_type, receipt_id, created_at, created_by, created_by_key)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13) ON CONFLICT (org, receipt_id) DO NOTHING`,
			g.ID, org, g.PlatformUserID, g.AccessPointIDs, g.LocationID, time.Time(g.From), time.Time(g.Until), g.Note,
			string(g.Source.Type), g.Source.ReceiptID, time.Time(g.CreatedAt), g.CreatedByUser, g.CreatedByKeyID)
		if err != nil {
			return err
		}
		if tag.RowsAffected() == 0 {
			return tx.QueryRow(ctx, "SELECT id FROM grants WHERE org = $1 AND receipt_id = $2", org, *g.Source.ReceiptID).Scan(&id)
		}
		id, created = g.ID, true
		if err := holdGrantTargets(ctx, tx, org, g); err != nil {
			return err
		}
		if len(g.AccessPointIDs) > 0 {
			if _, err := tx.Exec(ctx, `INSERT INTO grant_access_points (org, access_point_id, grant_id)
				SELECT $1, a, $2 FROM unnest($3::uuid[]) a`, org, g.ID, g.AccessPointIDs); err != nil {
				return err
			}
		}
		return db.grantChanged(ctx, tx, org, g.Wakes, e.Of(g.OrgID, sqlstore.GrantTarget(g.ID, g.PlatformUserID)))
	})
	if err != nil {
		return gatehouse.Grant{}, false, err
	}
	out, err := db.findGrant(ctx, db.pool, g.OrgID, id)
	return out, created, err
}

// grantChanged ends a grant's change in tx: it wakes the syncs of the
// servers that host the grant's player and records e.
func (db *DB) grantChanged(ctx context.Context, tx pgx.Tx, org int64, wakes []gatehouse.Wake, e gatehouse.AuditEntry) error {
	for _, w := range wakes {
		if err := notifyWake(ctx, tx, w); err != nil {
			return err
		}
	}
	return db.appendAudit(ctx, tx, org, e)
}

// FindGrant returns an organization's grant.
func (db *DB) FindGrant(ctx context.Context, orgID, id uuid.UUID) (_ gatehouse.Grant, err error) {
	defer sqlstore.Label(&err, "Store.FindGrant", orgID, id)
	return db.findGrant(ctx, db.pool, orgID, id)
}

func (db *DB) findGrant(ctx context.Context, q querier, orgID, id uuid.UUID) (gatehouse.Grant, error) {
	grants, err := readGrants(ctx, q, orgID, `SELECT `+grantColumns+` FROM grants g `+grantJoins+`
		JOIN organizations o ON o.seq = g.org WHERE o.id = $1 AND g.id = $2`, orgID, id)
	if err != nil {
		return gatehouse.Grant{}, wrap(err)
	}
	if len(grants) == 0 {
		return gatehouse.Grant{}, fmt.Errorf("grant %s: %w", id, gatehouse.ErrNotFound)
	}
	return grants[0], nil
}

// ListGrants returns a page of an organization's grants, newest first.
func (db *DB) ListGrants(ctx context.Context, orgID uuid.UUID, f gatehouse.GrantFilter) (_ gatehouse.GrantPage, err error) {
	defer sqlstore.Label(&err, "Store.ListGrants", orgID)
	if err := f.Check(); err != nil {
		return gatehouse.GrantPage{}, err
	}
	org, err := db.orgSeq(ctx, db.pool, orgID)
	if errors.Is(err, gatehouse.ErrNotFound) {
		return gatehouse.GrantPage{Grants: []gatehouse.Grant{}}, nil
	}
	if err != nil {
		return gatehouse.GrantPage{}, err
	}
	args := []any{org}
	arg := func(v any) string {
		args = append(args, v)
		return "$" + strconv.Itoa(len(args))
	}
	where := []string{"g.org = $1"}
	if f.PlatformUserID != nil {
		where = append(where, "g.platform_user_id = "+arg(*f.PlatformUserID))
	}
	if f.ReceiptID != nil {
		where = append(where, "g.receipt_id = "+arg(*f.ReceiptID))
	}
	if f.AccessPointID != nil {
		cond := "g.id IN (SELECT grant_id FROM grant_access_points WHERE org = $1 AND access_point_id = " + arg(*f.AccessPointID) + ")"
		if f.LocationOf != nil {
			cond = "(" + cond + " OR g.location_id = " + arg(*f.LocationOf) + ")"
		}
		where = append(where, cond)
	}
	if f.Within != nil {
		where = append(where, grantsWithin(arg([]uuid.UUID(f.Within))))
	}
	if f.Active != nil {
		now := arg(f.Now)
		running := "(g.from_at <= " + now + " AND g.until_at > " + now + " AND (g.revoked_at IS NULL OR g.revoked_at > " + now + "))"
		if !*f.Active {
			running = "NOT " + running
		}
		where = append(where, running)
	}
	if f.After != nil {
		at, id := arg(f.After.CreatedAt), arg(f.After.ID)
		where = append(where, "(g.created_at, g.id) < ("+at+", "+id+")")
	}
	limit := arg(f.Limit + 1)
	grants, err := readGrants(ctx, db.pool, orgID, `SELECT `+grantColumns+` FROM grants g `+grantJoins+`
		WHERE `+strings.Join(where, " AND ")+` ORDER BY g.created_at DESC, g.id DESC LIMIT `+limit, args...)
	if err != nil {
		return gatehouse.GrantPage{}, wrap(err)
	}
	return sqlstore.GrantPage(grants, f.Limit), nil
}

// grantsWithin is the condition of a grant all of whose targets lie in
// the locations of the uuid[] parameter within: a location grant of one
// of them, or a grant of access points none of which is now elsewhere.
// The grant's own list (unnest) finds its access points by primary key;
// one not found counts as elsewhere, and a list of none reaches nothing.
func grantsWithin(within string) string {
	in := " = ANY(" + within + "::uuid[])"
	return `(g.location_id` + in + ` OR g.location_id IS NULL AND cardinality(g.access_point_ids) > 0 AND NOT EXISTS (SELECT 1
		FROM unnest(g.access_point_ids) p(id) LEFT JOIN access_points a ON a.id = p.id AND a.org = g.org
		WHERE a.id IS NULL OR NOT a.location_id` + in + `))`
}

// RevokeGrant ends an organization's grant at at.
func (db *DB) RevokeGrant(ctx context.Context, e gatehouse.AuditEntry, orgID, id uuid.UUID, at time.Time, wakes []gatehouse.Wake) (_ gatehouse.Grant, revoked bool, err error) {
	defer sqlstore.Label(&err, "Store.RevokeGrant", orgID, id)
	var g gatehouse.Grant
	err = db.withTx(ctx, func(tx pgx.Tx) error {
		revoked = false
		org, err := db.orgSeq(ctx, tx, orgID)
		if err != nil {
			return err
		}
		tag, err := tx.Exec(ctx, "UPDATE grants SET revoked_at = $3 WHERE org = $1 AND id = $2 AND revoked_at IS NULL", org, id, at)
		if err != nil {
			return err
		}
		if g, err = db.findGrant(ctx, tx, orgID, id); err != nil || tag.RowsAffected() == 0 {
			return err
		}
		revoked = true
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
	org, err := db.orgSeq(ctx, db.pool, orgID)
	if errors.Is(err, gatehouse.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	rows, _ := db.pool.Query(ctx, `SELECT g.from_at, g.until_at, g.revoked_at FROM grants g
		WHERE g.org = $1 AND g.platform_user_id = $2 AND g.until_at > $3 AND g.from_at <= $3
		AND (g.revoked_at IS NULL OR g.revoked_at > $3)
		AND (g.location_id = $4 OR EXISTS (SELECT 1 FROM grant_access_points p
			WHERE p.org = g.org AND p.access_point_id = $5 AND p.grant_id = g.id))`,
		org, player, at, locationID, accessPointID)
	out, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (gatehouse.ActiveGrant, error) {
		var from, until time.Time
		var revoked *time.Time
		err := row.Scan(&from, &until, &revoked)
		return sqlstore.ActiveGrant(player, from, until, revoked), err
	})
	return out, wrap(err)
}

// LiveGrants returns the players' grants in force or to come, those that
// end soonest first.
func (db *DB) LiveGrants(ctx context.Context, orgID uuid.UUID, players []string, now time.Time, limit int) (_ []gatehouse.Grant, err error) {
	defer sqlstore.Label(&err, "Store.LiveGrants", orgID)
	if (players != nil && len(players) == 0) || limit < 1 {
		return []gatehouse.Grant{}, nil
	}
	org, err := db.orgSeq(ctx, db.pool, orgID)
	if errors.Is(err, gatehouse.ErrNotFound) {
		return []gatehouse.Grant{}, nil
	}
	if err != nil {
		return nil, err
	}
	cond, args := "", []any{org, now, limit}
	if players != nil {
		cond, args = " AND g.platform_user_id = ANY($4)", append(args, players)
	}
	grants, err := readGrants(ctx, db.pool, orgID, `SELECT `+grantColumns+` FROM grants g `+grantJoins+`
		WHERE g.org = $1 AND g.until_at > $2 AND g.revoked_at IS NULL`+cond+`
		ORDER BY g.until_at, g.id LIMIT $3`, args...)
	return grants, wrap(err)
}

// PlayerServers returns the organization's servers hosting a player.
func (db *DB) PlayerServers(ctx context.Context, orgID uuid.UUID, player string, since time.Time) (_ []gatehouse.GameServer, err error) {
	defer sqlstore.Label(&err, "Store.PlayerServers", orgID)
	org, err := db.orgSeq(ctx, db.pool, orgID)
	if errors.Is(err, gatehouse.ErrNotFound) {
		return []gatehouse.GameServer{}, nil
	}
	if err != nil {
		return nil, err
	}
	rows, _ := db.pool.Query(ctx, `SELECT s.job_id, s.universe_id, s.seen_at FROM server_players p
		JOIN game_servers s ON s.org = p.org AND s.job_id = p.job_id
		WHERE p.org = $1 AND p.platform_user_id = $2 AND s.seen_at >= $3 ORDER BY s.job_id COLLATE "C"`, org, player, since)
	servers, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (gatehouse.GameServer, error) {
		var s gatehouse.GameServer
		err := row.Scan(&s.JobID, &s.UniverseID, &s.SeenAt)
		s.SeenAt = s.SeenAt.UTC()
		return s, err
	})
	if servers == nil {
		servers = []gatehouse.GameServer{}
	}
	return servers, wrap(err)
}

// holdGrantTargets holds the access points and the location a new grant
// names until its commit (FOR KEY SHARE), as an ingest holds its doors:
// one deleted meanwhile (DeleteAccessPoint, DeleteLocation) fails the
// grant with ErrNotFound rather than leave it naming nothing, and one
// deleted after waits for the grant, which its delete then takes it off.
func holdGrantTargets(ctx context.Context, tx pgx.Tx, org int64, g gatehouse.NewGrant) error {
	aps := slices.Compact(slices.SortedFunc(slices.Values(g.AccessPointIDs), func(a, b uuid.UUID) int { return bytes.Compare(a[:], b[:]) }))
	var n int
	if err := tx.QueryRow(ctx, `SELECT count(*) FROM (SELECT 1 FROM access_points WHERE org = $1 AND id = ANY($2) FOR KEY SHARE) a`,
		org, aps).Scan(&n); err != nil {
		return err
	}
	if n != len(aps) {
		return fmt.Errorf("an access point of grant %s: %w", g.ID, gatehouse.ErrNotFound)
	}
	if g.LocationID != nil {
		if err := tx.QueryRow(ctx, `SELECT count(*) FROM (SELECT 1 FROM locations WHERE org = $1 AND id = $2 FOR KEY SHARE) l`,
			org, *g.LocationID).Scan(&n); err != nil {
			return err
		}
		if n != 1 {
			return fmt.Errorf("location %s of grant %s: %w", *g.LocationID, g.ID, gatehouse.ErrNotFound)
		}
	}
	return nil
}
