package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/gatehouse/gatehouse"
	"github.com/gatehouse/gatehouse/internal/sqlstore"
	"github.com/google/uuid"
)

// SetLocationUniverse sets (or, with "", clears) the universe of an
// organization's location.
func (db *DB) SetLocationUniverse(ctx context.Context, e gatehouse.AuditEntry, orgID, id uuid.UUID, universeID string) (_ gatehouse.Location, err error) {
	defer sqlstore.Label(&err, "Store.SetLocationUniverse", orgID, id)
	var l gatehouse.Location
	err = db.withTx(ctx, func(tx *sql.Tx) error {
		org, err := db.orgSeq(ctx, tx, orgID)
		if err != nil {
			return err
		}
		if l, err = findLocation(ctx, tx, org, orgID, id); err != nil {
			return err
		}
		old := ""
		if l.UniverseID != nil {
			old = *l.UniverseID
		}
		if old == universeID {
			return nil
		}
		var stored any
		if universeID != "" {
			stored = universeID
			l.UniverseID = &universeID
		} else {
			l.UniverseID = nil
		}
		if _, err := tx.ExecContext(ctx, "UPDATE locations SET universe_id = ? WHERE id = ? AND org = ?", stored, id[:], org); err != nil {
			return err
		}
		if err := checkUniverse(ctx, tx, org, universeID, true, true); err != nil {
			return err
		}
		return db.appendAudit(ctx, tx, org, e.Of(orgID, gatehouse.AuditTarget{Type: gatehouse.TargetLocation, ID: id, Name: l.Name}).
			Change("universeId", old, universeID))
	})
	return l, err
}

// FindAccessPoint returns an organization's access point.
func (db *DB) FindAccessPoint(ctx context.Context, orgID, id uuid.UUID) (_ gatehouse.AccessPoint, err error) {
	defer sqlstore.Label(&err, "Store.FindAccessPoint", orgID, id)
	org, err := db.orgSeq(ctx, db.read, orgID)
	if err != nil {
		return gatehouse.AccessPoint{}, err
	}
	ap, err := findAccessPoint(ctx, db.read, org, id)
	return ap, wrap(err)
}

// CreateCommand stores an issued command, its target rows, its
// REMOTE_UNLOCK event, its idempotency key, its audit entry and a wake,
// in one transaction.
func (db *DB) CreateCommand(ctx context.Context, e gatehouse.AuditEntry, c gatehouse.IssuedCommand) (_ gatehouse.Command, err error) {
	defer sqlstore.Label(&err, "Store.CreateCommand", c.OrgID, c.ID)
	var out gatehouse.Command
	err = db.withTx(ctx, func(tx *sql.Tx) error {
		org, err := db.orgSeq(ctx, tx, c.OrgID)
		if err != nil {
			return err
		}
		if c.Idempotency != nil {
			if err := rememberKey(ctx, tx, org, c.ID, *c.Idempotency); err != nil {
				return err
			}
		}
		place, err := commandPlace(ctx, tx, org, c.Command)
		if err != nil {
			return err
		}
		// A server named twice is one target.
		targets := slices.Compact(slices.Sorted(slices.Values(c.TargetJobIDs)))
		if _, err := tx.ExecContext(ctx, `INSERT INTO commands
			(org, id, issued, type, access_point_id, location_id, universe_id, scope, status, failure_reason,
			 server_job_id, platform_user_id, duration_s, note, issued_at, expires_at, status_at,
			 requested_by, issued_by_key, targets_live)
			VALUES (?, ?, 1, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
			org, c.ID[:], string(c.Type), c.AccessPoint.ID[:], c.Location.ID[:], c.UniverseID, string(c.Scope),
			string(c.Status), optString(c.FailureReason), optString(c.ServerJobID), optString(c.PlatformUserID),
			c.DurationSeconds, optString(c.Note), millis(time.Time(c.IssuedAt)), millis(time.Time(c.ExpiresAt)),
			millis(time.Time(c.StatusAt)), optUUID(c.RequestedByUser), optUUID(c.IssuedByKeyID), len(targets)); err != nil {
			return err
		}
		for _, job := range targets {
			if _, err := tx.ExecContext(ctx, `INSERT INTO command_deliveries (org, command_id, job_id, target)
				VALUES (?, ?, ?, 1) ON CONFLICT DO NOTHING`, org, c.ID[:], job); err != nil {
				return err
			}
		}
		if err := db.recordUnlock(ctx, tx, org, c, place); err != nil {
			return err
		}
		if err := db.appendAudit(ctx, tx, org, e.Of(c.OrgID, gatehouse.AuditTarget{Type: gatehouse.TargetCommand, ID: c.ID, Name: place.AccessPointName})); err != nil {
			return err
		}
		for _, w := range c.Wakes() {
			if err := db.leaveWake(ctx, tx, w); err != nil {
				return err
			}
		}
		out, err = findCommand(ctx, tx, org, c.OrgID, c.ID, true)
		return err
	})
	return out, err
}

// rememberKey stores an Idempotency-Key with its command. A key older than
// IdempotencyWindow is replaced (the sweep may not have reached it yet);
// a live one is ErrConflict.
func rememberKey(ctx context.Context, tx *sql.Tx, org int64, id uuid.UUID, k gatehouse.IdempotencyKey) error {
	if _, err := tx.ExecContext(ctx, "DELETE FROM idempotency_keys WHERE org = ? AND key = ? AND created_at < ?",
		org, k.Key, millis(k.At.Add(-gatehouse.IdempotencyWindow))); err != nil {
		return err
	}
	r, err := tx.ExecContext(ctx, `INSERT INTO idempotency_keys (org, key, command_id, digest, created_at)
		VALUES (?, ?, ?, ?, ?) ON CONFLICT DO NOTHING`, org, k.Key, id[:], k.Digest[:], millis(k.At))
	if err != nil {
		return err
	}
	if n, _ := r.RowsAffected(); n == 0 {
		return fmt.Errorf("idempotency key %q: %w", k.Key, gatehouse.ErrConflict)
	}
	return nil
}

// commandPlace reads the current names of the command's access point and
// location in the organization: the event records them.
func commandPlace(ctx context.Context, tx *sql.Tx, org int64, c gatehouse.Command) (sqlstore.Place, error) {
	p := sqlstore.Place{LocationID: c.Location.ID}
	err := tx.QueryRowContext(ctx, `SELECT a.name, l.name FROM access_points a, locations l
		WHERE a.id = ? AND a.org = ? AND l.id = ? AND l.org = ?`, c.AccessPoint.ID[:], org, c.Location.ID[:], org).
		Scan(&p.AccessPointName, &p.LocationName)
	if errors.Is(err, sql.ErrNoRows) {
		return p, fmt.Errorf("access point %s: %w", c.AccessPoint.ID, gatehouse.ErrNotFound)
	}
	return p, err
}

// recordUnlock stores the command's REMOTE_UNLOCK event. Its command row
// exists already and is issued, so the event's report of it changes
// nothing: the event shows the command's live status.
func (db *DB) recordUnlock(ctx context.Context, tx *sql.Tx, org int64, c gatehouse.IssuedCommand, p sqlstore.Place) error {
	scope := c.Scope
	ev := gatehouse.NewEvent{ID: c.ID, Type: gatehouse.EventRemoteUnlock, OccurredAt: time.Time(c.IssuedAt),
		AccessPointID: c.AccessPoint.ID, PlatformUserID: c.PlatformUserID, ServerJobID: c.ServerJobID,
		Scope: &scope, RequestedBy: c.RequestedByUser,
		Command: &gatehouse.NewCommand{ID: c.ID, Status: c.Status, Scope: c.Scope, ServerJobID: c.ServerJobID,
			PlatformUserID: c.PlatformUserID, IssuedAt: time.Time(c.IssuedAt)}}
	ins := eventInserter{tx: tx, noRollups: db.noRollups.Load()}
	// Commands are few: their terms are written without the cache.
	if err := ins.insertTerms(ctx, org, sqlstore.AppendTerms(nil, ev, p)); err != nil {
		return err
	}
	if _, err := ins.insert(ctx, org, ev, p, millis(db.Now())); err != nil {
		return err
	}
	return ins.addInsights(ctx, org)
}

// leaveWake tells the watchers of other processes (WatchCommands) that
// servers of the organization's universe may have a command.
func (db *DB) leaveWake(ctx context.Context, tx *sql.Tx, w gatehouse.Wake) error {
	_, err := tx.ExecContext(ctx, "INSERT INTO command_wakes (org, universe_id, job_id, at) VALUES (?, ?, ?, ?)",
		w.OrgID[:], w.UniverseID, w.JobID, millis(db.Now()))
	return err
}

// FindIdempotencyKey returns the command and digest stored with an
// organization's key at or after since.
func (db *DB) FindIdempotencyKey(ctx context.Context, orgID uuid.UUID, key string, since time.Time) (_ uuid.UUID, _ [32]byte, err error) {
	defer sqlstore.Label(&err, "Store.FindIdempotencyKey", orgID)
	var (
		id     uuid.UUID
		digest [32]byte
		raw    []byte
	)
	org, err := db.orgSeq(ctx, db.read, orgID)
	if err != nil {
		return id, digest, err
	}
	err = db.read.QueryRowContext(ctx, "SELECT command_id, digest FROM idempotency_keys WHERE org = ? AND key = ? AND created_at >= ?",
		org, key, millis(since)).Scan(&id, &raw)
	if errors.Is(err, sql.ErrNoRows) {
		return id, digest, fmt.Errorf("idempotency key %q: %w", key, gatehouse.ErrNotFound)
	}
	if err != nil {
		return id, digest, wrap(err)
	}
	copy(digest[:], raw)
	return id, digest, nil
}

// CancelCommand moves an organization's unsettled command to CANCELLED.
func (db *DB) CancelCommand(ctx context.Context, e gatehouse.AuditEntry, orgID, id uuid.UUID, at time.Time) (_ gatehouse.Command, err error) {
	defer sqlstore.Label(&err, "Store.CancelCommand", orgID, id)
	var c gatehouse.Command
	err = db.withTx(ctx, func(tx *sql.Tx) error {
		org, err := db.orgSeq(ctx, tx, orgID)
		if err != nil {
			return err
		}
		if c, err = findCommand(ctx, tx, org, orgID, id, false); err != nil {
			return err
		}
		if c.Status.Settled() {
			return fmt.Errorf("command %s is %s: %w", id, c.Status, gatehouse.ErrConflict)
		}
		if _, err := tx.ExecContext(ctx, `UPDATE commands SET status = 'CANCELLED', status_at = ?
			WHERE org = ? AND id = ? AND status IN ('PENDING', 'DELIVERED')`, millis(at), org, id[:]); err != nil {
			return err
		}
		// Every row of the command, whatever it holds now: an answer on
		// its way is then marked too (see dueRelock).
		if _, err := tx.ExecContext(ctx, `UPDATE command_deliveries SET relock = 1
			WHERE org = ? AND command_id = ?`, org, id[:]); err != nil {
			return err
		}
		if err := db.appendAudit(ctx, tx, org, e.Of(orgID, gatehouse.AuditTarget{Type: gatehouse.TargetCommand, ID: id, Name: c.AccessPoint.Name}).
			Change("status", string(c.Status), string(gatehouse.CommandCancelled))); err != nil {
			return err
		}
		if err := db.leaveWake(ctx, tx, gatehouse.Wake{OrgID: orgID, UniverseID: c.UniverseID}); err != nil {
			return err
		}
		c.Status, c.StatusAt = gatehouse.CommandCancelled, gatehouse.Time(at)
		return nil
	})
	return c, err
}
