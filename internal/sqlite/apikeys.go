package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/gatehouse/gatehouse"
	"github.com/gatehouse/gatehouse/internal/sqlstore"
	"github.com/google/uuid"
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
	return db.withTx(ctx, func(tx *sql.Tx) error {
		org, err := db.orgSeq(ctx, tx, k.OrgID)
		if err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, `INSERT INTO api_keys
			(id, org, name, prefix, hash, scopes, rate_count, rate_per_ms, created_at, expires_at, revoked_at, last_used_at, reach)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
			k.ID[:], org, strings.TrimSpace(k.Name), k.Prefix, k.Hash[:], gatehouse.JoinScopes(k.Scopes), rateCount, ratePer,
			millis(k.CreatedAt), optMillis(k.ExpiresAt), optMillis(k.RevokedAt), optMillis(k.LastUsedAt), sqlstore.ReachColumn(k.Reach))
		if err != nil {
			return err
		}
		return db.appendAudit(ctx, tx, org, e.Of(k.OrgID, gatehouse.AuditTarget{Type: gatehouse.TargetAPIKey, ID: k.ID, Name: strings.TrimSpace(k.Name)}))
	})
}

// ListAPIKeys returns an organization's keys, newest first.
func (db *DB) ListAPIKeys(ctx context.Context, orgID uuid.UUID) (_ []gatehouse.APIKey, err error) {
	defer sqlstore.Label(&err, "Store.ListAPIKeys", orgID)
	rows, err := db.read.QueryContext(ctx, `SELECT `+apiKeyColumns+`
		FROM api_keys k JOIN organizations o ON o.seq = k.org
		WHERE o.id = ? ORDER BY k.created_at DESC, k.id DESC`, orgID[:])
	if err != nil {
		return nil, wrap(err)
	}
	defer rows.Close()
	keys := []gatehouse.APIKey{}
	for rows.Next() {
		k, err := scanAPIKey(rows)
		if err != nil {
			return nil, wrap(err)
		}
		keys = append(keys, k)
	}
	return keys, wrap(rows.Err())
}

// FindAPIKeyByHash returns the key with that hash, or ErrNotFound.
func (db *DB) FindAPIKeyByHash(ctx context.Context, hash gatehouse.KeyHash) (_ gatehouse.APIKey, err error) {
	defer sqlstore.Label(&err, "Store.FindAPIKeyByHash")
	k, err := scanAPIKey(db.read.QueryRowContext(ctx, `SELECT `+apiKeyColumns+`
		FROM api_keys k JOIN organizations o ON o.seq = k.org WHERE k.hash = ?`, hash[:]))
	if errors.Is(err, sql.ErrNoRows) {
		return k, fmt.Errorf("api key: %w", gatehouse.ErrNotFound)
	}
	return k, wrap(err)
}

// RevokeAPIKey marks an organization's key revoked, unless it already is.
func (db *DB) RevokeAPIKey(ctx context.Context, e gatehouse.AuditEntry, orgID, id uuid.UUID, at time.Time) (_ gatehouse.APIKey, err error) {
	defer sqlstore.Label(&err, "Store.RevokeAPIKey", orgID, id)
	var k gatehouse.APIKey
	err = db.withTx(ctx, func(tx *sql.Tx) error {
		org, err := db.orgSeq(ctx, tx, orgID)
		if err != nil {
			return err
		}
		res, err := tx.ExecContext(ctx, "UPDATE api_keys SET revoked_at = ? WHERE id = ? AND org = ? AND revoked_at IS NULL",
			millis(at), id[:], org)
		if err != nil {
			return err
		}
		if k, err = findAPIKey(ctx, tx, org, id); err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return nil // already revoked: nothing changed, nothing to record
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
	var k gatehouse.APIKey
	err = db.withTx(ctx, func(tx *sql.Tx) error {
		org, err := db.orgSeq(ctx, tx, orgID)
		if err != nil {
			return err
		}
		before, err := findAPIKey(ctx, tx, org, id)
		if err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, "UPDATE api_keys SET rate_count = ?, rate_per_ms = ? WHERE id = ? AND org = ?",
			rateCount, ratePer, id[:], org); err != nil {
			return err
		}
		if k, err = findAPIKey(ctx, tx, org, id); err != nil {
			return err
		}
		if sqlstore.SameRate(before.RateLimit, k.RateLimit) {
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
	err = db.read.QueryRowContext(ctx, `SELECT count(*) FROM api_keys
		WHERE revoked_at IS NULL AND expires_at > ? AND expires_at <= ?`, millis(from), millis(to)).Scan(&n)
	return n, wrap(err)
}

// FindAPIKey returns an organization's key, or ErrNotFound.
func (db *DB) FindAPIKey(ctx context.Context, orgID, id uuid.UUID) (_ gatehouse.APIKey, err error) {
	defer sqlstore.Label(&err, "Store.FindAPIKey", orgID, id)
	org, err := db.orgSeq(ctx, db.read, orgID)
	if err != nil {
		return gatehouse.APIKey{}, err
	}
	k, err := findAPIKey(ctx, db.read, org, id)
	return k, wrap(err)
}

func findAPIKey(ctx context.Context, q querier, org int64, id uuid.UUID) (gatehouse.APIKey, error) {
	k, err := scanAPIKey(q.QueryRowContext(ctx, `SELECT `+apiKeyColumns+`
		FROM api_keys k JOIN organizations o ON o.seq = k.org WHERE k.id = ? AND k.org = ?`, id[:], org))
	if errors.Is(err, sql.ErrNoRows) {
		return k, fmt.Errorf("api key %s: %w", id, gatehouse.ErrNotFound)
	}
	return k, err
}

// MarkAPIKeysUsed records last-use times in one transaction.
func (db *DB) MarkAPIKeysUsed(ctx context.Context, used map[uuid.UUID]time.Time) (err error) {
	defer sqlstore.Label(&err, "Store.MarkAPIKeysUsed")
	if len(used) == 0 {
		return nil
	}
	return db.withTx(ctx, func(tx *sql.Tx) error {
		stmt, err := tx.PrepareContext(ctx, `UPDATE api_keys SET last_used_at = ?
			WHERE id = ? AND (last_used_at IS NULL OR last_used_at < ?)`)
		if err != nil {
			return err
		}
		defer stmt.Close()
		for id, at := range used {
			if _, err := stmt.ExecContext(ctx, millis(at), id[:], millis(at)); err != nil {
				return err
			}
		}
		return nil
	})
}

func scanAPIKey(s scanner) (gatehouse.APIKey, error) {
	var (
		k                          gatehouse.APIKey
		hash                       []byte
		scopes                     string
		rateCount, ratePer         *int64
		created                    int64
		expires, revoked, lastUsed sql.NullInt64
		reach                      *string
	)
	if err := s.Scan(&k.ID, &k.OrgID, &k.Name, &k.Prefix, &hash, &scopes, &rateCount, &ratePer,
		&created, &expires, &revoked, &lastUsed, &reach); err != nil {
		return k, err
	}
	k.Reach = sqlstore.ReachOf(reach)
	copy(k.Hash[:], hash)
	k.Scopes, k.RateLimit = sqlstore.KeyFields(scopes, rateCount, ratePer)
	k.CreatedAt = fromMillis(created)
	k.ExpiresAt, k.RevokedAt, k.LastUsedAt = fromOptMillis(expires), fromOptMillis(revoked), fromOptMillis(lastUsed)
	return k, nil
}
