package postgres

import (
	"context"
	"fmt"
	"time"

	"github.com/gatehouse/gatehouse"
	"github.com/gatehouse/gatehouse/internal/sqlstore"
	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
)

// insertInvitation stores inv in the organization org, replacing the
// user's invitation if any.
func insertInvitation(ctx context.Context, tx pgx.Tx, org int64, inv gatehouse.Invitation) error {
	_, err := tx.Exec(ctx, `INSERT INTO invitations (org, user_id, token_hash, expires_at, created_at)
		VALUES ($1, $2, $3, $4, $5)
		ON CONFLICT (user_id) DO UPDATE SET token_hash = EXCLUDED.token_hash,
			expires_at = EXCLUDED.expires_at, created_at = EXCLUDED.created_at`,
		org, inv.UserID, inv.Hash[:], inv.ExpiresAt, inv.CreatedAt)
	return err
}

// lockUserByID returns the organization's user with that id, its row
// locked until the transaction ends, with the organization's seq.
func lockUserByID(ctx context.Context, tx pgx.Tx, orgID, userID uuid.UUID) (gatehouse.User, int64, error) {
	found, err := users(ctx, tx, `SELECT `+userColumns+` FROM users u JOIN organizations o ON o.seq = u.org
		WHERE o.id = $1 AND u.id = $2 FOR NO KEY UPDATE OF u`, orgID, userID)
	if err != nil {
		return gatehouse.User{}, 0, err
	}
	if len(found) == 0 {
		return gatehouse.User{}, 0, fmt.Errorf("user %s: %w", userID, gatehouse.ErrNotFound)
	}
	var org int64
	err = tx.QueryRow(ctx, "SELECT org FROM users WHERE id = $1", userID).Scan(&org)
	return found[0], org, err
}

// SetInvitation replaces the invitation of a user not yet proven.
func (db *DB) SetInvitation(ctx context.Context, e gatehouse.AuditEntry, inv gatehouse.Invitation) (_ gatehouse.User, err error) {
	defer sqlstore.Label(&err, "Store.SetInvitation", inv.OrgID, inv.UserID)
	var u gatehouse.User
	err = db.withTx(ctx, func(tx pgx.Tx) error {
		found, org, err := lockUserByID(ctx, tx, inv.OrgID, inv.UserID)
		if err != nil {
			return err
		}
		if found.Proven {
			return fmt.Errorf("user %s is a member already: %w", found.Email, gatehouse.ErrConflict)
		}
		if err := insertInvitation(ctx, tx, org, inv); err != nil {
			return err
		}
		u = found
		u.InvitedUntil = inv.ExpiresAt
		return db.appendAuditIn(ctx, tx, sqlstore.InvitedEntry(e, u, inv))
	})
	return u, err
}

// FindInvitation returns the invitation with that hash and its user.
func (db *DB) FindInvitation(ctx context.Context, hash [32]byte) (_ gatehouse.Invitation, _ gatehouse.User, err error) {
	defer sqlstore.Label(&err, "Store.FindInvitation")
	found, err := users(ctx, db.pool, `SELECT `+userColumns+` FROM invitations i
		JOIN users u ON u.id = i.user_id JOIN organizations o ON o.seq = u.org
		WHERE i.token_hash = $1`, hash[:])
	if err != nil {
		return gatehouse.Invitation{}, gatehouse.User{}, err
	}
	if len(found) == 0 {
		return gatehouse.Invitation{}, gatehouse.User{}, fmt.Errorf("invitation: %w", gatehouse.ErrNotFound)
	}
	u := found[0]
	return gatehouse.Invitation{OrgID: u.OrgID, UserID: u.ID, Hash: hash, ExpiresAt: u.InvitedUntil}, u, nil
}

// UseInvitation uses a user's unexpired invitation (the one of hash,
// unless it is zero): deletes it, sets the password unless passwordHash
// is empty, and proves the user.
func (db *DB) UseInvitation(ctx context.Context, e gatehouse.AuditEntry, orgID, userID uuid.UUID, hash [32]byte, passwordHash string, now time.Time) (_ gatehouse.User, err error) {
	defer sqlstore.Label(&err, "Store.UseInvitation", orgID, userID)
	var u gatehouse.User
	err = db.withTx(ctx, func(tx pgx.Tx) error {
		tag, err := tx.Exec(ctx, `DELETE FROM invitations
			WHERE user_id = $1 AND org = (SELECT seq FROM organizations WHERE id = $2) AND expires_at > $3
				AND ($4::bytea IS NULL OR token_hash = $4)`, userID, orgID, now, sqlstore.OptionalHash(hash))
		if err != nil {
			return err
		}
		if tag.RowsAffected() == 0 {
			return fmt.Errorf("invitation: %w", gatehouse.ErrNotFound)
		}
		if _, err := tx.Exec(ctx, `UPDATE users SET proven = true, proven_at = $3, proven_by = $4,
			password_hash = CASE WHEN $2 = '' THEN password_hash ELSE $2 END WHERE id = $1`, userID, passwordHash, now, sqlstore.ProofOfUse(hash)); err != nil {
			return err
		}
		if u, _, err = lockUserByID(ctx, tx, orgID, userID); err != nil {
			return err
		}
		return db.appendAuditIn(ctx, tx, sqlstore.UserEntry(e, u))
	})
	return u, err
}
