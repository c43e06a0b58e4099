package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/gatehouse/gatehouse"
	"github.com/gatehouse/gatehouse/internal/sqlstore"
	"github.com/google/uuid"
)

// lockdownSelect reads lockdowns (alias d) with the names they show: the
// location's, the requester's or key's, and the releaser's.
const lockdownSelect = `SELECT d.id, d.scope, d.universe_id, d.location_id, coalesce(l.name, ''), d.reason,
	d.started_at, d.until, d.released_at,
	d.requested_by, coalesce(u.email, ''), coalesce(u.name, ''), d.issued_by_key, coalesce(k.name, ''), coalesce(k.prefix, ''),
	d.released_type, d.released_by, coalesce(ru.email, ''), coalesce(ru.name, ''), coalesce(rk.name, ''), coalesce(rk.prefix, '')
	FROM lockdowns d
	LEFT JOIN locations l ON l.id = d.location_id
	LEFT JOIN users u ON u.id = d.requested_by
	LEFT JOIN api_keys k ON k.id = d.issued_by_key
	LEFT JOIN users ru ON d.released_type = 'user' AND ru.id = d.released_by
	LEFT JOIN api_keys rk ON d.released_type = 'key' AND rk.id = d.released_by
	WHERE d.org = ?`

// runningAt is the condition of a lockdown that runs at the instant of
// the three arguments it takes.
const runningAt = ` AND d.started_at <= ? AND (d.released_at IS NULL OR d.released_at > ?) AND (d.until IS NULL OR d.until > ?)`

func scanLockdown(r interface{ Scan(...any) error }, orgID uuid.UUID) (gatehouse.Lockdown, error) {
	var (
		l                            = gatehouse.Lockdown{OrgID: orgID}
		universe, releasedType       sql.NullString
		location, requestedBy, keyID []byte
		releasedBy                   []byte
		locName, email, name, kn, kp string
		remail, rname, rkn, rkp      string
		started                      int64
		until, released              sql.NullInt64
	)
	err := r.Scan(&l.ID, &l.Scope, &universe, &location, &locName, &l.Reason, &started, &until, &released,
		&requestedBy, &email, &name, &keyID, &kn, &kp, &releasedType, &releasedBy, &remail, &rname, &rkn, &rkp)
	if err != nil {
		return l, err
	}
	l.UniverseID = fromOptString(universe)
	if location != nil {
		id := uuid.UUID(location)
		l.LocationID, l.Location = &id, &gatehouse.NamedRef{ID: id, Name: locName}
	}
	l.StartedAt = gatehouse.Time(fromMillis(started))
	l.Until, l.ReleasedAt = optTime(until), optTime(released)
	if requestedBy != nil {
		l.RequestedBy = &gatehouse.Requester{ID: uuid.UUID(requestedBy), Email: email, Name: name}
	}
	if keyID != nil {
		l.IssuedByKey = &gatehouse.KeyRef{ID: uuid.UUID(keyID), Name: kn, Prefix: kp}
	}
	if releasedType.Valid {
		by := &gatehouse.LockdownActor{Type: gatehouse.ActorType(releasedType.String)}
		if releasedBy != nil {
			id := uuid.UUID(releasedBy)
			by.ID = &id
		}
		switch by.Type {
		case gatehouse.ActorUser:
			by.Email, by.Name = remail, rname
		case gatehouse.ActorKey:
			by.Name, by.Prefix = rkn, rkp
		}
		l.ReleasedBy = by
	}
	return l, nil
}

// findLockdown reads one of the organization's lockdowns with its
// targets; ErrNotFound.
func findLockdown(ctx context.Context, q querier, org int64, orgID, id uuid.UUID, now time.Time) (gatehouse.Lockdown, error) {
	l, err := scanLockdown(q.QueryRowContext(ctx, lockdownSelect+" AND d.id = ?", org, id[:]), orgID)
	if errors.Is(err, sql.ErrNoRows) {
		return l, fmt.Errorf("lockdown %s: %w", id, gatehouse.ErrNotFound)
	}
	if err != nil {
		return l, err
	}
	if err := lockdownTargets(ctx, q, org, &l); err != nil {
		return l, err
	}
	return l.WithActive(now), nil
}

// lockdownTargets sums the counts of l's start commands.
func lockdownTargets(ctx context.Context, q querier, org int64, l *gatehouse.Lockdown) error {
	t := &l.Targets
	return q.QueryRowContext(ctx, `SELECT coalesce(sum(targets_live), 0), coalesce(sum(targets_delivered), 0),
		coalesce(sum(targets_executed), 0), coalesce(sum(targets_failed), 0), coalesce(sum(targets_joined), 0)
		FROM commands WHERE org = ? AND lockdown_id = ? AND lockdown_start = 1`, org, l.ID[:]).
		Scan(&t.Live, &t.Delivered, &t.Executed, &t.Failed, &t.Joined)
}

// readLockdowns reads the lockdowns of a query (lockdownSelect and more)
// with their targets.
func readLockdowns(ctx context.Context, q querier, org int64, orgID uuid.UUID, now time.Time, query string, args ...any) ([]gatehouse.Lockdown, error) {
	return readLockdownsWith(ctx, q, org, orgID, now, true, query, args...)
}

// readLockdownsWith is readLockdowns, reading the targets or not.
func readLockdownsWith(ctx context.Context, q querier, org int64, orgID uuid.UUID, now time.Time, targets bool, query string, args ...any) ([]gatehouse.Lockdown, error) {
	rows, err := q.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	out := []gatehouse.Lockdown{}
	for rows.Next() {
		l, err := scanLockdown(rows, orgID)
		if err != nil {
			rows.Close()
			return nil, err
		}
		out = append(out, l)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	for i := range out {
		if !targets {
			out[i] = out[i].WithActive(now)
			continue
		}
		if err := lockdownTargets(ctx, q, org, &out[i]); err != nil {
			return nil, err
		}
		out[i] = out[i].WithActive(now)
	}
	return out, nil
}

// addLockdownChange appends a start or release to the lockdown feed.
func addLockdownChange(ctx context.Context, tx *sql.Tx, org int64, id uuid.UUID, released bool) error {
	_, err := tx.ExecContext(ctx, "INSERT INTO lockdown_changes (org, lockdown_id, released) VALUES (?, ?, ?)", org, id[:], released)
	return err
}

// CreateLockdown stores a lockdown, its start commands, the end of the
// unlocks in force it covers and its audit entry, in one transaction.
func (db *DB) CreateLockdown(ctx context.Context, e gatehouse.AuditEntry, nl gatehouse.NewLockdown) (_ gatehouse.Lockdown, err error) {
	defer sqlstore.Label(&err, "Store.CreateLockdown", nl.OrgID, nl.ID)
	var out gatehouse.Lockdown
	err = db.withTx(ctx, func(tx *sql.Tx) error {
		org, err := db.orgSeq(ctx, tx, nl.OrgID)
		if err != nil {
			return err
		}
		name := lockdownName(nl.Lockdown)
		if nl.LocationID != nil {
			loc, err := findLocation(ctx, tx, org, nl.OrgID, *nl.LocationID)
			if err != nil {
				return err
			}
			name = loc.Name
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO lockdowns (org, id, scope, universe_id, location_id, reason,
			started_at, until, requested_by, issued_by_key) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
			org, nl.ID[:], string(nl.Scope), optString(nl.UniverseID), optUUID(nl.LocationID), nl.Reason,
			millis(time.Time(nl.StartedAt)), optTimeMillis(nl.Until), optUUID(nl.RequestedByUser), optUUID(nl.IssuedByKeyID)); err != nil {
			return err
		}
		if err := addLockdownChange(ctx, tx, org, nl.ID, false); err != nil {
			return err
		}
		for _, c := range nl.Commands {
			if err := db.insertLockdownCommand(ctx, tx, org, c, true); err != nil {
				return err
			}
		}
		if err := endUnlocks(ctx, tx, org, nl.Lockdown); err != nil {
			return err
		}
		if err := db.appendAudit(ctx, tx, org, e.Of(nl.OrgID, gatehouse.AuditTarget{Type: gatehouse.TargetLockdown, ID: nl.ID, Name: name})); err != nil {
			return err
		}
		out, err = findLockdown(ctx, tx, org, nl.OrgID, nl.ID, time.Time(nl.StartedAt))
		return err
	})
	return out, err
}

// lockdownName names a lockdown's target in its audit entries.
func lockdownName(l gatehouse.Lockdown) string {
	switch {
	case l.Location != nil:
		return l.Location.Name
	case l.UniverseID != nil:
		return "universe " + *l.UniverseID
	}
	return "organization"
}

func optTimeMillis(t *gatehouse.Time) any {
	if t == nil {
		return nil
	}
	return millis(time.Time(*t))
}

// insertLockdownCommand stores one LOCKDOWN command of a start or a
// release: its row, a delivery row per target server, and its wake.
func (db *DB) insertLockdownCommand(ctx context.Context, tx *sql.Tx, org int64, c gatehouse.IssuedCommand, start bool) error {
	snapshot, err := json.Marshal(c.Lockdown)
	if err != nil {
		return err
	}
	targets := slices.Compact(slices.Sorted(slices.Values(c.TargetJobIDs)))
	if _, err := tx.ExecContext(ctx, `INSERT INTO commands
		(org, id, issued, type, access_point_id, location_id, universe_id, scope, status,
		 duration_s, issued_at, expires_at, status_at, requested_by, issued_by_key, targets_live,
		 lockdown_id, lockdown_start, lockdown)
		VALUES (?, ?, 1, ?, ?, ?, ?, ?, ?, 0, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		org, c.ID[:], string(gatehouse.CommandLockdown), uuid.Nil[:], c.Location.ID[:], c.UniverseID, string(gatehouse.ScopeUniverse),
		string(c.Status), millis(time.Time(c.IssuedAt)), millis(time.Time(c.ExpiresAt)), millis(time.Time(c.StatusAt)),
		optUUID(c.RequestedByUser), optUUID(c.IssuedByKeyID), len(targets), c.Lockdown.ID[:], start, string(snapshot)); err != nil {
		return err
	}
	for _, job := range targets {
		if _, err := tx.ExecContext(ctx, `INSERT INTO command_deliveries (org, command_id, job_id, target)
			VALUES (?, ?, ?, 1) ON CONFLICT DO NOTHING`, org, c.ID[:], job); err != nil {
			return err
		}
	}
	for _, w := range c.Wakes() {
		if err := db.leaveWake(ctx, tx, w); err != nil {
			return err
		}
	}
	return nil
}

// endUnlocks ends the organization's unlocks in force that l covers, at
// l's start: not delivered yet, CANCELLED; started, cut to the seconds
// they had run (gatehouse.EndUnlockSeconds, rounded up).
func endUnlocks(ctx context.Context, tx *sql.Tx, org int64, l gatehouse.Lockdown) error {
	at := millis(time.Time(l.StartedAt))
	cover, args := "", []any{}
	switch l.Scope {
	case gatehouse.LockdownUniverse:
		cover, args = " AND universe_id = ?", []any{*l.UniverseID}
	case gatehouse.LockdownLocation:
		cover, args = " AND location_id = ?", []any{l.LocationID[:]}
	}
	if _, err := tx.ExecContext(ctx, `UPDATE commands SET status = 'CANCELLED', status_at = ?
		WHERE org = ? AND issued = 1 AND type = 'UNLOCK' AND status = 'PENDING' AND started_at IS NULL
		AND expires_at > ? AND issued_at <= ?`+cover, append([]any{at, org, at, at}, args...)...); err != nil {
		return err
	}
	_, err := tx.ExecContext(ctx, `UPDATE commands SET duration_s = max(0, (? - started_at + 999) / 1000)
		WHERE org = ? AND issued = 1 AND type = 'UNLOCK' AND status IN ('PENDING', 'DELIVERED', 'EXECUTED')
		AND started_at IS NOT NULL AND started_at + duration_s * 1000 > ?`+cover, append([]any{at, org, at}, args...)...)
	return err
}

// FindLockdown returns one of the organization's lockdowns.
func (db *DB) FindLockdown(ctx context.Context, orgID, id uuid.UUID, now time.Time) (_ gatehouse.Lockdown, err error) {
	defer sqlstore.Label(&err, "Store.FindLockdown", orgID, id)
	org, err := db.orgSeq(ctx, db.read, orgID)
	if err != nil {
		return gatehouse.Lockdown{}, err
	}
	l, err := findLockdown(ctx, db.read, org, orgID, id, now)
	return l, wrap(err)
}

// ReleaseLockdown releases one of the organization's lockdowns that runs.
func (db *DB) ReleaseLockdown(ctx context.Context, e gatehouse.AuditEntry, orgID, id uuid.UUID, r gatehouse.LockdownRelease) (_ gatehouse.Lockdown, released bool, err error) {
	defer sqlstore.Label(&err, "Store.ReleaseLockdown", orgID, id)
	var out gatehouse.Lockdown
	err = db.withTx(ctx, func(tx *sql.Tx) error {
		org, err := db.orgSeq(ctx, tx, orgID)
		if err != nil {
			return err
		}
		if out, err = findLockdown(ctx, tx, org, orgID, id, r.At); err != nil {
			return err
		}
		if out.ReleasedAt != nil || (out.Until != nil && !time.Time(*out.Until).After(r.At)) {
			return nil
		}
		if _, err := tx.ExecContext(ctx, `UPDATE lockdowns SET released_at = ?, released_type = ?, released_by = ?
			WHERE org = ? AND id = ? AND released_at IS NULL`,
			millis(r.At), string(r.By.Type), optUUID(r.By.ID), org, id[:]); err != nil {
			return err
		}
		if err := addLockdownChange(ctx, tx, org, id, true); err != nil {
			return err
		}
		for _, c := range r.Commands {
			if err := db.insertLockdownCommand(ctx, tx, org, c, false); err != nil {
				return err
			}
		}
		if err := db.appendAudit(ctx, tx, org, e.Of(orgID, gatehouse.AuditTarget{Type: gatehouse.TargetLockdown, ID: id, Name: lockdownName(out)})); err != nil {
			return err
		}
		released = true
		out, err = findLockdown(ctx, tx, org, orgID, id, r.At)
		return err
	})
	return out, released, err
}

// ExpireLockdowns releases, by the system, the lockdowns whose until came.
func (db *DB) ExpireLockdowns(ctx context.Context, e gatehouse.AuditEntry, now time.Time) (_ []gatehouse.Lockdown, err error) {
	defer sqlstore.Label(&err, "Store.ExpireLockdowns", uuid.Nil)
	type due struct {
		org   int64
		orgID uuid.UUID
		id    uuid.UUID
	}
	dues, err := queryAll(ctx, db.read, func(r *sql.Rows, d *due) error {
		return r.Scan(&d.org, &d.orgID, &d.id)
	}, `SELECT d.org, o.id, d.id FROM lockdowns d INDEXED BY lockdowns_until JOIN organizations o ON o.seq = d.org
		WHERE d.released_at IS NULL AND d.until IS NOT NULL AND d.until <= ? ORDER BY d.until LIMIT 100`, millis(now))
	if err != nil {
		return nil, wrap(err)
	}
	out := []gatehouse.Lockdown{}
	for _, d := range dues {
		err := db.withTx(ctx, func(tx *sql.Tx) error {
			res, err := tx.ExecContext(ctx, `UPDATE lockdowns SET released_at = until, released_type = 'system', released_by = NULL
				WHERE org = ? AND id = ? AND released_at IS NULL`, d.org, d.id[:])
			if err != nil {
				return err
			}
			if n, _ := res.RowsAffected(); n == 0 {
				return nil // another instance released it
			}
			if err := addLockdownChange(ctx, tx, d.org, d.id, true); err != nil {
				return err
			}
			l, err := findLockdown(ctx, tx, d.org, d.orgID, d.id, now)
			if err != nil {
				return err
			}
			if err := db.appendAudit(ctx, tx, d.org, e.Of(d.orgID, gatehouse.AuditTarget{Type: gatehouse.TargetLockdown, ID: d.id, Name: lockdownName(l)})); err != nil {
				return err
			}
			out = append(out, l)
			return nil
		})
		if err != nil {
			return out, err
		}
	}
	return out, nil
}
