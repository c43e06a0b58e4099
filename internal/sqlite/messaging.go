package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/gatehouse/gatehouse"
	"github.com/gatehouse/gatehouse/internal/sqlstore"
	"github.com/google/uuid"
)

// SetMessagingKey stores the sealed key of an organization's universe,
// replacing the one it had.
func (db *DB) SetMessagingKey(ctx context.Context, e gatehouse.AuditEntry, orgID uuid.UUID, universeID string, sealed []byte, hint string) (_ gatehouse.MessagingKey, err error) {
	defer sqlstore.Label(&err, "Store.SetMessagingKey", orgID)
	k := gatehouse.MessagingKey{UniverseID: universeID, Hint: hint, CreatedAt: gatehouse.Time(db.Now().UTC().Truncate(time.Millisecond))}
	err = db.withTx(ctx, func(tx *sql.Tx) error {
		org, err := db.orgSeq(ctx, tx, orgID)
		if err != nil {
			return err
		}
		var old string
		err = tx.QueryRowContext(ctx, "SELECT hint FROM messaging_keys WHERE org = ? AND universe_id = ?", org, universeID).Scan(&old)
		if err != nil && !errors.Is(err, sql.ErrNoRows) {
			return err
		}
		_, err = tx.ExecContext(ctx, `INSERT INTO messaging_keys (org, universe_id, sealed, hint, created_at) VALUES (?, ?, ?, ?, ?)
			ON CONFLICT (org, universe_id) DO UPDATE SET sealed = excluded.sealed, hint = excluded.hint, created_at = excluded.created_at`,
			org, universeID, sealed, hint, millis(time.Time(k.CreatedAt)))
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
	return db.withTx(ctx, func(tx *sql.Tx) error {
		org, err := db.orgSeq(ctx, tx, orgID)
		if err != nil {
			return err
		}
		var old string
		err = tx.QueryRowContext(ctx, "DELETE FROM messaging_keys WHERE org = ? AND universe_id = ? RETURNING hint", org, universeID).Scan(&old)
		if errors.Is(err, sql.ErrNoRows) {
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
	org, err := db.orgSeq(ctx, db.read, orgID)
	if err != nil {
		return nil, err
	}
	rows, err := db.read.QueryContext(ctx, `SELECT universe_id, hint, created_at FROM messaging_keys
		WHERE org = ? ORDER BY length(universe_id), universe_id`, org)
	if err != nil {
		return nil, wrap(err)
	}
	defer rows.Close()
	keys := []gatehouse.MessagingKey{}
	for rows.Next() {
		var (
			k  gatehouse.MessagingKey
			ms int64
		)
		if err := rows.Scan(&k.UniverseID, &k.Hint, &ms); err != nil {
			return nil, wrap(err)
		}
		k.CreatedAt = gatehouse.Time(fromMillis(ms))
		keys = append(keys, k)
	}
	return keys, wrap(rows.Err())
}

// FindMessagingKey returns the sealed key of an organization's universe.
func (db *DB) FindMessagingKey(ctx context.Context, orgID uuid.UUID, universeID string) (_ []byte, err error) {
	defer sqlstore.Label(&err, "Store.FindMessagingKey", orgID)
	org, err := db.orgSeq(ctx, db.read, orgID)
	if err != nil {
		return nil, err
	}
	var sealed []byte
	err = db.read.QueryRowContext(ctx, "SELECT sealed FROM messaging_keys WHERE org = ? AND universe_id = ?", org, universeID).Scan(&sealed)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("messaging key of universe %s: %w", universeID, gatehouse.ErrNotFound)
	}
	return sealed, wrap(err)
}

func messagingTarget(universeID string) gatehouse.AuditTarget {
	return gatehouse.AuditTarget{Type: gatehouse.TargetMessaging, Name: universeID}
}
