package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"

	"github.com/gatehouse/gatehouse"
	"github.com/gatehouse/gatehouse/internal/sqlstore"
)

// policyOf joins an access point (alias a) to its current policy
// (alias p): every read of a policy goes through access_points, so a
// policy is only ever read for an access point of the organization.
const policyOf = `LEFT JOIN policies p ON p.access_point_id = a.id AND p.org = a.org AND p.version = a.policy_version`

// decodePolicy returns the stored policy, or nil when the join found
// none (version NULL).
func decodePolicy(version sql.NullInt64, body []byte, createdAt sql.NullInt64) (*gatehouse.Policy, error) {
	return sqlstore.DecodePolicy(version.Valid, version.Int64, body, fromMillis(createdAt.Int64))
}

// findPolicy reads the organization's access point's name and current
// policy (nil for none), or ErrNotFound.
func findPolicy(ctx context.Context, q querier, org int64, id uuid.UUID) (string, *gatehouse.Policy, error) {
	var (
		name             string
		version, created sql.NullInt64
		body             []byte
	)
	err := q.QueryRowContext(ctx, `SELECT a.name, p.version, p.body, p.created_at FROM access_points a `+policyOf+`
		WHERE a.id = ? AND a.org = ?`, id[:], org).Scan(&name, &version, &body, &created)
	if errors.Is(err, sql.ErrNoRows) {
		return "", nil, fmt.Errorf("access point %s: %w", id, gatehouse.ErrNotFound)
	}
	if err != nil {
		return "", nil, err
	}
	p, err := decodePolicy(version, body, created)
	return name, p, err
}

// PutPolicy implements gatehouse.Store. The write connection serializes
// every change, so reading the current version and adding the next one in
// one transaction cannot race.
func (db *DB) PutPolicy(ctx context.Context, e gatehouse.AuditEntry, orgID, accessPointID uuid.UUID, p gatehouse.Policy, ifVersion *int64, at time.Time) (_ gatehouse.Policy, err error) {
	defer sqlstore.Label(&err, "Store.PutPolicy", orgID, accessPointID)
	body := gatehouse.PolicyBody(p)
	var out gatehouse.Policy
	err = db.withTx(ctx, func(tx *sql.Tx) error {
		org, err := db.orgSeq(ctx, tx, orgID)
		if err != nil {
			return err
		}
		name, cur, err := findPolicy(ctx, tx, org, accessPointID)
		if errors.Is(err, gatehouse.ErrUnreadable) {
			err = nil // cur holds its version: p replaces it
		}
		if err != nil {
			return err
		}
		ms := millis(at)
		change, err := sqlstore.NextPolicy(e, orgID, accessPointID, name, cur, p, ifVersion, fromMillis(ms))
		out = change.Policy
		if err != nil || !change.Store {
			return err
		}
		if _, err := tx.ExecContext(ctx, "INSERT INTO policies (org, access_point_id, version, body, created_at) VALUES (?, ?, ?, ?, ?)",
			org, accessPointID[:], out.Version, string(body), ms); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, "UPDATE access_points SET policy_version = ? WHERE id = ? AND org = ?", out.Version, accessPointID[:], org); err != nil {
			return err
		}
		var universe string
		if err := tx.QueryRowContext(ctx, `SELECT coalesce(l.universe_id, '') FROM access_points a
			JOIN locations l ON l.id = a.location_id AND l.org = a.org WHERE a.id = ? AND a.org = ?`, accessPointID[:], org).Scan(&universe); err != nil {
			return err
		}
		if err := checkUniverse(ctx, tx, org, universe, false, sqlstore.Grows(cur, body)); err != nil {
			return err
		}
		return db.appendAudit(ctx, tx, org, change.Entry)
	})
	return out, err
}

// FindPolicy implements gatehouse.Store.
func (db *DB) FindPolicy(ctx context.Context, orgID, accessPointID uuid.UUID) (_ *gatehouse.Policy, err error) {
	defer sqlstore.Label(&err, "Store.FindPolicy", orgID, accessPointID)
	org, err := db.orgSeq(ctx, db.read, orgID)
	if err != nil {
		return nil, err
	}
	_, p, err := findPolicy(ctx, db.read, org, accessPointID)
	if err != nil {
		return nil, wrap(err)
	}
	return p, nil
}

// FindPolicyAt implements gatehouse.Store: the policies' primary key
// leads with the access point, so the versions read are its own.
func (db *DB) FindPolicyAt(ctx context.Context, orgID, accessPointID uuid.UUID, at time.Time) (_ *gatehouse.Policy, err error) {
	defer sqlstore.Label(&err, "Store.FindPolicyAt", orgID, accessPointID)
	org, err := db.orgSeq(ctx, db.read, orgID)
	if err != nil {
		return nil, err
	}
	var (
		version, created sql.NullInt64
		body             []byte
	)
	err = db.read.QueryRowContext(ctx, `SELECT p.version, p.body, p.created_at FROM access_points a
		LEFT JOIN policies p ON p.access_point_id = a.id AND p.org = a.org AND p.version = (
			SELECT max(q.version) FROM policies q WHERE q.access_point_id = a.id AND q.org = a.org AND q.created_at <= ?)
		WHERE a.id = ? AND a.org = ?`, millis(at), accessPointID[:], org).Scan(&version, &body, &created)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("access point %s: %w", accessPointID, gatehouse.ErrNotFound)
	}
	if err != nil {
		return nil, wrap(err)
	}
	return decodePolicy(version, body, created)
}

// PolicySet implements gatehouse.Store. Access point ids are blobs of the
// uuid's bytes, so ORDER BY a.id is the order PostgreSQL gives uuids.
func (db *DB) PolicySet(ctx context.Context, orgID uuid.UUID, universeID string) (_ []gatehouse.AccessPointPolicy, err error) {
	defer sqlstore.Label(&err, "Store.PolicySet", orgID)
	org, err := db.orgSeq(ctx, db.read, orgID)
	if err != nil {
		return nil, err
	}
	set, err := queryAll(ctx, db.read, func(rows *sql.Rows, ap *gatehouse.AccessPointPolicy) error {
		var (
			version, created sql.NullInt64
			body             []byte
		)
		if err := rows.Scan(&ap.AccessPoint.ID, &ap.AccessPoint.Name, &ap.Location.ID, &ap.Location.Name, &version, &body, &created); err != nil {
			return err
		}
		ap.Policy, err = decodePolicy(version, body, created)
		return sqlstore.SkipUnreadable(ap, err)
	}, `SELECT a.id, a.name, l.id, l.name, p.version, p.body, p.created_at
		FROM locations l JOIN access_points a ON a.location_id = l.id AND a.org = l.org `+policyOf+`
		WHERE l.org = ? AND l.universe_id = ? ORDER BY a.id`, org, universeID)
	if err != nil {
		return nil, wrap(err)
	}
	if set == nil {
		set = []gatehouse.AccessPointPolicy{}
	}
	return set, nil
}

// PolicySetMembers implements gatehouse.Store: the set's rows without a
// policy body.
func (db *DB) PolicySetMembers(ctx context.Context, orgID uuid.UUID, universeID string) (_ []gatehouse.PolicySetMember, err error) {
	defer sqlstore.Label(&err, "Store.PolicySetMembers", orgID)
	org, err := db.orgSeq(ctx, db.read, orgID)
	if err != nil {
		return nil, err
	}
	members, err := queryAll(ctx, db.read, func(rows *sql.Rows, m *gatehouse.PolicySetMember) error {
		return rows.Scan(&m.AccessPoint.ID, &m.AccessPoint.Name, &m.Location.ID, &m.Location.Name, &m.PolicyVersion)
	}, `SELECT a.id, a.name, l.id, l.name, coalesce(a.policy_version, 0)
		FROM locations l JOIN access_points a ON a.location_id = l.id AND a.org = l.org
		WHERE l.org = ? AND l.universe_id = ? ORDER BY a.id`, org, universeID)
	if err != nil {
		return nil, wrap(err)
	}
	return members, nil
}

// decisionContext reads, in one statement, the access point with its
// location and current policy, joined to the candidate unlocks among its
// issued commands (none: one row of NULLs): ?1 now minus
// gatehouse.UnlockLookback, ?2 access point id, ?3 org. The policy repeats
// on each unlock's row; an access point has few unlocks at once.
const decisionContext = `SELECT a.name, l.id, l.name, l.universe_id, p.version, p.body, p.created_at,
		c.status, c.scope, c.server_job_id, c.platform_user_id, c.expires_at, c.started_at, c.duration_s, c.issued_at
	FROM access_points a JOIN locations l ON l.id = a.location_id AND l.org = a.org ` + policyOf + `
	LEFT JOIN commands c ON c.org = a.org AND c.access_point_id = a.id AND c.issued = 1
		AND c.issued_at > ? AND c.type = 'UNLOCK' AND c.status IN ('PENDING', 'DELIVERED', 'EXECUTED')
	WHERE a.id = ? AND a.org = ?`

// FindDecisionContext implements gatehouse.Store: one statement on a read
// connection, prepared once per connection by the read pool; the unlocks
// are filtered by Command.ActiveUnlock, the one definition of what counts.
func (db *DB) FindDecisionContext(ctx context.Context, orgID, accessPointID uuid.UUID, now time.Time) (_ gatehouse.DecisionContext, err error) {
	defer sqlstore.Label(&err, "Store.FindDecisionContext", orgID, accessPointID)
	var dc gatehouse.DecisionContext
	org, err := db.orgSeq(ctx, db.read, orgID)
	if err != nil {
		return dc, err
	}
	rows, err := db.read.QueryContext(ctx, decisionContext, millis(now.Add(-gatehouse.UnlockLookback)), accessPointID[:], org)
	if err != nil {
		return dc, wrap(err)
	}
	defer rows.Close()
	found := false
	for rows.Next() {
		var (
			universe, status, scope, job, player sql.NullString
			version, created, expires, started   sql.NullInt64
			issued                               sql.NullInt64
			duration                             sql.NullInt64
			body                                 sql.RawBytes
		)
		if err := rows.Scan(&dc.AccessPoint.Name, &dc.Location.ID, &dc.Location.Name, &universe, &version, &body, &created,
			&status, &scope, &job, &player, &expires, &started, &duration, &issued); err != nil {
			return dc, wrap(err)
		}
		if !found {
			found = true
			dc.AccessPoint.ID = accessPointID
			dc.UniverseID = universe.String
			if dc.Policy, err = decodePolicy(version, body, created); err != nil {
				return dc, err
			}
		}
		if !status.Valid {
			continue
		}
		c := gatehouse.Command{Type: gatehouse.CommandUnlock, Status: gatehouse.CommandStatus(status.String),
			Scope: gatehouse.CommandScope(scope.String), ServerJobID: fromOptString(job), PlatformUserID: fromOptString(player),
			ExpiresAt: gatehouse.Time(fromMillis(expires.Int64)), StartedAt: optTime(started), DurationSeconds: int(duration.Int64),
			IssuedAt: gatehouse.Time(fromMillis(issued.Int64))}
		if u, ok := c.ActiveUnlock(now); ok {
			dc.Unlocks = append(dc.Unlocks, u)
		}
	}
	if err := rows.Err(); err != nil {
		return dc, wrap(err)
	}
	if !found {
		return dc, fmt.Errorf("access point %s: %w", accessPointID, gatehouse.ErrNotFound)
	}
	return dc, nil
}
