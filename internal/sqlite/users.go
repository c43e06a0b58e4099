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

const userColumns = `u.id, o.id, u.email, u.name, u.role, u.password_hash, u.time_zone, u.created_at, u.proven, u.proven_at, coalesce(u.proven_by, ''), u.totp_sealed IS NOT NULL, u.reach,
	(SELECT i.expires_at FROM invitations i WHERE i.user_id = u.id)`

// CreateUser stores a dashboard user, proven as u.Proven says, and inv
// when it is not nil; the email is kept lower-cased. The
// transaction holds SQLite's write lock, so two first users cannot both
// see an empty organization.
func (db *DB) CreateUser(ctx context.Context, e gatehouse.AuditEntry, u gatehouse.User, inv *gatehouse.Invitation) (_ gatehouse.User, err error) {
	defer sqlstore.Label(&err, "Store.CreateUser", u.OrgID)
	u, err = sqlstore.NewUser(u, db.Now())
	if err != nil {
		return u, err
	}
	err = db.withTx(ctx, func(tx *sql.Tx) error {
		org, err := db.orgSeq(ctx, tx, u.OrgID)
		if err != nil {
			return err
		}
		var others int
		if err := tx.QueryRowContext(ctx, "SELECT count(*) FROM users WHERE org = ?", org).Scan(&others); err != nil {
			return err
		}
		u = sqlstore.RoleOfNewUser(u, others)
		_, err = tx.ExecContext(ctx, `INSERT INTO users (id, org, email, name, role, password_hash, created_at, proven, proven_at, proven_by, reach)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, CASE WHEN ? THEN ? END, CASE WHEN ? THEN 'operator' END, ?)`, u.ID[:], org, u.Email, u.Name, u.Role, u.PasswordHash, millis(u.CreatedAt), u.Proven, u.Proven, millis(u.CreatedAt), u.Proven, sqlstore.ReachColumn(u.Reach))
		if isUniqueViolation(err) {
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

// FindUsersByEmail returns every user with that email, oldest first.
func (db *DB) FindUsersByEmail(ctx context.Context, email string) (_ []gatehouse.User, err error) {
	defer sqlstore.Label(&err, "Store.FindUsersByEmail")
	return db.users(ctx, db.read, `SELECT `+userColumns+` FROM users u JOIN organizations o ON o.seq = u.org
		WHERE u.email = ? ORDER BY u.created_at, u.id`, sqlstore.NormalEmail(email))
}

// ListUsers returns an organization's users ordered by email.
func (db *DB) ListUsers(ctx context.Context, orgID uuid.UUID) (_ []gatehouse.User, err error) {
	defer sqlstore.Label(&err, "Store.ListUsers", orgID)
	return db.users(ctx, db.read, `SELECT `+userColumns+` FROM users u JOIN organizations o ON o.seq = u.org
		WHERE o.id = ? ORDER BY u.email`, orgID[:])
}

// findUser returns the organization's user with that email, in tx.
func (db *DB) findUser(ctx context.Context, tx *sql.Tx, orgID uuid.UUID, email string) (gatehouse.User, error) {
	users, err := db.users(ctx, tx, `SELECT `+userColumns+` FROM users u JOIN organizations o ON o.seq = u.org
		WHERE o.id = ? AND u.email = ?`, orgID[:], sqlstore.NormalEmail(email))
	if err != nil {
		return gatehouse.User{}, err
	}
	if len(users) == 0 {
		return gatehouse.User{}, fmt.Errorf("user %s: %w", sqlstore.NormalEmail(email), gatehouse.ErrNotFound)
	}
	return users[0], nil
}

type queryer interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
}

func (db *DB) users(ctx context.Context, q queryer, query string, args ...any) ([]gatehouse.User, error) {
	rows, err := q.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, wrap(err)
	}
	defer rows.Close()
	users := []gatehouse.User{}
	for rows.Next() {
		var (
			u        gatehouse.User
			created  int64
			invited  sql.NullInt64
			provenAt sql.NullInt64
			reach    *string
		)
		if err := rows.Scan(&u.ID, &u.OrgID, &u.Email, &u.Name, &u.Role, &u.PasswordHash, &u.TimeZone, &created, &u.Proven, &provenAt, &u.ProvenBy, &u.SecondFactor, &reach, &invited); err != nil {
			return nil, wrap(err)
		}
		u.Reach = sqlstore.ReachOf(reach)
		u.CreatedAt = fromMillis(created)
		if invited.Valid {
			u.InvitedUntil = fromMillis(invited.Int64)
		}
		if provenAt.Valid {
			u.ProvenAt = fromMillis(provenAt.Int64)
		}
		users = append(users, u)
	}
	return users, wrap(rows.Err())
}

// SetUserPassword replaces a user's password hash and ends their sessions.
func (db *DB) SetUserPassword(ctx context.Context, e gatehouse.AuditEntry, orgID uuid.UUID, email, passwordHash string) (_ gatehouse.User, err error) {
	defer sqlstore.Label(&err, "Store.SetUserPassword", orgID)
	var u gatehouse.User
	err = db.withTx(ctx, func(tx *sql.Tx) (err error) {
		if u, err = db.findUser(ctx, tx, orgID, email); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, "UPDATE users SET password_hash = ?, proven = 1, proven_at = coalesce(proven_at, ?), proven_by = coalesce(proven_by, 'operator') WHERE id = ?", passwordHash, millis(db.Now()), u.ID[:]); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, "DELETE FROM invitations WHERE user_id = ?", u.ID[:]); err != nil {
			return err
		}
		if !u.Proven {
			u.ProvenAt, u.ProvenBy = gatehouse.Truncate(db.Now()), gatehouse.ProvenByOperator
		}
		u.PasswordHash, u.Proven, u.InvitedUntil = passwordHash, true, time.Time{}
		if _, err = tx.ExecContext(ctx, "DELETE FROM sessions WHERE user_id = ?", u.ID[:]); err != nil {
			return err
		}
		return db.appendAuditOfUser(ctx, tx, sqlstore.UserEntry(e, u))
	})
	return u, err
}

// SetUserRole changes a user's role and reach, refusing to demote or
// limit the last admin of the whole organization, and ends the user's
// sessions when the change lowers what they may do.
func (db *DB) SetUserRole(ctx context.Context, e gatehouse.AuditEntry, orgID uuid.UUID, email string, role gatehouse.Role, reach gatehouse.Reach) (_ gatehouse.User, err error) {
	defer sqlstore.Label(&err, "Store.SetUserRole", orgID)
	var u gatehouse.User
	err = db.withTx(ctx, func(tx *sql.Tx) (err error) {
		if u, err = db.findUser(ctx, tx, orgID, email); err != nil {
			return err
		}
		c := sqlstore.RoleChange(e, u, role, reach)
		if c.LeavesWhole {
			if err := db.keepAnAdmin(ctx, tx, u); err != nil {
				return err
			}
		}
		if _, err := tx.ExecContext(ctx, "UPDATE users SET role = ?, reach = ? WHERE id = ?", role, sqlstore.ReachColumn(reach), u.ID[:]); err != nil {
			return err
		}
		u = c.User
		if c.Lowered {
			if _, err = tx.ExecContext(ctx, "DELETE FROM sessions WHERE user_id = ?", u.ID[:]); err != nil {
				return err
			}
		}
		if !c.Changed {
			return nil
		}
		return db.appendAuditOfUser(ctx, tx, c.Entry)
	})
	return u, err
}

// RemoveUser deletes a user and their sessions, unless it is the last admin.
func (db *DB) RemoveUser(ctx context.Context, e gatehouse.AuditEntry, orgID uuid.UUID, email string) (_ gatehouse.User, err error) {
	defer sqlstore.Label(&err, "Store.RemoveUser", orgID)
	var u gatehouse.User
	err = db.withTx(ctx, func(tx *sql.Tx) (err error) {
		if u, err = db.findUser(ctx, tx, orgID, email); err != nil {
			return err
		}
		if u.WholeAdmin() {
			if err := db.keepAnAdmin(ctx, tx, u); err != nil {
				return err
			}
		}
		if _, err := tx.ExecContext(ctx, "DELETE FROM sessions WHERE user_id = ?", u.ID[:]); err != nil {
			return err
		}
		if err := db.appendAuditOfUser(ctx, tx, sqlstore.UserEntry(e, u)); err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, "DELETE FROM users WHERE id = ?", u.ID[:])
		return err
	})
	return u, err
}

// keepAnAdmin returns ErrConflict when admin is the last admin of its
// organization.
func (db *DB) keepAnAdmin(ctx context.Context, tx *sql.Tx, admin gatehouse.User) error {
	var others int
	err := tx.QueryRowContext(ctx, `SELECT count(*) FROM users
		WHERE org = (SELECT org FROM users WHERE id = ?) AND role = 'admin' AND reach IS NULL AND id <> ?`, admin.ID[:], admin.ID[:]).Scan(&others)
	if err != nil {
		return err
	}
	return sqlstore.KeepAnAdmin(admin, others)
}

// SetUserTimeZone stores the zone of the organization's user with that id.
func (db *DB) SetUserTimeZone(ctx context.Context, orgID, userID uuid.UUID, zone string) (err error) {
	defer sqlstore.Label(&err, "Store.SetUserTimeZone", orgID, userID)
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

// appendAuditOfUser appends e, an entry about a user of its organization.
func (db *DB) appendAuditOfUser(ctx context.Context, tx *sql.Tx, e gatehouse.AuditEntry) error {
	org, err := db.orgSeq(ctx, tx, e.OrgID)
	if err != nil {
		return err
	}
	return db.appendAudit(ctx, tx, org, e)
}
