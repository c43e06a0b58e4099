package sqlite

import (
	"cmp"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"

	"github.com/gatehouse/gatehouse"
	"github.com/gatehouse/gatehouse/internal/sqlstore"
	"github.com/google/uuid"
	sqlitedrv "modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

// CreateUser stores a dashboard user; the email is kept lower-cased.
func (db *DB) CreateUser(ctx context.Context, u gatehouse.User) (gatehouse.User, error) {
	u, err := sqlstore.NewUser(u, db.Now())
	if err != nil {
		return u, err
	}
	err = db.withTx(ctx, func(tx *sql.Tx) error {
		org, err := db.orgSeq(ctx, tx, u.OrgID)
		if err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, `INSERT INTO users (id, org, email, name, password_hash, created_at)
			VALUES (?, ?, ?, ?, ?, ?)`, u.ID[:], org, u.Email, u.Name, u.PasswordHash, millis(u.CreatedAt))
		var se *sqlitedrv.Error
		if errors.As(err, &se) && se.Code() == sqlite3.SQLITE_CONSTRAINT_UNIQUE {
			return fmt.Errorf("email %s is taken: %w", u.Email, gatehouse.ErrConflict)
		}
		return err
	})
	return u, err
}

// FindUserByEmail returns the user with that email, or ErrNotFound.
func (db *DB) FindUserByEmail(ctx context.Context, email string) (gatehouse.User, error) {
	var (
		u       gatehouse.User
		created int64
	)
	err := db.read.QueryRowContext(ctx, `SELECT u.id, o.id, u.email, u.name, u.password_hash, u.time_zone, u.created_at
		FROM users u JOIN organizations o ON o.seq = u.org WHERE u.email = ?`,
		strings.ToLower(strings.TrimSpace(email))).Scan(&u.ID, &u.OrgID, &u.Email, &u.Name, &u.PasswordHash, &u.TimeZone, &created)
	if errors.Is(err, sql.ErrNoRows) {
		return u, fmt.Errorf("user: %w", gatehouse.ErrNotFound)
	}
	u.CreatedAt = fromMillis(created)
	return u, wrap(err)
}

// SetUserPassword replaces a user's password hash and ends their sessions.
func (db *DB) SetUserPassword(ctx context.Context, email, passwordHash string) (gatehouse.User, error) {
	u, err := db.FindUserByEmail(ctx, email)
	if err != nil {
		return u, err
	}
	err = db.withTx(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, "UPDATE users SET password_hash = ? WHERE id = ?", passwordHash, u.ID[:]); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, "DELETE FROM sessions WHERE user_id = ?", u.ID[:])
		return err
	})
	u.PasswordHash = passwordHash
	return u, err
}

// SetUserTimeZone stores the zone of the organization's user with that id.
func (db *DB) SetUserTimeZone(ctx context.Context, orgID, userID uuid.UUID, zone string) error {
	return db.withTx(ctx, func(tx *sql.Tx) error {
		org, err := db.orgSeq(ctx, tx, orgID)
		if err != nil {
			return err
		}
		res, err := tx.ExecContext(ctx, "UPDATE users SET time_zone = ? WHERE id = ? AND org = ?", zone, userID[:], org)
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil || n == 0 {
			return cmp.Or(err, fmt.Errorf("user: %w", gatehouse.ErrNotFound))
		}
		return nil
	})
}
