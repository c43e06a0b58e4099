package sqlite

import (
	"cmp"
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/gatehouse/gatehouse"
	"github.com/gatehouse/gatehouse/internal/sqlstore"
	"github.com/google/uuid"
)

// insertInvitation stores inv in the organization org, replacing the
// user's invitation if any.
func insertInvitation(ctx context.Context, tx *sql.Tx, org int64, inv gatehouse.Invitation) error {
	_, err := tx.ExecContext(ctx, `INSERT INTO invitations (org, user_id, token_hash, expires_at, created_at)
		VALUES (?, ?, ?, ?, ?)
		ON CONFLICT (user_id) DO UPDATE SET token_hash = excluded.token_hash,
			expires_at = excluded.expires_at, created_at = excluded.created_at`,
		org, inv.UserID[:], inv.Hash[:], millis(inv.ExpiresAt), millis(inv.CreatedAt))
	return err
}

// userByID returns the organization's user with that id, in tx, with the
// organization's seq.
func (db *DB) userByID(ctx context.Context, tx *sql.Tx, orgID, userID uuid.UUID) (gatehouse.User, int64, error) {
	org, err := db.orgSeq(ctx, tx, orgID)
	if err != nil {
		return gatehouse.User{}, 0, err
	}
	found, err := db.users(ctx, tx, `SELECT `+userColumns+` FROM users u JOIN organizations o ON o.seq = u.org
		WHERE u.org = ? AND u.id = ?`, org, userID[:])
	if err != nil {
		return gatehouse.User{}, 0, err
	}
	if len(found) == 0 {
		return gatehouse.User{}, 0, fmt.Errorf("user %s: %w", userID, gatehouse.ErrNotFound)
	}
	return found[0], org, nil
}

// SetInvitation replaces the invitation of a user not yet proven.
func (db *DB) SetInvitation(ctx context.Context, e gatehouse.AuditEntry, inv gatehouse.Invitation) (_ gatehouse.User, err error) {
	defer sqlstore.Label(&err, "Store.SetInvitation", inv.OrgID, inv.UserID)
	var u gatehouse.User
	err = db.withTx(ctx, func(tx *sql.Tx) error {
		found, org, err := db.userByID(ctx, tx, inv.OrgID, inv.UserID)
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
		return db.appendAudit(ctx, tx, org, sqlstore.InvitedEntry(e, u, inv))
	})
	return u, err
}

// FindInvitation returns the invitation with that hash and its user.
func (db *DB) FindInvitation(ctx context.Context, hash [32]byte) (_ gatehouse.Invitation, _ gatehouse.User, err error) {
	defer sqlstore.Label(&err, "Store.FindInvitation")
	found, err := db.users(ctx, db.read, `SELECT `+userColumns+` FROM invitations i
		JOIN users u ON u.id = i.user_id JOIN organizations o ON o.seq = u.org
		WHERE i.token_hash = ?`, hash[:])
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
	err = db.withTx(ctx, func(tx *sql.Tx) error {
		org, err := db.orgSeq(ctx, tx, orgID)
		if err != nil {
			return err
		}
		h := sqlstore.OptionalHash(hash)
		res, err := tx.ExecContext(ctx, `DELETE FROM invitations WHERE user_id = ? AND org = ? AND expires_at > ?
			AND (? IS NULL OR token_hash = ?)`, userID[:], org, millis(now), h, h)
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil || n == 0 {
			return cmp.Or(err, fmt.Errorf("invitation: %w", gatehouse.ErrNotFound))
		}
		if _, err := tx.ExecContext(ctx, `UPDATE users SET proven = 1, proven_at = ?, proven_by = ?,
			password_hash = CASE WHEN ? = '' THEN password_hash ELSE ? END WHERE id = ?`, millis(now), sqlstore.ProofOfUse(hash), passwordHash, passwordHash, userID[:]); err != nil {
			return err
		}
		if u, _, err = db.userByID(ctx, tx, orgID, userID); err != nil {
			return err
		}
		return db.appendAudit(ctx, tx, org, sqlstore.UserEntry(e, u))
	})
	return u, err
}
