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
	"github.com/jackc/pgx/v5/pgconn"
)

const userColumns = `u.id, o.id, u.email, u.name, u.role, u.password_hash, u.time_zone, u.created_at, u.proven, u.proven_at, coalesce(u.proven_by, ''), u.totp_sealed IS NOT NULL, u.reach,
	(SELECT i.expires_at FROM invitations i WHERE i.user_id = u.id)`

// CreateUser stores a dashboard user, proven as u.Proven says, and inv
// when it is not nil; the email is kept lower-cased.
func (db *DB) CreateUser(ctx context.Context, e gatehouse.AuditEntry, u gatehouse.User, inv *gatehouse.Invitation) (_ gatehouse.User, err error) {
	defer sqlstore.Label(&err, "Store.CreateUser", u.OrgID)
	u, err = sqlstore.NewUser(u, db.Now())
	if err != nil {
		return u, err
	}
	err = db.withTx(ctx, func(tx pgx.Tx) error {
		org, err := lockOrg(ctx, tx, u.OrgID)
		if err != nil {
			return err
		}
		var others int
		if err := tx.QueryRow(ctx, "SELECT count(*) FROM users WHERE org = $1", org).Scan(&others); err != nil {
			return err
		}
		u = sqlstore.RoleOfNewUser(u, others)
		_, err = tx.Exec(ctx, `INSERT INTO users (id, org, email, name, role, password_hash, created_at, proven, proven_at, proven_by, reach)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, CASE WHEN $8 THEN $7::timestamptz END, CASE WHEN $8 THEN 'operator' END, $9)`, u.ID, org, u.Email, u.Name, u.Role, u.PasswordHash, u.CreatedAt, u.Proven, sqlstore.ReachColumn(u.Reach))
		var pgErr *pgconn.PgError
		if errors.As(err, &pgErr) && pgErr.Code == "23505" {
			return fmt.Errorf("email %s is taken in the organization: %w", u.Email, gatehouse.ErrConflict)
		}
		if err != nil {
			return err
		}
		if u.Proven {
			u.ProvenAt, u.ProvenBy = u.CreatedAt, gatehouse.ProvenByOperator
		}
		e = sqlstore.UserEntry(e, u).Change("role", "", string(u.Role))
		if inv != nil {
			inv.UserID, u.InvitedUntil = u.ID, inv.ExpiresAt
			if err := insertInvitation(ctx, tx, org, *inv); err != nil {
				return err
			}
			e = sqlstore.InvitedEntry(e, u, *inv)
		}
		return db.appendAudit(ctx, tx, org, e)
	})
	return u, err
}

// lockOrg returns the organization's seq, locking its row until the
// transaction ends (NO KEY UPDATE: events and keys that reference the
// organization are not held up) — the changes of one organization's users (the first
// user, the last admin) are serialised on it, so two of them cannot both
// count on what the other is changing.
func lockOrg(ctx context.Context, tx pgx.Tx, id uuid.UUID) (int64, error) {
	var seq int64
	err := tx.QueryRow(ctx, "SELECT seq FROM organizations WHERE id = $1 FOR NO KEY UPDATE", id).Scan(&seq)
	if errors.Is(err, pgx.ErrNoRows) {
		return 0, fmt.Errorf("organization %s: %w", id, gatehouse.ErrNotFound)
	}
	return seq, err
}

// FindUsersByEmail returns every user with that email, oldest first.
func (db *DB) FindUsersByEmail(ctx context.Context, email string) (_ []gatehouse.User, err error) {
	defer sqlstore.Label(&err, "Store.FindUsersByEmail")
	return users(ctx, db.pool, `SELECT `+userColumns+` FROM users u JOIN organizations o ON o.seq = u.org
		WHERE u.email = $1 ORDER BY u.created_at, u.id`, sqlstore.NormalEmail(email))
}

// ListUsers returns an organization's users ordered by email.
func (db *DB) ListUsers(ctx context.Context, orgID uuid.UUID) (_ []gatehouse.User, err error) {
	defer sqlstore.Label(&err, "Store.ListUsers", orgID)
	return users(ctx, db.pool, `SELECT `+userColumns+` FROM users u JOIN organizations o ON o.seq = u.org
		WHERE o.id = $1 ORDER BY u.email`, orgID)
}

// lockUser returns the organization's user with that email after locking
// the organization (see lockOrg).
func lockUser(ctx context.Context, tx pgx.Tx, orgID uuid.UUID, email string) (gatehouse.User, error) {
	if _, err := lockOrg(ctx, tx, orgID); err != nil {
		return gatehouse.User{}, err
	}
	found, err := users(ctx, tx, `SELECT `+userColumns+` FROM users u JOIN organizations o ON o.seq = u.org
		WHERE o.id = $1 AND u.email = $2`, orgID, sqlstore.NormalEmail(email))
	if err != nil {
		return gatehouse.User{}, err
	}
	if len(found) == 0 {
		return gatehouse.User{}, fmt.Errorf("user %s: %w", sqlstore.NormalEmail(email), gatehouse.ErrNotFound)
	}
	return found[0], nil
}

func users(ctx context.Context, q querier, query string, args ...any) ([]gatehouse.User, error) {
	rows, err := q.Query(ctx, query, args...)
	if err != nil {
		return nil, wrap(err)
	}
	defer rows.Close()
	found := []gatehouse.User{}
	for rows.Next() {
		var (
			u                 gatehouse.User
			provenAt, invited *time.Time
			reach             *string
		)
		if err := rows.Scan(&u.ID, &u.OrgID, &u.Email, &u.Name, &u.Role, &u.PasswordHash, &u.TimeZone, &u.CreatedAt, &u.Proven, &provenAt, &u.ProvenBy, &u.SecondFactor, &reach, &invited); err != nil {
			return nil, wrap(err)
		}
		u.Reach = sqlstore.ReachOf(reach)
		u.CreatedAt = utc(u.CreatedAt)
		if invited != nil {
			u.InvitedUntil = utc(*invited)
		}
		if provenAt != nil {
			u.ProvenAt = utc(*provenAt)
		}
		found = append(found, u)
	}
	return found, wrap(rows.Err())
}

// SetUserPassword replaces a user's password hash and ends their sessions.
func (db *DB) SetUserPassword(ctx context.Context, e gatehouse.AuditEntry, orgID uuid.UUID, email, passwordHash string) (_ gatehouse.User, err error) {
	defer sqlstore.Label(&err, "Store.SetUserPassword", orgID)
	var u gatehouse.User
	err = db.withTx(ctx, func(tx pgx.Tx) (err error) {
		if u, err = lockUser(ctx, tx, orgID, email); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, "UPDATE users SET password_hash = $1, proven = true, proven_at = coalesce(proven_at, $3), proven_by = coalesce(proven_by, 'operator') WHERE id = $2", passwordHash, u.ID, db.Now()); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, "DELETE FROM invitations WHERE user_id = $1", u.ID); err != nil {
			return err
		}
		if !u.Proven {
			u.ProvenAt, u.ProvenBy = gatehouse.Truncate(db.Now()), gatehouse.ProvenByOperator
		}
		u.PasswordHash, u.Proven, u.InvitedUntil = passwordHash, true, time.Time{}
		if _, err = tx.Exec(ctx, "DELETE FROM sessions WHERE user_id = $1", u.ID); err != nil {
			return err
		}
		return db.appendAuditIn(ctx, tx, sqlstore.UserEntry(e, u))
	})
	return u, err
}

// SetUserRole changes a user's role and reach, refusing to demote or
// limit the last admin of the whole organization, and ends the user's
// sessions when the change lowers what they may do.
func (db *DB) SetUserRole(ctx context.Context, e gatehouse.AuditEntry, orgID uuid.UUID, email string, role gatehouse.Role, reach gatehouse.Reach) (_ gatehouse.User, err error) {
	defer sqlstore.Label(&err, "Store.SetUserRole", orgID)
	var u gatehouse.User
	err = db.withTx(ctx, func(tx pgx.Tx) (err error) {
		if u, err = lockUser(ctx, tx, orgID, email); err != nil {
			return err
		}
		c := sqlstore.RoleChange(e, u, role, reach)
		if c.LeavesWhole {
			if err := keepAnAdmin(ctx, tx, u); err != nil {
				return err
			}
		}
		if _, err := tx.Exec(ctx, "UPDATE users SET role = $1, reach = $2 WHERE id = $3", role, sqlstore.ReachColumn(reach), u.ID); err != nil {
			return err
		}
		u = c.User
		if c.Lowered {
			if _, err = tx.Exec(ctx, "DELETE FROM sessions WHERE user_id = $1", u.ID); err != nil {
				return err
			}
		}
		if !c.Changed {
			return nil
		}
		return db.appendAuditIn(ctx, tx, c.Entry)
	})
	return u, err
}

// RemoveUser deletes a user and their sessions, unless it is the last admin.
func (db *DB) RemoveUser(ctx context.Context, e gatehouse.AuditEntry, orgID uuid.UUID, email string) (_ gatehouse.User, err error) {
	defer sqlstore.Label(&err, "Store.RemoveUser", orgID)
	var u gatehouse.User
	err = db.withTx(ctx, func(tx pgx.Tx) (err error) {
		if u, err = lockUser(ctx, tx, orgID, email); err != nil {
			return err
		}
		if u.WholeAdmin() {
			if err := keepAnAdmin(ctx, tx, u); err != nil {
				return err
			}
		}
		if _, err := tx.Exec(ctx, "DELETE FROM sessions WHERE user_id = $1", u.ID); err != nil {
			return err
		}
		if err := db.appendAuditIn(ctx, tx, sqlstore.UserEntry(e, u)); err != nil {
			return err
		}
		_, err = tx.Exec(ctx, "DELETE FROM users WHERE id = $1", u.ID)
		return err
	})
	return u, err
}

// keepAnAdmin returns ErrConflict when admin is the last admin of its
// organization. The caller holds the organization's lock.
func keepAnAdmin(ctx context.Context, tx pgx.Tx, admin gatehouse.User) error {
	var others int
	err := tx.QueryRow(ctx, `SELECT count(*) FROM users
		WHERE org = (SELECT org FROM users WHERE id = $1) AND role = 'admin' AND reach IS NULL AND id <> $1`, admin.ID).Scan(&others)
	if err != nil {
		return err
	}
	return sqlstore.KeepAnAdmin(admin, others)
}

// SetUserTimeZone stores the zone of the organization's user with that id.
func (db *DB) SetUserTimeZone(ctx context.Context, orgID, userID uuid.UUID, zone string) (err error) {
	defer sqlstore.Label(&err, "Store.SetUserTimeZone", orgID, userID)
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
