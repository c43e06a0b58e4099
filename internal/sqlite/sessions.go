package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/gatehouse/gatehouse"
	"github.com/gatehouse/gatehouse/internal/sqlstore"
	"github.com/google/uuid"
)

// CreateSession stores a dashboard session and marks its user proven,
// unless its user has a second factor it was not given.
func (db *DB) CreateSession(ctx context.Context, e gatehouse.AuditEntry, s gatehouse.Session) (err error) {
	defer sqlstore.Label(&err, "Store.CreateSession", s.UserID)
	return db.withTx(ctx, func(tx *sql.Tx) error {
		var factor bool
		if err := tx.QueryRowContext(ctx, "SELECT totp_sealed IS NOT NULL FROM users WHERE id = ?", s.UserID[:]).Scan(&factor); err != nil {
			return err
		}
		if factor && !s.SecondFactorGiven {
			return fmt.Errorf("user %s has a second factor: %w", s.UserID, gatehouse.ErrSecondFactorNeeded)
		}
		_, err := tx.ExecContext(ctx, `INSERT INTO sessions (token_hash, user_id, csrf, created_at, expires_at, enrol_only,
				id, user_agent, client_address, last_seen_at)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`, s.TokenHash[:], s.UserID[:], s.CSRF, millis(s.CreatedAt), millis(s.ExpiresAt), s.EnrolOnly,
			s.ID[:], s.UserAgent, s.ClientAddress, millis(s.CreatedAt))
		if err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, "UPDATE users SET proven = 1, proven_at = ?, proven_by = 'sign-in' WHERE id = ? AND proven = 0", millis(s.CreatedAt), s.UserID[:]); err != nil {
			return err
		}
		var org int64
		var orgID uuid.UUID
		var email string
		if err := tx.QueryRowContext(ctx, `SELECT o.seq, o.id, u.email FROM users u JOIN organizations o ON o.seq = u.org
			WHERE u.id = ?`, s.UserID[:]).Scan(&org, &orgID, &email); err != nil {
			return err
		}
		return db.appendAudit(ctx, tx, org, e.Of(orgID, gatehouse.AuditTarget{Type: gatehouse.TargetUser, ID: s.UserID, Name: email}))
	})
}

// FindSession returns the unexpired session with that token hash and its user.
func (db *DB) FindSession(ctx context.Context, tokenHash [32]byte, now time.Time) (_ gatehouse.Session, _ gatehouse.User, err error) {
	defer sqlstore.Label(&err, "Store.FindSession")
	var (
		s                          gatehouse.Session
		u                          gatehouse.User
		created, expires, uCreated int64
		seen                       int64
		id                         []byte
		reach                      *string // the role's locations: what the service narrows to
	)
	err = db.read.QueryRowContext(ctx, `SELECT s.id, s.user_agent, s.client_address, coalesce(s.last_seen_at, s.created_at),
			s.user_id, s.csrf, s.created_at, s.expires_at,
			o.id, u.email, u.name, u.role, u.password_hash, u.time_zone, u.created_at, u.proven,
			u.totp_sealed IS NOT NULL, s.enrol_only, u.reach
		FROM sessions s JOIN users u ON u.id = s.user_id JOIN organizations o ON o.seq = u.org
		WHERE s.token_hash = ? AND s.expires_at > ?`, tokenHash[:], millis(now)).
		Scan(&id, &s.UserAgent, &s.ClientAddress, &seen, &s.UserID, &s.CSRF, &created, &expires, &u.OrgID, &u.Email, &u.Name, &u.Role, &u.PasswordHash, &u.TimeZone, &uCreated, &u.Proven,
			&u.SecondFactor, &s.EnrolOnly, &reach)
	if errors.Is(err, sql.ErrNoRows) {
		return s, u, fmt.Errorf("session: %w", gatehouse.ErrNotFound)
	}
	if err != nil {
		return s, u, wrap(err)
	}
	s.TokenHash, u.ID, u.Reach = tokenHash, s.UserID, sqlstore.ReachOf(reach)
	s.CreatedAt, s.ExpiresAt, s.LastSeenAt, u.CreatedAt = fromMillis(created), fromMillis(expires), fromMillis(seen), fromMillis(uCreated)
	s.ID, _ = uuid.FromBytes(id)
	return s, u, nil
}

// SeenSession records a session's use, at most once a SessionSeenEvery.
func (db *DB) SeenSession(ctx context.Context, orgID uuid.UUID, tokenHash [32]byte, now time.Time) (err error) {
	defer sqlstore.Label(&err, "Store.SeenSession", orgID)
	return db.withTx(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `UPDATE sessions SET last_seen_at = ?
			WHERE token_hash = ? AND coalesce(last_seen_at, created_at) <= ?`, millis(now), tokenHash[:], millis(now.Add(-gatehouse.SessionSeenEvery)))
		return err
	})
}

// ListSessions returns a user's unexpired sessions, last seen first.
func (db *DB) ListSessions(ctx context.Context, orgID, userID uuid.UUID, now time.Time) (_ []gatehouse.Session, err error) {
	defer sqlstore.Label(&err, "Store.ListSessions", orgID, userID)
	rows, err := db.read.QueryContext(ctx, `SELECT s.id, s.user_agent, s.client_address, coalesce(s.last_seen_at, s.created_at) AS seen,
			s.created_at, s.expires_at, s.enrol_only
		FROM sessions s JOIN users u ON u.id = s.user_id JOIN organizations o ON o.seq = u.org
		WHERE o.id = ? AND s.user_id = ? AND s.expires_at > ?
		ORDER BY seen DESC, s.created_at DESC`, orgID[:], userID[:], millis(now))
	if err != nil {
		return nil, wrap(err)
	}
	defer rows.Close()
	out := []gatehouse.Session{}
	for rows.Next() {
		var (
			s                      gatehouse.Session
			id                     []byte
			seen, created, expires int64
		)
		if err := rows.Scan(&id, &s.UserAgent, &s.ClientAddress, &seen, &created, &expires, &s.EnrolOnly); err != nil {
			return nil, wrap(err)
		}
		s.ID, _ = uuid.FromBytes(id)
		s.UserID, s.LastSeenAt, s.CreatedAt, s.ExpiresAt = userID, fromMillis(seen), fromMillis(created), fromMillis(expires)
		out = append(out, s)
	}
	return out, wrap(rows.Err())
}

// EndSessions ends one of a user's sessions, or all, and counts those
// that had not expired.
func (db *DB) EndSessions(ctx context.Context, e gatehouse.AuditEntry, orgID, userID, id uuid.UUID) (n int, err error) {
	defer sqlstore.Label(&err, "Store.EndSessions", orgID, userID)
	err = db.withTx(ctx, func(tx *sql.Tx) error {
		found, err := db.users(ctx, tx, `SELECT `+userColumns+` FROM users u JOIN organizations o ON o.seq = u.org
			WHERE o.id = ? AND u.id = ?`, orgID[:], userID[:])
		if err != nil || len(found) == 0 {
			return err
		}
		var one any
		if id != uuid.Nil {
			one = id[:]
		}
		if err := tx.QueryRowContext(ctx, "SELECT count(*) FROM sessions WHERE user_id = ? AND (? IS NULL OR id = ?) AND expires_at > ?",
			userID[:], one, one, millis(db.Now())).Scan(&n); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, "DELETE FROM sessions WHERE user_id = ? AND (? IS NULL OR id = ?)", userID[:], one, one); err != nil || n == 0 {
			return err
		}
		return db.appendAuditOfUser(ctx, tx, sqlstore.UserEntry(e, found[0]).Change("sessions", "", strconv.Itoa(n)))
	})
	return n, err
}

// DeleteSession ends a session and sweeps the expired ones.
func (db *DB) DeleteSession(ctx context.Context, tokenHash [32]byte, now time.Time) (err error) {
	defer sqlstore.Label(&err, "Store.DeleteSession")
	return db.withTx(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, "DELETE FROM sessions WHERE token_hash = ? OR expires_at <= ?", tokenHash[:], millis(now))
		return err
	})
}
