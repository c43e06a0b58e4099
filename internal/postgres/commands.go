package postgres

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/gatehouse/gatehouse"
	"github.com/gatehouse/gatehouse/internal/sqlstore"
	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
)

// CreateCommand stores an issued command with its deliveries, its
// REMOTE_UNLOCK event, its idempotency key and its audit entry in one
// transaction, whose commit also sends the wake (pg_notify is delivered
// on commit, never for a command that was rolled back).
func (db *DB) CreateCommand(ctx context.Context, e gatehouse.AuditEntry, c gatehouse.IssuedCommand) (_ gatehouse.Command, err error) {
	defer sqlstore.Label(&err, "Store.CreateCommand", c.OrgID, c.ID)
	org, err := db.orgSeq(ctx, db.pool, c.OrgID)
	if err != nil {
		return gatehouse.Command{}, err
	}
	var (
		stored    gatehouse.Command
		newTerms  []sqlstore.Term
		newValues map[eventValue]int32
	)
	// Its REMOTE_UNLOCK event may be the first of a month (withMonths).
	err = db.withMonths(ctx, db.pool, []time.Time{time.Time(c.IssuedAt)}, func() error {
		return db.createCommand(ctx, e, c, org, &stored, &newTerms, &newValues)
	})
	if err == nil {
		db.terms.Add(org, newTerms)
		db.rememberValues(org, newValues)
	}
	return stored, err
}

// createCommand is CreateCommand's transaction.
func (db *DB) createCommand(ctx context.Context, e gatehouse.AuditEntry, c gatehouse.IssuedCommand, org int64,
	stored *gatehouse.Command, newTerms *[]sqlstore.Term, newValues *map[eventValue]int32) error {
	issued, statusAt := gatehouse.Truncate(time.Time(c.IssuedAt)), gatehouse.Truncate(time.Time(c.StatusAt))
	expires := gatehouse.Truncate(time.Time(c.ExpiresAt))
	return db.withTx(ctx, func(tx pgx.Tx) error {
		if c.Idempotency != nil {
			if err := rememberKey(ctx, tx, org, c.ID, *c.Idempotency); err != nil {
				return err
			}
		}
		// The names are read in the transaction: the event records them
		// as they are when the command is stored. The access point's row
		// is held until the commit (FOR KEY SHARE), as ingest holds it, so
		// that it cannot be deleted under its REMOTE_UNLOCK event.
		var place sqlstore.Place
		err := tx.QueryRow(ctx, `SELECT l.id, l.name, a.name FROM access_points a JOIN locations l ON l.id = $3 AND l.org = a.org
			WHERE a.id = $2 AND a.org = $1 FOR KEY SHARE OF a`, org, c.AccessPoint.ID, c.Location.ID).Scan(&place.LocationID, &place.LocationName, &place.AccessPointName)
		if errors.Is(err, pgx.ErrNoRows) {
			return fmt.Errorf("access point %s: %w", c.AccessPoint.ID, gatehouse.ErrNotFound)
		}
		if err != nil {
			return err
		}
		// A server named twice is one target.
		targets := slices.Compact(slices.Sorted(slices.Values(c.TargetJobIDs)))
		_, err = tx.Exec(ctx, `INSERT INTO commands (org, id, access_point_id, scope, status, server_job_id, platform_user_id,
				issued_at, status_at, issued, type, universe_id, location_id, duration_s, expires_at, note, failure_reason,
				requested_by, issued_by_key, targets_live)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, true, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19)`,
			org, c.ID, c.AccessPoint.ID, string(c.Scope), string(c.Status), c.ServerJobID, c.PlatformUserID,
			issued, statusAt, string(c.Type), c.UniverseID, c.Location.ID, c.DurationSeconds, expires, c.Note, c.FailureReason,
			c.RequestedByUser, c.IssuedByKeyID, len(targets))
		if err != nil {
			return err
		}
		if len(targets) > 0 {
			if _, err := tx.Exec(ctx, `INSERT INTO command_deliveries (org, command_id, job_id, target)
				SELECT $1, $2, job, true FROM unnest($3::text[]) AS job ON CONFLICT DO NOTHING`, org, c.ID, targets); err != nil {
				return err
			}
		}
		ev := gatehouse.NewEvent{ID: c.ID, AccessPointID: c.AccessPoint.ID, PlatformUserID: c.PlatformUserID, ServerJobID: c.ServerJobID}
		if *newTerms, err = db.insertTerms(ctx, tx, org, sqlstore.AppendTerms(nil, ev, place)); err != nil {
			return err
		}
		// Its id is recent, as an ingested event's is (storeEventsCTEs),
		// and its position the organization's (positionNow).
		// The keys of its place and server job are taken in the
		// transaction, which holds the organization's lock of them to its
		// end when it takes new ones. They are this attempt's: keys an
		// attempt rolled back took are never remembered, though a retry
		// (withMonths, retrying) finds the values known meanwhile.
		values := placeValues(c.AccessPoint.ID, place)
		all := values[:]
		if c.ServerJobID != nil {
			all = append(all, jobValue(*c.ServerJobID))
		}
		keys, missing := db.knownKeys(org, all)
		*newValues = nil
		if len(missing) > 0 {
			if *newValues, err = storeValues(ctx, tx, org, missing); err != nil {
				return err
			}
			maps.Copy(keys, *newValues)
		}
		var job *int32
		if c.ServerJobID != nil {
			k := keys[jobValue(*c.ServerJobID)]
			job = &k
		}
		_, err = tx.Exec(ctx, `WITH fresh AS (INSERT INTO recent_event_ids (org, id, received_at) VALUES ($1, $2, $5))
			INSERT INTO events (org, id, type, occurred_at, received_at, platform_user_id, server_job_id, scope,
				access_point, location, names, requested_by, command_id, xid)
			VALUES ($1, $2, event_type_code($3), $4, $5, $6, $7, event_scope_code($8), $9, $10, $11, $12, $2, `+positionNow("$1")+`)`,
			org, c.ID, string(gatehouse.EventRemoteUnlock), issued, gatehouse.Truncate(db.Now()), c.PlatformUserID, job, string(c.Scope),
			keys[values[0]], keys[values[1]], keys[values[2]], c.RequestedByUser)
		if err != nil {
			return err
		}
		target := gatehouse.AuditTarget{Type: gatehouse.TargetCommand, ID: c.ID, Name: place.AccessPointName}
		if err := db.appendAudit(ctx, tx, org, e.Of(c.OrgID, target)); err != nil {
			return err
		}
		for _, w := range c.Wakes() {
			if err := notifyWake(ctx, tx, w); err != nil {
				return err
			}
		}
		*stored, err = findCommand(ctx, tx, org, c.OrgID, c.ID)
		return err
	})
}

// rememberKey stores an Idempotency-Key with its command, or ErrConflict
// when the organization has it already. A key older than the window
// answers nothing any more (FindIdempotencyKey): it is taken over rather
// than left to block its reuse until the sweep deletes it.
func rememberKey(ctx context.Context, tx pgx.Tx, org int64, id uuid.UUID, k gatehouse.IdempotencyKey) error {
	at := gatehouse.Truncate(k.At)
	tag, err := tx.Exec(ctx, `INSERT INTO idempotency_keys (org, key, command_id, digest, created_at) VALUES ($1, $2, $3, $4, $5)
		ON CONFLICT (org, key) DO UPDATE SET command_id = excluded.command_id, digest = excluded.digest, created_at = excluded.created_at
		WHERE idempotency_keys.created_at < $6`, org, k.Key, id, k.Digest[:], at, at.Add(-gatehouse.IdempotencyWindow))
	if err != nil {
		return err
	}
	if tag.RowsAffected() == 0 {
		return fmt.Errorf("idempotency key %q: %w", k.Key, gatehouse.ErrConflict)
	}
	return nil
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
	org, err := db.orgSeq(ctx, db.pool, orgID)
	if err != nil {
		return id, digest, err
	}
	err = db.pool.QueryRow(ctx, `SELECT command_id, digest FROM idempotency_keys WHERE org = $1 AND key = $2 AND created_at >= $3`,
		org, key, since).Scan(&id, &raw)
	if errors.Is(err, pgx.ErrNoRows) {
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
	org, err := db.orgSeq(ctx, db.pool, orgID)
	if err != nil {
		return gatehouse.Command{}, err
	}
	var c gatehouse.Command
	err = db.withTx(ctx, func(tx pgx.Tx) error {
		var status gatehouse.CommandStatus
		err := tx.QueryRow(ctx, "SELECT status FROM commands WHERE org = $1 AND id = $2 AND issued FOR UPDATE", org, id).Scan(&status)
		if errors.Is(err, pgx.ErrNoRows) {
			return fmt.Errorf("command %s: %w", id, gatehouse.ErrNotFound)
		}
		if err != nil {
			return err
		}
		if status.Settled() {
			if c, err = findCommand(ctx, tx, org, orgID, id); err != nil {
				return err
			}
			return fmt.Errorf("command %s is %s: %w", id, status, gatehouse.ErrConflict)
		}
		if _, err := tx.Exec(ctx, "UPDATE commands SET status = $3, status_at = $4 WHERE org = $1 AND id = $2",
			org, id, string(gatehouse.CommandCancelled), gatehouse.Truncate(at)); err != nil {
			return err
		}
		// Every row of the command, whatever it holds now: an answer on
		// its way is then marked too (see dueCommands).
		if _, err := tx.Exec(ctx, "UPDATE command_deliveries SET relock = true WHERE org = $1 AND command_id = $2", org, id); err != nil {
			return err
		}
		if c, err = findCommand(ctx, tx, org, orgID, id); err != nil {
			return err
		}
		target := gatehouse.AuditTarget{Type: gatehouse.TargetCommand, ID: id, Name: c.AccessPoint.Name}
		if err := db.appendAudit(ctx, tx, org, e.Of(orgID, target).Change("status", string(status), string(c.Status))); err != nil {
			return err
		}
		return notifyWake(ctx, tx, gatehouse.Wake{OrgID: orgID, UniverseID: c.UniverseID})
	})
	return c, err
}

// SetLocationUniverse sets or clears the universe of an organization's location.
func (db *DB) SetLocationUniverse(ctx context.Context, e gatehouse.AuditEntry, orgID, id uuid.UUID, universeID string) (_ gatehouse.Location, err error) {
	defer sqlstore.Label(&err, "Store.SetLocationUniverse", orgID, id)
	org, err := db.orgSeq(ctx, db.pool, orgID)
	if err != nil {
		return gatehouse.Location{}, err
	}
	var universe *string
	if universeID != "" {
		universe = &universeID
	}
	err = db.withTx(ctx, func(tx pgx.Tx) error {
		var (
			name string
			old  *string
		)
		err := tx.QueryRow(ctx, "SELECT name, universe_id FROM locations WHERE id = $1 AND org = $2 FOR UPDATE", id, org).Scan(&name, &old)
		if errors.Is(err, pgx.ErrNoRows) {
			return fmt.Errorf("location %s: %w", id, gatehouse.ErrNotFound)
		}
		if err != nil || deref(old) == universeID {
			return err
		}
		if err := lockUniverse(ctx, tx, org, universeID); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, "UPDATE locations SET universe_id = $1 WHERE id = $2 AND org = $3", universe, id, org); err != nil {
			return err
		}
		if err := checkUniverse(ctx, tx, org, universeID, true, true); err != nil {
			return err
		}
		return db.appendAudit(ctx, tx, org, e.Of(orgID, gatehouse.AuditTarget{Type: gatehouse.TargetLocation, ID: id, Name: name}).
			Change("universeId", deref(old), universeID))
	})
	if err != nil {
		return gatehouse.Location{}, err
	}
	// Read after the commit, so a change committed meanwhile shows; SQLite
	// reads the location inside its transaction, as it wrote it.
	return db.findLocation(ctx, orgID, id)
}

// FindAccessPoint returns an organization's access point.
func (db *DB) FindAccessPoint(ctx context.Context, orgID, id uuid.UUID) (_ gatehouse.AccessPoint, err error) {
	defer sqlstore.Label(&err, "Store.FindAccessPoint", orgID, id)
	org, err := db.orgSeq(ctx, db.pool, orgID)
	if err != nil {
		return gatehouse.AccessPoint{}, err
	}
	ap, err := scanAccessPoint(db.pool.QueryRow(ctx, accessPointSelect+" WHERE a.id = $1 AND a.org = $2", id, org), id)
	return ap, wrap(err)
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
