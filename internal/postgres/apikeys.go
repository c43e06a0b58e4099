package postgres

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/gatehouse/gatehouse"
	"github.com/gatehouse/gatehouse/internal/sqlstore"
	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
)

const apiKeyColumns = `k.id, o.id, k.name, k.prefix, k.hash, k.scopes, k.rate_count, k.rate_per_ms,
	k.created_at, k.expires_at, k.revoked_at, k.last_used_at, k.reach`

// CreateAPIKey stores k.
func (db *DB) CreateAPIKey(ctx context.Context, e gatehouse.AuditEntry, k gatehouse.APIKey) (err error) {
	defer sqlstore.Label(&err, "Store.CreateAPIKey", k.OrgID, k.ID)
	if _, err := gatehouse.CheckName("name", k.Name); err != nil {
		return err
	}
	rateCount, ratePer := sqlstore.RateColumns(k.RateLimit)
	org, err := db.orgSeq(ctx, db.pool, k.OrgID)
	if err != nil {
		return err
	}
	return db.withTx(ctx, func(tx pgx.Tx) error {
		_, err := tx.Exec(ctx, `INSERT INTO api_keys
			(id, org, name, prefix, hash, scopes, rate_count, rate_per_ms, created_at, expires_at, revoked_at, last_used_at, reach)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)`,
			k.ID, org, strings.TrimSpace(k.Name), k.Prefix, k.Hash[:], gatehouse.JoinScopes(k.Scopes), rateCount, ratePer,
			k.CreatedAt, k.ExpiresAt, k.RevokedAt, k.LastUsedAt, sqlstore.ReachColumn(k.Reach))
		if err != nil {
			return err
		}
		return db.appendAudit(ctx, tx, org, e.Of(k.OrgID, gatehouse.AuditTarget{Type: gatehouse.TargetAPIKey, ID: k.ID, Name: strings.TrimSpace(k.Name)}))
	})
}

// ListAPIKeys returns an organization's keys, newest first.
func (db *DB) ListAPIKeys(ctx context.Context, orgID uuid.UUID) (_ []gatehouse.APIKey, err error) {
	defer sqlstore.Label(&err, "Store.ListAPIKeys", orgID)
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
func (db *DB) FindAPIKeyByHash(ctx context.Context, hash gatehouse.KeyHash) (_ gatehouse.APIKey, err error) {
	defer sqlstore.Label(&err, "Store.FindAPIKeyByHash")
	rows, _ := db.pool.Query(ctx, `SELECT `+apiKeyColumns+`
		FROM api_keys k JOIN organizations o ON o.seq = k.org WHERE k.hash = $1`, hash[:])
	k, err := pgx.CollectExactlyOneRow(rows, scanAPIKey)
	if errors.Is(err, pgx.ErrNoRows) {
		return k, fmt.Errorf("api key: %w", gatehouse.ErrNotFound)
	}
	return k, wrap(err)
}

// RevokeAPIKey marks an organization's key revoked, unless it already is.
func (db *DB) RevokeAPIKey(ctx context.Context, e gatehouse.AuditEntry, orgID, id uuid.UUID, at time.Time) (_ gatehouse.APIKey, err error) {
	defer sqlstore.Label(&err, "Store.RevokeAPIKey", orgID, id)
	org, err := db.orgSeq(ctx, db.pool, orgID)
	if err != nil {
		return gatehouse.APIKey{}, err
	}
	var k gatehouse.APIKey
	err = db.withTx(ctx, func(tx pgx.Tx) error {
		// The row lock of FOR UPDATE makes two revocations of one key
		// agree on which of them revoked it: only that one is recorded.
		var already bool
		err := tx.QueryRow(ctx, "SELECT revoked_at IS NOT NULL FROM api_keys WHERE id = $1 AND org = $2 FOR UPDATE", id, org).Scan(&already)
		if errors.Is(err, pgx.ErrNoRows) {
			return fmt.Errorf("api key %s: %w", id, gatehouse.ErrNotFound)
		}
		if err != nil {
			return err
		}
		rows, _ := tx.Query(ctx, `WITH upd AS (
				UPDATE api_keys SET revoked_at = COALESCE(revoked_at, $3) WHERE id = $1 AND org = $2 RETURNING *)
			SELECT `+apiKeyColumns+` FROM upd k JOIN organizations o ON o.seq = k.org`, id, org, at)
		if k, err = pgx.CollectExactlyOneRow(rows, scanAPIKey); err != nil || already {
			return err
		}
		return db.appendAudit(ctx, tx, org, e.Of(orgID, gatehouse.AuditTarget{Type: gatehouse.TargetAPIKey, ID: k.ID, Name: k.Name}))
	})
	return k, err
}

// SetAPIKeyRate sets an organization's key's own rate limit; it records e
// only when the rate changed.
func (db *DB) SetAPIKeyRate(ctx context.Context, e gatehouse.AuditEntry, orgID, id uuid.UUID, rate *gatehouse.Rate) (_ gatehouse.APIKey, err error) {
	defer sqlstore.Label(&err, "Store.SetAPIKeyRate", orgID, id)
	rateCount, ratePer := sqlstore.RateColumns(rate)
	org, err := db.orgSeq(ctx, db.pool, orgID)
	if err != nil {
		return gatehouse.APIKey{}, err
	}
	var k gatehouse.APIKey
	err = db.withTx(ctx, func(tx pgx.Tx) error {
		// The row lock of FOR UPDATE orders two changes of one key: each
		// compares with the rate the other left, and one that changes
		// nothing records nothing.
		var oldCount, oldPer *int64
		err := tx.QueryRow(ctx, "SELECT rate_count, rate_per_ms FROM api_keys WHERE id = $1 AND org = $2 FOR UPDATE", id, org).Scan(&oldCount, &oldPer)
		if errors.Is(err, pgx.ErrNoRows) {
			return fmt.Errorf("api key %s: %w", id, gatehouse.ErrNotFound)
		}
		if err != nil {
			return err
		}
		rows, _ := tx.Query(ctx, `WITH upd AS (
				UPDATE api_keys SET rate_count = $3, rate_per_ms = $4 WHERE id = $1 AND org = $2 RETURNING *)
			SELECT `+apiKeyColumns+` FROM upd k JOIN organizations o ON o.seq = k.org`, id, org, rateCount, ratePer)
		if k, err = pgx.CollectExactlyOneRow(rows, scanAPIKey); err != nil {
			return err
		}
		if _, before := sqlstore.KeyFields("", oldCount, oldPer); sqlstore.SameRate(before, k.RateLimit) {
			return nil // nothing changed, nothing to record
		}
		return db.appendAudit(ctx, tx, org, e.Of(orgID, gatehouse.AuditTarget{Type: gatehouse.TargetAPIKey, ID: k.ID, Name: k.Name}))
	})
	return k, err
}

// CountAPIKeysExpiring counts the keys of every organization, not
// revoked, that expire after from and by to.
func (db *DB) CountAPIKeysExpiring(ctx context.Context, from, to time.Time) (_ int, err error) {
	defer sqlstore.Label(&err, "Store.CountAPIKeysExpiring")
	var n int
	err = db.pool.QueryRow(ctx, `SELECT count(*) FROM api_keys
		WHERE revoked_at IS NULL AND expires_at > $1 AND expires_at <= $2`, from, to).Scan(&n)
	return n, wrap(err)
}

// FindAPIKey returns an organization's key, or ErrNotFound.
func (db *DB) FindAPIKey(ctx context.Context, orgID, id uuid.UUID) (_ gatehouse.APIKey, err error) {
	defer sqlstore.Label(&err, "Store.FindAPIKey", orgID, id)
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
func (db *DB) MarkAPIKeysUsed(ctx context.Context, used map[uuid.UUID]time.Time) (err error) {
	defer sqlstore.Label(&err, "Store.MarkAPIKeysUsed")
	if len(used) == 0 {
		return nil
	}
	ids := make([]uuid.UUID, 0, len(used))
	ats := make([]time.Time, 0, len(used))
	for id, at := range used {
		ids, ats = append(ids, id), append(ats, at)
	}
	_, err = db.pool.Exec(ctx, `UPDATE api_keys k SET last_used_at = u.at
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
		reach              *string
	)
	if err := row.Scan(&k.ID, &k.OrgID, &k.Name, &k.Prefix, &hash, &scopes, &rateCount, &ratePer,
		&k.CreatedAt, &k.ExpiresAt, &k.RevokedAt, &k.LastUsedAt, &reach); err != nil {
		return k, err
	}
	k.Reach = sqlstore.ReachOf(reach)
	copy(k.Hash[:], hash)
	k.Scopes, k.RateLimit = sqlstore.KeyFields(scopes, rateCount, ratePer)
	k.CreatedAt = utc(k.CreatedAt)
	k.ExpiresAt, k.RevokedAt, k.LastUsedAt = optUTC(k.ExpiresAt), optUTC(k.RevokedAt), optUTC(k.LastUsedAt)
	return k, nil
}
