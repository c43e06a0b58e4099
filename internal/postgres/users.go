package postgres

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/gatehouse/gatehouse"
	"github.com/gatehouse/gatehouse/internal/sqlstore"
	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// CreateUser stores a dashboard user; the email is kept lower-cased.
func (db *DB) CreateUser(ctx context.Context, u gatehouse.User) (gatehouse.User, error) {
	u, err := sqlstore.NewUser(u, db.Now())
	if err != nil {
		return u, err
	}
	org, err := db.orgSeq(ctx, db.pool, u.OrgID)
	if err != nil {
		return u, err
	}
	_, err = db.pool.Exec(ctx, `INSERT INTO users (id, org, email, name, password_hash, created_at)
		VALUES ($1, $2, $3, $4, $5, $6)`, u.ID, org, u.Email, u.Name, u.PasswordHash, u.CreatedAt)
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) && pgErr.Code == "23505" {
		return u, fmt.Errorf("email %s is taken: %w", u.Email, gatehouse.ErrConflict)
	}
	return u, wrap(err)
}

// FindUserByEmail returns the user with that email, or ErrNotFound.
func (db *DB) FindUserByEmail(ctx context.Context, email string) (gatehouse.User, error) {
	var u gatehouse.User
	err := db.pool.QueryRow(ctx, `SELECT u.id, o.id, u.email, u.name, u.password_hash, u.time_zone, u.created_at
		FROM users u JOIN organizations o ON o.seq = u.org WHERE u.email = $1`,
		strings.ToLower(strings.TrimSpace(email))).Scan(&u.ID, &u.OrgID, &u.Email, &u.Name, &u.PasswordHash, &u.TimeZone, &u.CreatedAt)
	if errors.Is(err, pgx.ErrNoRows) {
		return u, fmt.Errorf("user: %w", gatehouse.ErrNotFound)
	}
	u.CreatedAt = utc(u.CreatedAt)
	return u, wrap(err)
}

// SetUserPassword replaces a user's password hash and ends their sessions.
func (db *DB) SetUserPassword(ctx context.Context, email, passwordHash string) (gatehouse.User, error) {
	u, err := db.FindUserByEmail(ctx, email)
	if err != nil {
		return u, err
	}
	err = db.withTx(ctx, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, "UPDATE users SET password_hash = $1 WHERE id = $2", passwordHash, u.ID); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, "DELETE FROM sessions WHERE user_id = $1", u.ID)
		return err
	})
	u.PasswordHash = passwordHash
	return u, wrap(err)
}

// SetUserTimeZone stores the zone of the organization's user with that id.
func (db *DB) SetUserTimeZone(ctx context.Context, orgID, userID uuid.UUID, zone string) error {
	tag, err := db.pool.Exec(ctx, `UPDATE users SET time_zone = $1
		WHERE id = $2 AND org = (SELECT seq FROM organizations WHERE id = $3)`, zone, userID, orgID)
	if err != nil {
		return wrap(err)
	}
	if tag.RowsAffected() == 0 {
		return fmt.Errorf("user: %w", gatehouse.ErrNotFound)
	}
	return nil
}
