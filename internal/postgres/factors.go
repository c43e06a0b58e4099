package postgres

import (
	"context"
	"errors"
	"fmt"
	"strconv"

	"github.com/gatehouse/gatehouse"
	"github.com/gatehouse/gatehouse/internal/sqlstore"
	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
)

// SetSecondFactor enrols or removes a user's second factor and ends the
// user's sessions.
func (db *DB) SetSecondFactor(ctx context.Context, e gatehouse.AuditEntry, orgID, userID uuid.UUID, f *gatehouse.SecondFactor) (_ gatehouse.User, err error) {
	defer sqlstore.Label(&err, "Store.SetSecondFactor", orgID, userID)
	var u gatehouse.User
	err = db.withTx(ctx, func(tx pgx.Tx) error {
		found, err := users(ctx, tx, `SELECT `+userColumns+` FROM users u JOIN organizations o ON o.seq = u.org
			WHERE o.id = $1 AND u.id = $2 FOR NO KEY UPDATE OF u`, orgID, userID)
		if err != nil {
			return err
		}
		if len(found) == 0 {
			return fmt.Errorf("user %s: %w", userID, gatehouse.ErrNotFound)
		}
		u = found[0]
		if _, err := tx.Exec(ctx, "DELETE FROM recovery_codes WHERE user_id = $1", userID); err != nil {
			return err
		}
		if f == nil {
			_, err = tx.Exec(ctx, "UPDATE users SET totp_sealed = NULL, totp_step = 0, totp_enrolled_at = NULL WHERE id = $1", userID)
		} else {
			_, err = tx.Exec(ctx, `UPDATE users SET totp_sealed = $2, totp_step = $3, totp_enrolled_at = $4 WHERE id = $1`,
				userID, f.Sealed, f.LastStep, f.EnrolledAt)
		}
		if err != nil {
			return err
		}
		if f != nil {
			if _, err := tx.Exec(ctx, `INSERT INTO recovery_codes (org, user_id, code_hash)
				SELECT u.org, u.id, h FROM users u, unnest($2::bytea[]) h WHERE u.id = $1`, userID, hashes(f.RecoveryCodes)); err != nil {
				return err
			}
		}
		u.SecondFactor = f != nil
		if _, err := tx.Exec(ctx, "DELETE FROM sessions WHERE user_id = $1", userID); err != nil {
			return err
		}
		return db.appendAuditIn(ctx, tx, sqlstore.UserEntry(e, u))
	})
	return u, err
}

// hashes are the hashes as byte slices, what a bytea[] takes.
func hashes(hs [][32]byte) [][]byte {
	out := make([][]byte, len(hs))
	for i := range hs {
		out[i] = hs[i][:]
	}
	return out
}

// FindSecondFactor returns a user's second factor.
func (db *DB) FindSecondFactor(ctx context.Context, orgID, userID uuid.UUID) (_ gatehouse.SecondFactor, err error) {
	defer sqlstore.Label(&err, "Store.FindSecondFactor", orgID, userID)
	var f gatehouse.SecondFactor
	err = db.pool.QueryRow(ctx, `SELECT u.totp_sealed, u.totp_step, u.totp_enrolled_at,
			(SELECT count(*) FROM recovery_codes r WHERE r.user_id = u.id AND r.used_at IS NULL)
		FROM users u JOIN organizations o ON o.seq = u.org
		WHERE o.id = $1 AND u.id = $2 AND u.totp_sealed IS NOT NULL`, orgID, userID).
		Scan(&f.Sealed, &f.LastStep, &f.EnrolledAt, &f.RecoveryLeft)
	if errors.Is(err, pgx.ErrNoRows) {
		return f, fmt.Errorf("second factor: %w", gatehouse.ErrNotFound)
	}
	f.EnrolledAt = utc(f.EnrolledAt)
	return f, wrap(err)
}

// UseTOTPStep moves the user's last step to step, if step is later.
func (db *DB) UseTOTPStep(ctx context.Context, orgID, userID uuid.UUID, step int64) (_ bool, err error) {
	defer sqlstore.Label(&err, "Store.UseTOTPStep", orgID, userID)
	tag, err := db.pool.Exec(ctx, `UPDATE users u SET totp_step = $3 FROM organizations o
		WHERE o.seq = u.org AND o.id = $1 AND u.id = $2 AND u.totp_sealed IS NOT NULL AND u.totp_step < $3`, orgID, userID, step)
	return err == nil && tag.RowsAffected() == 1, wrap(err)
}

// UseRecoveryCode spends one of the user's unused recovery codes.
func (db *DB) UseRecoveryCode(ctx context.Context, e gatehouse.AuditEntry, orgID, userID uuid.UUID, hash [32]byte) (used bool, err error) {
	defer sqlstore.Label(&err, "Store.UseRecoveryCode", orgID, userID)
	err = db.withTx(ctx, func(tx pgx.Tx) error {
		var (
			left  int
			email string
		)
		err := tx.QueryRow(ctx, `WITH used AS (
				UPDATE recovery_codes r SET used_at = $4 FROM users u JOIN organizations o ON o.seq = u.org
				WHERE u.id = r.user_id AND o.id = $1 AND r.user_id = $2 AND r.code_hash = $3 AND r.used_at IS NULL
				RETURNING u.email)
			SELECT email, (SELECT count(*) - 1 FROM recovery_codes WHERE user_id = $2 AND used_at IS NULL) FROM used`,
			orgID, userID, hash[:], db.Now()).Scan(&email, &left)
		if errors.Is(err, pgx.ErrNoRows) {
			return nil
		}
		if err != nil {
			return err
		}
		used = true
		e = e.Of(orgID, gatehouse.AuditTarget{Type: gatehouse.TargetUser, ID: userID, Name: email})
		return db.appendAuditIn(ctx, tx, e.Change("recoveryCodesLeft", "", strconv.Itoa(left)))
	})
	return used, err
}

// SignInRequired says whether an organization requires what of its
// members' sign-ins.
func (db *DB) SignInRequired(ctx context.Context, orgID uuid.UUID, what gatehouse.SignInRequirement) (required bool, err error) {
	defer sqlstore.Label(&err, "Store.SignInRequired", orgID)
	column, err := sqlstore.SignInColumn(what)
	if err != nil {
		return false, err
	}
	err = db.pool.QueryRow(ctx, "SELECT "+column+" FROM organizations WHERE id = $1", orgID).Scan(&required)
	if errors.Is(err, pgx.ErrNoRows) {
		return false, fmt.Errorf("organization %s: %w", orgID, gatehouse.ErrNotFound)
	}
	return required, wrap(err)
}

// SetSignInRequired sets whether an organization requires what of its
// members' sign-ins.
func (db *DB) SetSignInRequired(ctx context.Context, e gatehouse.AuditEntry, orgID uuid.UUID, what gatehouse.SignInRequirement, required bool) (err error) {
	defer sqlstore.Label(&err, "Store.SetSignInRequired", orgID)
	column, err := sqlstore.SignInColumn(what)
	if err != nil {
		return err
	}
	return db.withTx(ctx, func(tx pgx.Tx) error {
		var (
			seq  int64
			name string
			was  bool
		)
		err := tx.QueryRow(ctx, "SELECT seq, name, "+column+" FROM organizations WHERE id = $1 FOR NO KEY UPDATE", orgID).Scan(&seq, &name, &was)
		if errors.Is(err, pgx.ErrNoRows) {
			return fmt.Errorf("organization %s: %w", orgID, gatehouse.ErrNotFound)
		}
		if err != nil || was == required {
			return err
		}
		if _, err := tx.Exec(ctx, "UPDATE organizations SET "+column+" = $2 WHERE seq = $1", seq, required); err != nil {
			return err
		}
		return db.appendAudit(ctx, tx, seq, sqlstore.SignInRequiredEntry(e, orgID, name, what, was, required))
	})
}
