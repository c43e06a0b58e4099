package postgres

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/gatehouse/gatehouse"
	"github.com/gatehouse/gatehouse/internal/sqlstore"
	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
)

// SetMessagingKey stores the sealed key of an organization's universe,
// replacing the one it had.
func (db *DB) SetMessagingKey(ctx context.Context, e gatehouse.AuditEntry, orgID uuid.UUID, universeID string, sealed []byte, hint string) (_ gatehouse.MessagingKey, err error) {
	defer sqlstore.Label(&err, "Store.SetMessagingKey", orgID)
	k := gatehouse.MessagingKey{UniverseID: universeID, Hint: hint, CreatedAt: gatehouse.Time(db.Now().UTC().Truncate(time.Microsecond))}
	org, err := db.orgSeq(ctx, db.pool, orgID)
	if err != nil {
		return gatehouse.MessagingKey{}, err
	}
	err = db.withTx(ctx, func(tx pgx.Tx) error {
		var old string
		err := tx.QueryRow(ctx, "SELECT hint FROM messaging_keys WHERE org = $1 AND universe_id = $2 FOR UPDATE", org, universeID).Scan(&old)
		if err != nil && !errors.Is(err, pgx.ErrNoRows) {
			return err
		}
		_, err = tx.Exec(ctx, `INSERT INTO messaging_keys (org, universe_id, sealed, hint, created_at) VALUES ($1, $2, $3, $4, $5)
			ON CONFLICT (org, universe_id) DO UPDATE SET sealed = excluded.sealed, hint = excluded.hint, created_at = excluded.created_at`,
			org, universeID, sealed, hint, time.Time(k.CreatedAt))
		if err != nil {
			return err
		}
		return db.appendAudit(ctx, tx, org, e.Of(orgID, messagingTarget(universeID)).Change("hint", old, hint))
	})
	return k, err
}

// RemoveMessagingKey deletes the key of an organization's universe.
func (db *DB) RemoveMessagingKey(ctx context.Context, e gatehouse.AuditEntry, orgID uuid.UUID, universeID string) (err error) {
	defer sqlstore.Label(&err, "Store.RemoveMessagingKey", orgID)
	org, err := db.orgSeq(ctx, db.pool, orgID)
	if err != nil {
		return err
	}
	return db.withTx(ctx, func(tx pgx.Tx) error {
		var old string
		err := tx.QueryRow(ctx, "DELETE FROM messaging_keys WHERE org = $1 AND universe_id = $2 RETURNING hint", org, universeID).Scan(&old)
		if errors.Is(err, pgx.ErrNoRows) {
			return fmt.Errorf("messaging key of universe %s: %w", universeID, gatehouse.ErrNotFound)
		}
		if err != nil {
			return err
		}
		return db.appendAudit(ctx, tx, org, e.Of(orgID, messagingTarget(universeID)).Change("hint", old, ""))
	})
}

// ListMessagingKeys returns the universes of an organization that have a key.
func (db *DB) ListMessagingKeys(ctx context.Context, orgID uuid.UUID) (_ []gatehouse.MessagingKey, err error) {
	defer sqlstore.Label(&err, "Store.ListMessagingKeys", orgID)
	org, err := db.orgSeq(ctx, db.pool, orgID)
	if err != nil {
		return nil, err
	}
	rows, _ := db.pool.Query(ctx, `SELECT universe_id, hint, created_at FROM messaging_keys
		WHERE org = $1 ORDER BY length(universe_id), universe_id COLLATE "C"`, org)
	keys, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (gatehouse.MessagingKey, error) {
		var (
			k  gatehouse.MessagingKey
			at time.Time
		)
		err := r.Scan(&k.UniverseID, &k.Hint, &at)
		k.CreatedAt = gatehouse.Time(at.UTC())
		return k, err
	})
	if err != nil {
		return nil, wrap(err)
	}
	if keys == nil {
		keys = []gatehouse.MessagingKey{}
	}
	return keys, nil
}

// FindMessagingKey returns the sealed key of an organization's universe.
func (db *DB) FindMessagingKey(ctx context.Context, orgID uuid.UUID, universeID string) (_ []byte, err error) {
	defer sqlstore.Label(&err, "Store.FindMessagingKey", orgID)
	org, err := db.orgSeq(ctx, db.pool, orgID)
	if err != nil {
		return nil, err
	}
	var sealed []byte
	err = db.pool.QueryRow(ctx, "SELECT sealed FROM messaging_keys WHERE org = $1 AND universe_id = $2", org, universeID).Scan(&sealed)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, fmt.Errorf("messaging key of universe %s: %w", universeID, gatehouse.ErrNotFound)
	}
	return sealed, wrap(err)
}

func messagingTarget(universeID string) gatehouse.AuditTarget {
	return gatehouse.AuditTarget{Type: gatehouse.TargetMessaging, Name: universeID}
}
