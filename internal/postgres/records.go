package postgres

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/gatehouse/gatehouse"
	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// CreateOrganization stores a new organization.
func (db *DB) CreateOrganization(ctx context.Context, name string) (gatehouse.Organization, error) {
	name, err := gatehouse.CheckName("name", name)
	if err != nil {
		return gatehouse.Organization{}, err
	}
	now := gatehouse.Truncate(db.Now())
	o := gatehouse.Organization{ID: gatehouse.NewID(), Name: name, CreatedAt: gatehouse.Time(now)}
	_, err = db.pool.Exec(ctx, "INSERT INTO organizations (id, name, created_at) VALUES ($1, $2, $3)", o.ID, name, now)
	return o, wrap(err)
}

// ListOrganizations returns every organization, oldest first.
func (db *DB) ListOrganizations(ctx context.Context) ([]gatehouse.Organization, error) {
	rows, err := db.pool.Query(ctx, "SELECT id, name, created_at FROM organizations ORDER BY seq")
	if err != nil {
		return nil, wrap(err)
	}
	orgs, err := pgx.CollectRows(rows, scanOrganization)
	if orgs == nil {
		orgs = []gatehouse.Organization{}
	}
	return orgs, wrap(err)
}

// FindOrganization returns one organization, or ErrNotFound.
func (db *DB) FindOrganization(ctx context.Context, id uuid.UUID) (gatehouse.Organization, error) {
	rows, _ := db.pool.Query(ctx, "SELECT id, name, created_at FROM organizations WHERE id = $1", id)
	o, err := pgx.CollectExactlyOneRow(rows, scanOrganization)
	if errors.Is(err, pgx.ErrNoRows) {
		return o, fmt.Errorf("organization %s: %w", id, gatehouse.ErrNotFound)
	}
	return o, wrap(err)
}

// RenameOrganization renames an organization, or answers ErrNotFound.
func (db *DB) RenameOrganization(ctx context.Context, id uuid.UUID, name string) (gatehouse.Organization, error) {
	name, err := gatehouse.CheckName("name", name)
	if err != nil {
		return gatehouse.Organization{}, err
	}
	rows, _ := db.pool.Query(ctx, "UPDATE organizations SET name = $2 WHERE id = $1 RETURNING id, name, created_at", id, name)
	o, err := pgx.CollectExactlyOneRow(rows, scanOrganization)
	if errors.Is(err, pgx.ErrNoRows) {
		return o, fmt.Errorf("organization %s: %w", id, gatehouse.ErrNotFound)
	}
	return o, wrap(err)
}

func scanOrganization(row pgx.CollectableRow) (gatehouse.Organization, error) {
	var (
		o  gatehouse.Organization
		at time.Time
	)
	err := row.Scan(&o.ID, &o.Name, &at)
	o.CreatedAt = gatehouse.Time(at.UTC())
	return o, err
}

const apiKeyColumns = `k.id, o.id, k.name, k.prefix, k.hash, k.scopes, k.rate_count, k.rate_per_ms,
	k.created_at, k.expires_at, k.revoked_at, k.last_used_at`

// CreateAPIKey stores k.
func (db *DB) CreateAPIKey(ctx context.Context, k gatehouse.APIKey) error {
	if _, err := gatehouse.CheckName("name", k.Name); err != nil {
		return err
	}
	var rateCount, ratePer *int64
	if k.RateLimit != nil {
		c, p := int64(k.RateLimit.Count), k.RateLimit.Per.Milliseconds()
		rateCount, ratePer = &c, &p
	}
	org, err := db.orgSeq(ctx, db.pool, k.OrgID)
	if err != nil {
		return err
	}
	_, err = db.pool.Exec(ctx, `INSERT INTO api_keys
		(id, org, name, prefix, hash, scopes, rate_count, rate_per_ms, created_at, expires_at, revoked_at, last_used_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)`,
		k.ID, org, strings.TrimSpace(k.Name), k.Prefix, k.Hash[:], gatehouse.JoinScopes(k.Scopes), rateCount, ratePer,
		k.CreatedAt, k.ExpiresAt, k.RevokedAt, k.LastUsedAt)
	return wrap(err)
}

// ListAPIKeys returns an organization's keys, newest first.
func (db *DB) ListAPIKeys(ctx context.Context, orgID uuid.UUID) ([]gatehouse.APIKey, error) {
	rows, err := db.pool.Query(ctx, `SELECT `+apiKeyColumns+`
		FROM api_keys k JOIN organizations o ON o.seq = k.org
		WHERE o.id = $1 ORDER BY k.created_at DESC, k.id DESC`, orgID)
	if err != nil {
		return nil, wrap(err)
	}
	keys, err := pgx.CollectRows(rows, scanAPIKey)
	if keys == nil {
		keys = []gatehouse.APIKey{}
	}
	return keys, wrap(err)
}

// FindAPIKeyByHash returns the key with that hash, or ErrNotFound.
func (db *DB) FindAPIKeyByHash(ctx context.Context, hash gatehouse.KeyHash) (gatehouse.APIKey, error) {
	rows, _ := db.pool.Query(ctx, `SELECT `+apiKeyColumns+`
		FROM api_keys k JOIN organizations o ON o.seq = k.org WHERE k.hash = $1`, hash[:])
	k, err := pgx.CollectExactlyOneRow(rows, scanAPIKey)
	if errors.Is(err, pgx.ErrNoRows) {
		return k, fmt.Errorf("api key: %w", gatehouse.ErrNotFound)
	}
	return k, wrap(err)
}

// RevokeAPIKey marks an organization's key revoked, unless it already is.
func (db *DB) RevokeAPIKey(ctx context.Context, orgID, id uuid.UUID, at time.Time) (gatehouse.APIKey, error) {
	org, err := db.orgSeq(ctx, db.pool, orgID)
	if err != nil {
		return gatehouse.APIKey{}, err
	}
	rows, _ := db.pool.Query(ctx, `WITH upd AS (
			UPDATE api_keys SET revoked_at = COALESCE(revoked_at, $3) WHERE id = $1 AND org = $2 RETURNING *)
		SELECT `+apiKeyColumns+` FROM upd k JOIN organizations o ON o.seq = k.org`, id, org, at)
	k, err := pgx.CollectExactlyOneRow(rows, scanAPIKey)
	if errors.Is(err, pgx.ErrNoRows) {
		return k, fmt.Errorf("api key %s: %w", id, gatehouse.ErrNotFound)
	}
	return k, wrap(err)
}

// FindAPIKey returns an organization's key, or ErrNotFound.
func (db *DB) FindAPIKey(ctx context.Context, orgID, id uuid.UUID) (gatehouse.APIKey, error) {
	org, err := db.orgSeq(ctx, db.pool, orgID)
	if err != nil {
		return gatehouse.APIKey{}, err
	}
	rows, _ := db.pool.Query(ctx, `SELECT `+apiKeyColumns+`
		FROM api_keys k JOIN organizations o ON o.seq = k.org WHERE k.id = $1 AND k.org = $2`, id, org)
	k, err := pgx.CollectExactlyOneRow(rows, scanAPIKey)
	if errors.Is(err, pgx.ErrNoRows) {
		return k, fmt.Errorf("api key %s: %w", id, gatehouse.ErrNotFound)
	}
	return k, wrap(err)
}

// MarkAPIKeysUsed records last-use times in one statement.
func (db *DB) MarkAPIKeysUsed(ctx context.Context, used map[uuid.UUID]time.Time) error {
	if len(used) == 0 {
		return nil
	}
	ids := make([]uuid.UUID, 0, len(used))
	ats := make([]time.Time, 0, len(used))
	for id, at := range used {
		ids, ats = append(ids, id), append(ats, at)
	}
	_, err := db.pool.Exec(ctx, `UPDATE api_keys k SET last_used_at = u.at
		FROM unnest($1::uuid[], $2::timestamptz[]) AS u(id, at)
		WHERE k.id = u.id AND (k.last_used_at IS NULL OR k.last_used_at < u.at)`, ids, ats)
	return wrap(err)
}

func scanAPIKey(row pgx.CollectableRow) (gatehouse.APIKey, error) {
	var (
		k                  gatehouse.APIKey
		hash               []byte
		scopes             string
		rateCount, ratePer *int64
	)
	if err := row.Scan(&k.ID, &k.OrgID, &k.Name, &k.Prefix, &hash, &scopes, &rateCount, &ratePer,
		&k.CreatedAt, &k.ExpiresAt, &k.RevokedAt, &k.LastUsedAt); err != nil {
		return k, err
	}
	copy(k.Hash[:], hash)
	for sc := range strings.SplitSeq(scopes, ",") {
		k.Scopes = append(k.Scopes, gatehouse.Scope(sc))
	}
	if rateCount != nil && ratePer != nil {
		k.RateLimit = &gatehouse.Rate{Count: int(*rateCount), Per: time.Duration(*ratePer) * time.Millisecond}
	}
	k.CreatedAt = utc(k.CreatedAt)
	k.ExpiresAt, k.RevokedAt, k.LastUsedAt = optUTC(k.ExpiresAt), optUTC(k.RevokedAt), optUTC(k.LastUsedAt)
	return k, nil
}

// CreateUser stores a dashboard user; the email is kept lower-cased.
func (db *DB) CreateUser(ctx context.Context, u gatehouse.User) (gatehouse.User, error) {
	u, err := gatehouse.CheckUser(u)
	if err != nil {
		return u, err
	}
	u.ID, u.CreatedAt = gatehouse.NewID(), gatehouse.Truncate(db.Now())
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
	err := db.pool.QueryRow(ctx, `SELECT u.id, o.id, u.email, u.name, u.password_hash, u.created_at
		FROM users u JOIN organizations o ON o.seq = u.org WHERE u.email = $1`,
		strings.ToLower(strings.TrimSpace(email))).Scan(&u.ID, &u.OrgID, &u.Email, &u.Name, &u.PasswordHash, &u.CreatedAt)
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
