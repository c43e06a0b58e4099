package postgres

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/gatehouse/gatehouse"
	"github.com/gatehouse/gatehouse/internal/sqlstore"
)

// policyOf joins an access point (alias a) to its current policy
// (alias p): every read of a policy goes through access_points, so a
// policy is only ever read for an access point of the organization.
const policyOf = `LEFT JOIN policies p ON p.access_point_id = a.id AND p.org = a.org AND p.version = a.policy_version`

// decodePolicy returns the stored policy, or nil when the join found
// none (version NULL).
func decodePolicy(version *int64, body []byte, createdAt *time.Time) (*gatehouse.Policy, error) {
	if version == nil {
		return nil, nil
	}
	return sqlstore.DecodePolicy(true, *version, body, *createdAt)
}

// findPolicy reads the organization's access point's name and current
// policy (nil for none), or ErrNotFound.
func findPolicy(ctx context.Context, q querier, org int64, id uuid.UUID) (string, *gatehouse.Policy, error) {
	var (
		name    string
		version *int64
		body    []byte
		created *time.Time
	)
	err := q.QueryRow(ctx, `SELECT a.name, p.version, p.body, p.created_at FROM access_points a `+policyOf+`
		WHERE a.id = $1 AND a.org = $2`, id, org).Scan(&name, &version, &body, &created)
	if errors.Is(err, pgx.ErrNoRows) {
		return "", nil, fmt.Errorf("access point %s: %w", id, gatehouse.ErrNotFound)
	}
	if err != nil {
		return "", nil, err
	}
	p, err := decodePolicy(version, body, created)
	return name, p, err
}

// PutPolicy implements gatehouse.Store. The access point's row is locked
// first, then its current policy read in a statement of its own (a fresh
// snapshot under READ COMMITTED): concurrent changes of one access point
// wait for each other and take versions one after another, without
// error.
func (db *DB) PutPolicy(ctx context.Context, e gatehouse.AuditEntry, orgID, accessPointID uuid.UUID, p gatehouse.Policy, ifVersion *int64, at time.Time) (_ gatehouse.Policy, err error) {
	defer sqlstore.Label(&err, "Store.PutPolicy", orgID, accessPointID)
	org, err := db.orgSeq(ctx, db.pool, orgID)
	if err != nil {
		return gatehouse.Policy{}, err
	}
	body := gatehouse.PolicyBody(p)
	at = at.UTC().Truncate(time.Microsecond)
	var out gatehouse.Policy
	err = db.withTx(ctx, func(tx pgx.Tx) error {
		if _, err := lockAccessPoint(ctx, tx, org, accessPointID); err != nil {
			return err
		}
		name, cur, err := findPolicy(ctx, tx, org, accessPointID)
		if errors.Is(err, gatehouse.ErrUnreadable) {
			err = nil // cur holds its version: p replaces it
		}
		if err != nil {
			return err
		}
		change, err := sqlstore.NextPolicy(e, orgID, accessPointID, name, cur, p, ifVersion, at)
		out = change.Policy
		if err != nil || !change.Store {
			return err
		}
		if _, err := tx.Exec(ctx, "INSERT INTO policies (org, access_point_id, version, body, created_at) VALUES ($1, $2, $3, $4, $5)",
			org, accessPointID, out.Version, string(body), at); err != nil {
			return err
		}
		var universe string
		if err := tx.QueryRow(ctx, `SELECT coalesce(l.universe_id, '') FROM access_points a
			JOIN locations l ON l.id = a.location_id AND l.org = a.org WHERE a.id = $1 AND a.org = $2`, accessPointID, org).Scan(&universe); err != nil {
			return err
		}
		if err := lockUniverse(ctx, tx, org, universe); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, "UPDATE access_points SET policy_version = $1 WHERE id = $2 AND org = $3", out.Version, accessPointID, org); err != nil {
			return err
		}
		if err := checkUniverse(ctx, tx, org, universe, false, sqlstore.Grows(cur, body)); err != nil {
			return err
		}
		return db.appendAudit(ctx, tx, org, change.Entry)
	})
	return out, err
}

// FindPolicy implements gatehouse.Store. It reads the primary: a policy
// just stored is the one read back.
func (db *DB) FindPolicy(ctx context.Context, orgID, accessPointID uuid.UUID) (_ *gatehouse.Policy, err error) {
	defer sqlstore.Label(&err, "Store.FindPolicy", orgID, accessPointID)
	org, err := db.orgSeq(ctx, db.pool, orgID)
	if err != nil {
		return nil, err
	}
	_, p, err := findPolicy(ctx, db.pool, org, accessPointID)
	if err != nil {
		return nil, wrap(err)
	}
	return p, nil
}

// FindPolicyAt implements gatehouse.Store. It reads the primary, as
// FindPolicy does.
func (db *DB) FindPolicyAt(ctx context.Context, orgID, accessPointID uuid.UUID, at time.Time) (_ *gatehouse.Policy, err error) {
	defer sqlstore.Label(&err, "Store.FindPolicyAt", orgID, accessPointID)
	org, err := db.orgSeq(ctx, db.pool, orgID)
	if err != nil {
		return nil, err
	}
	var (
		version *int64
		body    []byte
		created *time.Time
	)
	err = db.pool.QueryRow(ctx, `SELECT p.version, p.body, p.created_at FROM access_points a
		LEFT JOIN policies p ON p.access_point_id = a.id AND p.org = a.org AND p.version = (
			SELECT max(q.version) FROM policies q WHERE q.access_point_id = a.id AND q.org = a.org AND q.created_at <= $1)
		WHERE a.id = $2 AND a.org = $3`, at, accessPointID, org).Scan(&version, &body, &created)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, fmt.Errorf("access point %s: %w", accessPointID, gatehouse.ErrNotFound)
	}
	if err != nil {
		return nil, wrap(err)
	}
	return decodePolicy(version, body, created)
}

// PolicySet implements gatehouse.Store. uuids order by their bytes, the
// order SQLite gives the blobs it keeps them in.
func (db *DB) PolicySet(ctx context.Context, orgID uuid.UUID, universeID string) (_ []gatehouse.AccessPointPolicy, err error) {
	defer sqlstore.Label(&err, "Store.PolicySet", orgID)
	org, err := db.orgSeq(ctx, db.pool, orgID)
	if err != nil {
		return nil, err
	}
	rows, _ := db.pool.Query(ctx, `SELECT a.id, a.name, l.id, l.name, p.version, p.body, p.created_at
		FROM locations l JOIN access_points a ON a.location_id = l.id AND a.org = l.org `+policyOf+`
		WHERE l.org = $1 AND l.universe_id = $2 ORDER BY a.id`, org, universeID)
	set, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (gatehouse.AccessPointPolicy, error) {
		var (
			ap      gatehouse.AccessPointPolicy
			version *int64
			body    []byte
			created *time.Time
		)
		if err := row.Scan(&ap.AccessPoint.ID, &ap.AccessPoint.Name, &ap.Location.ID, &ap.Location.Name, &version, &body, &created); err != nil {
			return ap, err
		}
		var err error
		ap.Policy, err = decodePolicy(version, body, created)
		return ap, sqlstore.SkipUnreadable(&ap, err)
	})
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
	org, err := db.orgSeq(ctx, db.pool, orgID)
	if err != nil {
		return nil, err
	}
	rows, _ := db.pool.Query(ctx, `SELECT a.id, a.name, l.id, l.name, coalesce(a.policy_version, 0)
		FROM locations l JOIN access_points a ON a.location_id = l.id AND a.org = l.org
		WHERE l.org = $1 AND l.universe_id = $2 ORDER BY a.id`, org, universeID)
	members, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (gatehouse.PolicySetMember, error) {
		var m gatehouse.PolicySetMember
		err := row.Scan(&m.AccessPoint.ID, &m.AccessPoint.Name, &m.Location.ID, &m.Location.Name, &m.PolicyVersion)
		return m, err
	})
	if err != nil {
		return nil, wrap(err)
	}
	return members, nil
}

// decisionContext reads, in one statement, the access point with its
// location and current policy, joined to the candidate unlocks among its
// issued commands (none: one row of NULLs): $1 now minus
// gatehouse.UnlockLookback, $2 access point id, $3 org. The policy repeats
// on each unlock's row; an access point has few unlocks at once.
const decisionContext = `SELECT a.name, l.id, l.name, l.universe_id, p.version, p.body, p.created_at,
		c.status, c.scope, c.server_job_id, c.platform_user_id, c.expires_at, c.started_at, c.duration_s, c.issued_at
	FROM access_points a JOIN locations l ON l.id = a.location_id AND l.org = a.org ` + policyOf + `
	LEFT JOIN commands c ON c.org = a.org AND c.access_point_id = a.id AND c.issued
		AND c.issued_at > $1 AND c.type = 'UNLOCK' AND c.status IN ('PENDING', 'DELIVERED', 'EXECUTED')
	WHERE a.id = $2 AND a.org = $3`

// FindDecisionContext implements gatehouse.Store: one statement, one
// round trip (pgx caches its prepared form per connection); the unlocks
// are filtered by Command.ActiveUnlock, the one definition of what
// counts.
func (db *DB) FindDecisionContext(ctx context.Context, orgID, accessPointID uuid.UUID, now time.Time) (_ gatehouse.DecisionContext, err error) {
	defer sqlstore.Label(&err, "Store.FindDecisionContext", orgID, accessPointID)
	var dc gatehouse.DecisionContext
	org, err := db.orgSeq(ctx, db.pool, orgID)
	if err != nil {
		return dc, err
	}
	rows, err := db.pool.Query(ctx, decisionContext, now.Add(-gatehouse.UnlockLookback), accessPointID, org)
	if err != nil {
		return dc, wrap(err)
	}
	defer rows.Close()
	found := false
	for rows.Next() {
		var (
			universe, status, scope, job, player *string
			version                              *int64
			body                                 []byte
			created, expires, started, issued    *time.Time
			duration                             *int
		)
		if err := rows.Scan(&dc.AccessPoint.Name, &dc.Location.ID, &dc.Location.Name, &universe, &version, &body, &created,
			&status, &scope, &job, &player, &expires, &started, &duration, &issued); err != nil {
			return dc, wrap(err)
		}
		if !found {
			found = true
			dc.AccessPoint.ID = accessPointID
			if universe != nil {
				dc.UniverseID = *universe
			}
			if dc.Policy, err = decodePolicy(version, body, created); err != nil {
				return dc, err
			}
		}
		if status == nil {
			continue
		}
		c := gatehouse.Command{Type: gatehouse.CommandUnlock, Status: gatehouse.CommandStatus(*status),
			ServerJobID: job, PlatformUserID: player}
		if scope != nil {
			c.Scope = gatehouse.CommandScope(*scope)
		}
		if expires != nil {
			c.ExpiresAt = gatehouse.Time(expires.UTC())
		}
		if started != nil {
			t := gatehouse.Time(started.UTC())
			c.StartedAt = &t
		}
		if issued != nil {
			c.IssuedAt = gatehouse.Time(issued.UTC())
		}
		if duration != nil {
			c.DurationSeconds = *duration
		}
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
