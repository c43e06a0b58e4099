package postgres

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/gatehouse/gatehouse"
	"github.com/gatehouse/gatehouse/internal/sqlstore"
	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
)

// CreateSession stores a dashboard session and marks its user proven,
// unless its user has a second factor it was not given.
func (db *DB) CreateSession(ctx context.Context, e gatehouse.AuditEntry, s gatehouse.Session) (err error) {
	defer sqlstore.Label(&err, "Store.CreateSession", s.UserID)
	return db.withTx(ctx, func(tx pgx.Tx) error {
		var factor bool
		if err := tx.QueryRow(ctx, "SELECT totp_sealed IS NOT NULL FROM users WHERE id = $1 FOR SHARE", s.UserID).Scan(&factor); err != nil {
			return err
		}
		if factor && !s.SecondFactorGiven {
			return fmt.Errorf("user %s has a second factor: %w", s.UserID, gatehouse.ErrSecondFactorNeeded)
		}
		_, err := tx.Exec(ctx, `INSERT INTO sessions (token_hash, user_id, csrf, created_at, expires_at, enrol_only,
				id, user_agent, client_address, last_seen_at)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $4)`, s.TokenHash[:], s.UserID, s.CSRF, s.CreatedAt, s.ExpiresAt, s.EnrolOnly,
			s.ID, s.UserAgent, s.ClientAddress)
		if err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, "UPDATE users SET proven = true, proven_at = $2, proven_by = 'sign-in' WHERE id = $1 AND NOT proven", s.UserID, s.CreatedAt); err != nil {
			return err
		}
		var (
			org   int64
			orgID uuid.UUID
			email string
		)
		if err := tx.QueryRow(ctx, `SELECT o.seq, o.id, u.email FROM users u JOIN organizations o ON o.seq = u.org
			WHERE u.id = $1`, s.UserID).Scan(&org, &orgID, &email); err != nil {
			return err
		}
		return db.appendAudit(ctx, tx, org, e.Of(orgID, gatehouse.AuditTarget{Type: gatehouse.TargetUser, ID: s.UserID, Name: email}))
	})
}

// FindSession returns the unexpired session with that token hash and its user.
func (db *DB) FindSession(ctx context.Context, tokenHash [32]byte, now time.Time) (_ gatehouse.Session, _ gatehouse.User, err error) {
	defer sqlstore.Label(&err, "Store.FindSession")
	var (
		s     gatehouse.Session
		u     gatehouse.User
		reach *string // the role's locations: what the service narrows to
	)
	err = db.pool.QueryRow(ctx, `SELECT s.id, s.user_agent, s.client_address, coalesce(s.last_seen_at, s.created_at),
			s.user_id, s.csrf, s.created_at, s.expires_at,
			o.id, u.email, u.name, u.role, u.password_hash, u.time_zone, u.created_at, u.proven,
			u.totp_sealed IS NOT NULL, s.enrol_only, u.reach
		FROM sessions s JOIN users u ON u.id = s.user_id JOIN organizations o ON o.seq = u.org
		WHERE s.token_hash = $1 AND s.expires_at > $2`, tokenHash[:], now).
		Scan(&s.ID, &s.UserAgent, &s.ClientAddress, &s.LastSeenAt, &s.UserID, &s.CSRF, &s.CreatedAt, &s.ExpiresAt, &u.OrgID, &u.Email, &u.Name, &u.Role, &u.PasswordHash, &u.TimeZone, &u.CreatedAt, &u.Proven,
			&u.SecondFactor, &s.EnrolOnly, &reach)
	if errors.Is(err, pgx.ErrNoRows) {
		return s, u, fmt.Errorf("session: %w", gatehouse.ErrNotFound)
	}
	if err != nil {
		return s, u, wrap(err)
	}
	s.TokenHash, u.ID, u.Reach = tokenHash, s.UserID, sqlstore.ReachOf(reach)
	s.CreatedAt, s.ExpiresAt, s.LastSeenAt, u.CreatedAt = utc(s.CreatedAt), utc(s.ExpiresAt), utc(s.LastSeenAt), utc(u.CreatedAt)
	return s, u, nil
}

// SeenSession records a session's use, at most once a SessionSeenEvery.
func (db *DB) SeenSession(ctx context.Context, orgID uuid.UUID, tokenHash [32]byte, now time.Time) (err error) {
	defer sqlstore.Label(&err, "Store.SeenSession", orgID)
	_, err = db.pool.Exec(ctx, `UPDATE sessions SET last_seen_at = $2
		WHERE token_hash = $1 AND coalesce(last_seen_at, created_at) <= $3`, tokenHash[:], now, now.Add(-gatehouse.SessionSeenEvery))
	return wrap(err)
}

// ListSessions returns a user's unexpired sessions, last seen first.
func (db *DB) ListSessions(ctx context.Context, orgID, userID uuid.UUID, now time.Time) (_ []gatehouse.Session, err error) {
	defer sqlstore.Label(&err, "Store.ListSessions", orgID, userID)
	rows, _ := db.pool.Query(ctx, `SELECT s.id, s.user_agent, s.client_address, coalesce(s.last_seen_at, s.created_at),
			s.created_at, s.expires_at, s.enrol_only
		FROM sessions s JOIN users u ON u.id = s.user_id JOIN organizations o ON o.seq = u.org
		WHERE o.id = $1 AND s.user_id = $2 AND s.expires_at > $3
		ORDER BY 4 DESC, s.created_at DESC`, orgID, userID, now)
	out := []gatehouse.Session{}
	var s gatehouse.Session
	_, err = pgx.ForEachRow(rows, []any{&s.ID, &s.UserAgent, &s.ClientAddress, &s.LastSeenAt, &s.CreatedAt, &s.ExpiresAt, &s.EnrolOnly}, func() error {
		s.UserID, s.LastSeenAt, s.CreatedAt, s.ExpiresAt = userID, utc(s.LastSeenAt), utc(s.CreatedAt), utc(s.ExpiresAt)
		out = append(out, s)
		return nil
	})
	return out, wrap(err)
}

// EndSessions ends one of a user's sessions, or all, and counts those
// that had not expired.
func (db *DB) EndSessions(ctx context.Context, e gatehouse.AuditEntry, orgID, userID, id uuid.UUID) (n int, err error) {
	defer sqlstore.Label(&err, "Store.EndSessions", orgID, userID)
	err = db.withTx(ctx, func(tx pgx.Tx) error {
		found, err := users(ctx, tx, `SELECT `+userColumns+` FROM users u JOIN organizations o ON o.seq = u.org
			WHERE o.id = $1 AND u.id = $2`, orgID, userID)
		if err != nil || len(found) == 0 {
			return err
		}
		err = tx.QueryRow(ctx, `WITH gone AS (
				DELETE FROM sessions WHERE user_id = $1 AND ($2::uuid IS NULL OR id = $2) RETURNING expires_at)
			SELECT count(*) FROM gone WHERE expires_at > $3`, userID, nullID(id), db.Now()).Scan(&n)
		if err != nil || n == 0 {
			return err
		}
		return db.appendAuditIn(ctx, tx, sqlstore.UserEntry(e, found[0]).Change("sessions", "", strconv.Itoa(n)))
	})
	return n, err
}

// nullID is id, or NULL for uuid.Nil.
func nullID(id uuid.UUID) any {
	if id == uuid.Nil {
		return nil
	}
	return id
}

// DeleteSession ends a session and sweeps the expired ones.
func (db *DB) DeleteSession(ctx context.Context, tokenHash [32]byte, now time.Time) (err error) {
	defer sqlstore.Label(&err, "Store.DeleteSession")
	_, err = db.pool.Exec(ctx, "DELETE FROM sessions WHERE token_hash = $1 OR expires_at <= $2", tokenHash[:], now)
	return wrap(err)
}
