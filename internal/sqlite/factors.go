package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strconv"

	"github.com/gatehouse/gatehouse"
	"github.com/gatehouse/gatehouse/internal/sqlstore"
	"github.com/google/uuid"
)

// SetSecondFactor enrols or removes a user's second factor and ends the
// user's sessions.
func (db *DB) SetSecondFactor(ctx context.Context, e gatehouse.AuditEntry, orgID, userID uuid.UUID, f *gatehouse.SecondFactor) (_ gatehouse.User, err error) {
	defer sqlstore.Label(&err, "Store.SetSecondFactor", orgID, userID)
	var u gatehouse.User
	err = db.withTx(ctx, func(tx *sql.Tx) error {
		found, err := db.users(ctx, tx, `SELECT `+userColumns+` FROM users u JOIN organizations o ON o.seq = u.org
			WHERE o.id = ? AND u.id = ?`, orgID[:], userID[:])
		if err != nil {
			return err
		}
		if len(found) == 0 {
			return fmt.Errorf("user %s: %w", userID, gatehouse.ErrNotFound)
		}
		u = found[0]
		if _, err := tx.ExecContext(ctx, "DELETE FROM recovery_codes WHERE user_id = ?", userID[:]); err != nil {
			return err
		}
		if f == nil {
			_, err = tx.ExecContext(ctx, "UPDATE users SET totp_sealed = NULL, totp_step = 0, totp_enrolled_at = NULL WHERE id = ?", userID[:])
		} else {
			_, err = tx.ExecContext(ctx, "UPDATE users SET totp_sealed = ?, totp_step = ?, totp_enrolled_at = ? WHERE id = ?",
				f.Sealed, f.LastStep, millis(f.EnrolledAt), userID[:])
		}
		if err != nil {
			return err
		}
		for _, h := range recoveryCodes(f) {
			if _, err := tx.ExecContext(ctx, `INSERT INTO recovery_codes (org, user_id, code_hash)
				SELECT org, id, ? FROM users WHERE id = ?`, h[:], userID[:]); err != nil {
				return err
			}
		}
		u.SecondFactor = f != nil
		if _, err := tx.ExecContext(ctx, "DELETE FROM sessions WHERE user_id = ?", userID[:]); err != nil {
			return err
		}
		return db.appendAuditOfUser(ctx, tx, sqlstore.UserEntry(e, u))
	})
	return u, err
}

// recoveryCodes are f's recovery codes' hashes; none when f is nil.
func recoveryCodes(f *gatehouse.SecondFactor) [][32]byte {
	if f == nil {
		return nil
	}
	return f.RecoveryCodes
}

// FindSecondFactor returns a user's second factor.
func (db *DB) FindSecondFactor(ctx context.Context, orgID, userID uuid.UUID) (_ gatehouse.SecondFactor, err error) {
	defer sqlstore.Label(&err, "Store.FindSecondFactor", orgID, userID)
	var (
		f        gatehouse.SecondFactor
		enrolled int64
	)
	err = db.read.QueryRowContext(ctx, `SELECT u.totp_sealed, u.totp_step, u.totp_enrolled_at,
			(SELECT count(*) FROM recovery_codes r WHERE r.user_id = u.id AND r.used_at IS NULL)
		FROM users u JOIN organizations o ON o.seq = u.org
		WHERE o.id = ? AND u.id = ? AND u.totp_sealed IS NOT NULL`, orgID[:], userID[:]).
		Scan(&f.Sealed, &f.LastStep, &enrolled, &f.RecoveryLeft)
	if errors.Is(err, sql.ErrNoRows) {
		return f, fmt.Errorf("second factor: %w", gatehouse.ErrNotFound)
	}
	f.EnrolledAt = fromMillis(enrolled)
	return f, wrap(err)
}

// UseTOTPStep moves the user's last step to step, if step is later.
func (db *DB) UseTOTPStep(ctx context.Context, orgID, userID uuid.UUID, step int64) (used bool, err error) {
	defer sqlstore.Label(&err, "Store.UseTOTPStep", orgID, userID)
	err = db.withTx(ctx, func(tx *sql.Tx) error {
		org, err := db.orgSeq(ctx, tx, orgID)
		if err != nil {
			return err
		}
		res, err := tx.ExecContext(ctx, `UPDATE users SET totp_step = ?
			WHERE org = ? AND id = ? AND totp_sealed IS NOT NULL AND totp_step < ?`, step, org, userID[:], step)
		if err != nil {
			return err
		}
		n, err := res.RowsAffected()
		used = n == 1
		return err
	})
	if errors.Is(err, gatehouse.ErrNotFound) {
		return false, nil
	}
	return used, err
}

// UseRecoveryCode spends one of the user's unused recovery codes.
func (db *DB) UseRecoveryCode(ctx context.Context, e gatehouse.AuditEntry, orgID, userID uuid.UUID, hash [32]byte) (used bool, err error) {
	defer sqlstore.Label(&err, "Store.UseRecoveryCode", orgID, userID)
	err = db.withTx(ctx, func(tx *sql.Tx) error {
		org, err := db.orgSeq(ctx, tx, orgID)
		if err != nil {
			return err
		}
		res, err := tx.ExecContext(ctx, `UPDATE recovery_codes SET used_at = ?
			WHERE org = ? AND user_id = ? AND code_hash = ? AND used_at IS NULL`, millis(db.Now()), org, userID[:], hash[:])
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil || n == 0 {
			return err
		}
		used = true
		var (
			left  int
			email string
		)
		if err := tx.QueryRowContext(ctx, `SELECT u.email, (SELECT count(*) FROM recovery_codes r WHERE r.user_id = u.id AND r.used_at IS NULL)
			FROM users u WHERE u.id = ?`, userID[:]).Scan(&email, &left); err != nil {
			return err
		}
		e = e.Of(orgID, gatehouse.AuditTarget{Type: gatehouse.TargetUser, ID: userID, Name: email})
		return db.appendAudit(ctx, tx, org, e.Change("recoveryCodesLeft", "", strconv.Itoa(left)))
	})
	if errors.Is(err, gatehouse.ErrNotFound) {
		return false, nil
	}
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
	err = db.read.QueryRowContext(ctx, "SELECT "+column+" FROM organizations WHERE id = ? AND seq <> 0", orgID[:]).Scan(&required)
	if errors.Is(err, sql.ErrNoRows) {
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
	return db.withTx(ctx, func(tx *sql.Tx) error {
		var (
			seq  int64
			name string
			was  bool
		)
		err := tx.QueryRowContext(ctx, "SELECT seq, name, "+column+" FROM organizations WHERE id = ? AND seq <> 0", orgID[:]).Scan(&seq, &name, &was)
		if errors.Is(err, sql.ErrNoRows) {
			return fmt.Errorf("organization %s: %w", orgID, gatehouse.ErrNotFound)
		}
		if err != nil || was == required {
			return err
		}
		if _, err := tx.ExecContext(ctx, "UPDATE organizations SET "+column+" = ? WHERE seq = ?", required, seq); err != nil {
			return err
		}
		return db.appendAudit(ctx, tx, seq, sqlstore.SignInRequiredEntry(e, orgID, name, what, was, required))
	})
}
