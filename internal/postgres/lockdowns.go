package postgres

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/gatehouse/gatehouse"
	"github.com/gatehouse/gatehouse/internal/sqlstore"
	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
)

// lockdownSelect reads lockdowns (alias d) with the names they show: the
// location's, the requester's or key's, and the releaser's. The caller
// appends its conditions after "WHERE d.org = $1".
const lockdownSelect = `SELECT d.id, d.scope, d.universe_id, d.location_id, coalesce(l.name, ''), d.reason,
	d.started_at, d.until, d.released_at,
	d.requested_by, coalesce(u.email, ''), coalesce(u.name, ''), d.issued_by_key, coalesce(k.name, ''), coalesce(k.prefix, ''),
	d.released_type, d.released_by, coalesce(ru.email, ''), coalesce(ru.name, ''), coalesce(rk.name, ''), coalesce(rk.prefix, '')
	FROM lockdowns d
	LEFT JOIN locations l ON l.id = d.location_id AND l.org = d.org
	LEFT JOIN users u ON u.id = d.requested_by AND u.org = d.org
	LEFT JOIN api_keys k ON k.id = d.issued_by_key AND k.org = d.org
	LEFT JOIN users ru ON d.released_type = 'user' AND ru.id = d.released_by AND ru.org = d.org
	LEFT JOIN api_keys rk ON d.released_type = 'key' AND rk.id = d.released_by AND rk.org = d.org
	WHERE d.org = $1`

// runningAt is the condition of a lockdown that runs at the instant of
// parameter $2.
const runningAt = ` AND d.started_at <= $2 AND (d.released_at IS NULL OR d.released_at > $2) AND (d.until IS NULL OR d.until > $2)`

func scanLockdown(r pgx.Row) (gatehouse.Lockdown, error) {
	var (
		l                                gatehouse.Lockdown
		location, requestedBy, keyID, by *uuid.UUID
		releasedType                     *string
		locName, email, name, kn, kp     string
		remail, rname, rkn, rkp          string
		started                          time.Time
		until, released                  *time.Time
	)
	err := r.Scan(&l.ID, &l.Scope, &l.UniverseID, &location, &locName, &l.Reason, &started, &until, &released,
		&requestedBy, &email, &name, &keyID, &kn, &kp, &releasedType, &by, &remail, &rname, &rkn, &rkp)
	if err != nil {
		return l, err
	}
	if location != nil {
		l.LocationID, l.Location = location, &gatehouse.NamedRef{ID: *location, Name: locName}
	}
	l.StartedAt = gatehouse.Time(started.UTC())
	l.Until, l.ReleasedAt = optTime(until), optTime(released)
	if requestedBy != nil {
		l.RequestedBy = &gatehouse.Requester{ID: *requestedBy, Email: email, Name: name}
	}
	if keyID != nil {
		l.IssuedByKey = &gatehouse.KeyRef{ID: *keyID, Name: kn, Prefix: kp}
	}
	if releasedType != nil {
		r := &gatehouse.LockdownActor{Type: gatehouse.ActorType(*releasedType), ID: by}
		switch r.Type {
		case gatehouse.ActorUser:
			r.Email, r.Name = remail, rname
		case gatehouse.ActorKey:
			r.Name, r.Prefix = rkn, rkp
		}
		l.ReleasedBy = r
	}
	return l, nil
}

// readLockdowns reads the lockdowns of a query (lockdownSelect and more)
// with their targets, Active as of now.
func readLockdowns(ctx context.Context, q querier, org int64, orgID uuid.UUID, now time.Time, query string, args ...any) ([]gatehouse.Lockdown, error) {
	return readLockdownsWith(ctx, q, org, orgID, now, true, query, args...)
}

// readLockdownsWith is readLockdowns, reading the targets or not.
func readLockdownsWith(ctx context.Context, q querier, org int64, orgID uuid.UUID, now time.Time, targets bool, query string, args ...any) ([]gatehouse.Lockdown, error) {
	rows, _ := q.Query(ctx, query, args...)
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (gatehouse.Lockdown, error) { return scanLockdown(r) })
	if err != nil {
		return nil, err
	}
	for i := range out {
		out[i].OrgID = orgID
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

// findLockdown reads one of the organization's lockdowns; ErrNotFound.
func findLockdown(ctx context.Context, q querier, org int64, orgID, id uuid.UUID, now time.Time) (gatehouse.Lockdown, error) {
	ls, err := readLockdowns(ctx, q, org, orgID, now, lockdownSelect+" AND d.id = $2", org, id)
	if err != nil {
		return gatehouse.Lockdown{}, err
	}
	if len(ls) == 0 {
		return gatehouse.Lockdown{}, fmt.Errorf("lockdown %s: %w", id, gatehouse.ErrNotFound)
	}
	return ls[0], nil
}

// lockdownTargets sums the counts of l's start commands: the live
// targets on the commands, the rest in command_delivery_counts.
func lockdownTargets(ctx context.Context, q querier, org int64, l *gatehouse.Lockdown) error {
	t := &l.Targets
	return q.QueryRow(ctx, `SELECT coalesce((SELECT sum(targets_live) FROM commands WHERE org = $1 AND lockdown_id = $2 AND lockdown_start), 0),
		coalesce(sum(n.delivered), 0), coalesce(sum(n.executed), 0), coalesce(sum(n.failed), 0), coalesce(sum(n.joined), 0)
		FROM commands c JOIN command_delivery_counts n ON n.org = c.org AND n.command_id = c.id
		WHERE c.org = $1 AND c.lockdown_id = $2 AND c.lockdown_start`, org, l.ID).
		Scan(&t.Live, &t.Delivered, &t.Executed, &t.Failed, &t.Joined)
}

// CreateLockdown stores a lockdown, its start commands, the end of the
// unlocks in force it covers and its audit entry, in one transaction
// whose commit sends the commands' wakes.
func (db *DB) CreateLockdown(ctx context.Context, e gatehouse.AuditEntry, nl gatehouse.NewLockdown) (_ gatehouse.Lockdown, err error) {
	defer sqlstore.Label(&err, "Store.CreateLockdown", nl.OrgID, nl.ID)
	org, err := db.orgSeq(ctx, db.pool, nl.OrgID)
	if err != nil {
		return gatehouse.Lockdown{}, err
	}
	started := gatehouse.Truncate(time.Time(nl.StartedAt))
	var out gatehouse.Lockdown
	err = db.withTx(ctx, func(tx pgx.Tx) error {
		name := lockdownName(nl.Lockdown)
		if nl.LocationID != nil {
			// KEY SHARE: a delete of the location (FOR UPDATE) waits for
			// this lockdown, then counts it, as it does a grant's.
			err := tx.QueryRow(ctx, "SELECT name FROM locations WHERE org = $1 AND id = $2 FOR KEY SHARE", org, *nl.LocationID).Scan(&name)
			if errors.Is(err, pgx.ErrNoRows) {
				return fmt.Errorf("location %s: %w", *nl.LocationID, gatehouse.ErrNotFound)
			}
			if err != nil {
				return err
			}
		}
		var until *time.Time
		if nl.Until != nil {
			u := gatehouse.Truncate(time.Time(*nl.Until))
			until = &u
		}
		if _, err := tx.Exec(ctx, `INSERT INTO lockdowns (org, id, scope, universe_id, location_id, reason,
			started_at, until, requested_by, issued_by_key) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
			org, nl.ID, string(nl.Scope), nl.UniverseID, nl.LocationID, nl.Reason, started, until,
			nl.RequestedByUser, nl.IssuedByKeyID); err != nil {
			return err
		}
		if err := addLockdownChange(ctx, tx, org, nl.ID, false); err != nil {
			return err
		}
		for _, c := range nl.Commands {
			if err := insertLockdownCommand(ctx, tx, org, c, true); err != nil {
				return err
			}
		}
		if err := endUnlocks(ctx, tx, org, nl.Lockdown, started); err != nil {
			return err
		}
		if err := db.appendAudit(ctx, tx, org, e.Of(nl.OrgID, gatehouse.AuditTarget{Type: gatehouse.TargetLockdown, ID: nl.ID, Name: name})); err != nil {
			return err
		}
		out, err = findLockdown(ctx, tx, org, nl.OrgID, nl.ID, started)
		return err
	})
	return out, err
}

// addLockdownChange appends a start or release to the lockdown feed, at
// the organization's position (positionNow).
func addLockdownChange(ctx context.Context, tx pgx.Tx, org int64, id uuid.UUID, released bool) error {
	_, err := tx.Exec(ctx, "INSERT INTO lockdown_changes (org, xid, lockdown_id, released) VALUES ($1, "+positionNow("$1")+", $2, $3)",
		org, id, released)
	return err
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

// insertLockdownCommand stores one LOCKDOWN command of a start or a
// release: its row, a delivery row per target server, and its wake.
func insertLockdownCommand(ctx context.Context, tx pgx.Tx, org int64, c gatehouse.IssuedCommand, start bool) error {
	snapshot, err := json.Marshal(c.Lockdown)
	if err != nil {
		return err
	}
	targets := slices.Compact(slices.Sorted(slices.Values(c.TargetJobIDs)))
	if _, err := tx.Exec(ctx, `INSERT INTO commands (org, id, access_point_id, scope, status, issued_at, status_at, issued, type,
			universe_id, location_id, duration_s, expires_at, requested_by, issued_by_key, targets_live, lockdown_id, lockdown_start, lockdown)
		VALUES ($1, $2, $3, $4, $5, $6, $7, true, $8, $9, $10, 0, $11, $12, $13, $14, $15, $16, $17)`,
		org, c.ID, uuid.Nil, string(gatehouse.ScopeUniverse), string(c.Status), gatehouse.Truncate(time.Time(c.IssuedAt)),
		gatehouse.Truncate(time.Time(c.StatusAt)), string(gatehouse.CommandLockdown), c.UniverseID, c.Location.ID,
		gatehouse.Truncate(time.Time(c.ExpiresAt)), c.RequestedByUser, c.IssuedByKeyID, len(targets), c.Lockdown.ID, start, string(snapshot)); err != nil {
		return err
	}
	if len(targets) > 0 {
		if _, err := tx.Exec(ctx, `INSERT INTO command_deliveries (org, command_id, job_id, target)
			SELECT $1, $2, job, true FROM unnest($3::text[]) AS job ON CONFLICT DO NOTHING`, org, c.ID, targets); err != nil {
			return err
		}
	}
	for _, w := range c.Wakes() {
		if err := notifyWake(ctx, tx, w); err != nil {
			return err
		}
	}
	return nil
}

// endUnlocks ends the organization's unlocks in force that l covers, at
// its start: not delivered yet, CANCELLED; started, cut to the seconds
// they had run (gatehouse.EndUnlockSeconds, rounded up).
func endUnlocks(ctx context.Context, tx pgx.Tx, org int64, l gatehouse.Lockdown, at time.Time) error {
	cover, args := "", []any{org, at}
	switch l.Scope {
	case gatehouse.LockdownUniverse:
		cover, args = " AND universe_id = $3", append(args, *l.UniverseID)
	case gatehouse.LockdownLocation:
		cover, args = " AND location_id = $3", append(args, *l.LocationID)
	}
	if _, err := tx.Exec(ctx, `UPDATE commands SET status = 'CANCELLED', status_at = $2
		WHERE org = $1 AND issued AND type = 'UNLOCK' AND status = 'PENDING' AND started_at IS NULL
		AND expires_at > $2 AND issued_at <= $2`+cover, args...); err != nil {
		return err
	}
	_, err := tx.Exec(ctx, `UPDATE commands SET duration_s = greatest(0, ceil(extract(epoch FROM ($2 - started_at))))::integer
		WHERE org = $1 AND issued AND type = 'UNLOCK' AND status IN ('PENDING', 'DELIVERED', 'EXECUTED')
		AND started_at IS NOT NULL AND started_at + duration_s * interval '1 second' > $2`+cover, args...)
	return err
}

// FindLockdown returns one of the organization's lockdowns.
func (db *DB) FindLockdown(ctx context.Context, orgID, id uuid.UUID, now time.Time) (_ gatehouse.Lockdown, err error) {
	defer sqlstore.Label(&err, "Store.FindLockdown", orgID, id)
	org, err := db.orgSeq(ctx, db.pool, orgID)
	if err != nil {
		return gatehouse.Lockdown{}, err
	}
	l, err := findLockdown(ctx, db.pool, org, orgID, id, now)
	return l, wrap(err)
}

// ReleaseLockdown releases one of the organization's lockdowns that runs.
func (db *DB) ReleaseLockdown(ctx context.Context, e gatehouse.AuditEntry, orgID, id uuid.UUID, r gatehouse.LockdownRelease) (_ gatehouse.Lockdown, released bool, err error) {
	defer sqlstore.Label(&err, "Store.ReleaseLockdown", orgID, id)
	org, err := db.orgSeq(ctx, db.pool, orgID)
	if err != nil {
		return gatehouse.Lockdown{}, false, err
	}
	at := gatehouse.Truncate(r.At)
	var out gatehouse.Lockdown
	err = db.withTx(ctx, func(tx pgx.Tx) error {
		tag, err := tx.Exec(ctx, `UPDATE lockdowns SET released_at = $3, released_type = $4, released_by = $5
			WHERE org = $1 AND id = $2 AND released_at IS NULL AND (until IS NULL OR until > $3)`,
			org, id, at, string(r.By.Type), r.By.ID)
		if err != nil {
			return err
		}
		if tag.RowsAffected() == 0 {
			out, err = findLockdown(ctx, tx, org, orgID, id, at)
			return err
		}
		if err := addLockdownChange(ctx, tx, org, id, true); err != nil {
			return err
		}
		if out, err = findLockdown(ctx, tx, org, orgID, id, at); err != nil {
			return err
		}
		for _, c := range r.Commands {
			if err := insertLockdownCommand(ctx, tx, org, c, false); err != nil {
				return err
			}
		}
		if err := db.appendAudit(ctx, tx, org, e.Of(orgID, gatehouse.AuditTarget{Type: gatehouse.TargetLockdown, ID: id, Name: lockdownName(out)})); err != nil {
			return err
		}
		released = true
		return nil
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
	rows, _ := db.pool.Query(ctx, `SELECT d.org, o.id, d.id FROM lockdowns d JOIN organizations o ON o.seq = d.org
		WHERE d.released_at IS NULL AND d.until IS NOT NULL AND d.until <= $1 ORDER BY d.until LIMIT 100`, now)
	dues, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (due, error) {
		var d due
		err := r.Scan(&d.org, &d.orgID, &d.id)
		return d, err
	})
	if err != nil {
		return nil, wrap(err)
	}
	out := []gatehouse.Lockdown{}
	for _, d := range dues {
		err := db.withTx(ctx, func(tx pgx.Tx) error {
			tag, err := tx.Exec(ctx, `UPDATE lockdowns SET released_at = until, released_type = 'system', released_by = NULL
				WHERE org = $1 AND id = $2 AND released_at IS NULL`, d.org, d.id)
			if err != nil || tag.RowsAffected() == 0 {
				return err // 0: another instance released it
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
