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
	"github.com/jackc/pgx/v5/pgconn"
)

// DeletePlayerEvents deletes a batch of a platform user's events.
func (db *DB) DeletePlayerEvents(ctx context.Context, orgID uuid.UUID, platformUserID string, limit int) (_ int, err error) {
	defer sqlstore.Label(&err, "Store.DeletePlayerEvents", orgID)
	return db.deleteEvents(ctx, orgID, "platform_user_id = $2", platformUserID, limit)
}

// deleteEvents deletes at most limit of the organization's events
// matching cond ($2), in one statement: its own short transaction,
// found again by the unique key, each in its month's partition. The
// identity never hands a seq out twice.
func (db *DB) deleteEvents(ctx context.Context, orgID uuid.UUID, cond string, arg any, limit int) (int, error) {
	org, err := db.orgSeq(ctx, db.pool, orgID)
	if err != nil {
		return 0, err
	}
	// An event deleted is no duplicate any more, as on SQLite: its id
	// leaves the recent ids too.
	var n int
	err = db.pool.QueryRow(ctx, `WITH gone AS (DELETE FROM events WHERE (org, id, occurred_at) IN
			(SELECT org, id, occurred_at FROM events WHERE org = $1 AND `+cond+` LIMIT $3) RETURNING id),
		forgot AS (DELETE FROM recent_event_ids WHERE org = $1 AND id IN (SELECT id FROM gone))
		SELECT count(*) FROM gone`, org, arg, limit).Scan(&n)
	return n, wrap(err)
}

// FinishErasure deletes a platform user's commands and search term.
func (db *DB) FinishErasure(ctx context.Context, e gatehouse.AuditEntry, orgID uuid.UUID, platformUserID string) (_ int, err error) {
	defer sqlstore.Label(&err, "Store.FinishErasure", orgID)
	org, err := db.orgSeq(ctx, db.pool, orgID)
	if err != nil {
		return 0, err
	}
	var n int
	term := sqlstore.Term{Field: sqlstore.TermPlatformUser, Value: platformUserID}
	err = db.withTx(ctx, func(tx pgx.Tx) error {
		rows, _ := tx.Query(ctx, "SELECT id FROM commands WHERE org = $1 AND platform_user_id = $2 FOR UPDATE", org, platformUserID)
		ids, err := pgx.CollectRows(rows, pgx.RowTo[uuid.UUID])
		if err != nil {
			return err
		}
		if err := deleteCommands(ctx, tx, org, ids); err != nil {
			return err
		}
		n = len(ids)
		if _, err := tx.Exec(ctx, "DELETE FROM server_players WHERE org = $1 AND platform_user_id = $2", org, platformUserID); err != nil {
			return err
		}
		if err := db.eraseAlerts(ctx, tx, org, platformUserID); err != nil {
			return err
		}
		// The servers' own lists of who is on them name the player too;
		// the digest is cleared, so that the next sync writes its list
		// whole, and the count of their rows (the organization's cap)
		// follows the rows deleted above.
		if _, err := tx.Exec(ctx, `UPDATE game_servers SET players = players - $2::text, players_digest = ''::bytea,
			player_count = (SELECT count(*) FROM server_players p WHERE p.org = game_servers.org AND p.job_id = game_servers.job_id)
			WHERE org = $1 AND players ? $2::text`, org, platformUserID); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, "DELETE FROM search_terms WHERE org = $1 AND field = $2 AND value = $3", org, term.Field, term.Value); err != nil {
			return err
		}
		// What receivers answered to deliveries of what is gone may echo
		// the player: it goes too.
		if _, err := tx.Exec(ctx, `UPDATE webhook_deliveries d SET response = ''
			WHERE d.webhook IN (SELECT seq FROM webhooks WHERE org = $1) AND d.response <> '' AND (
				d.type = 'event.created' AND NOT EXISTS (SELECT 1 FROM events e WHERE e.org = $1 AND e.id = d.object_id)
				OR d.type = 'command.updated' AND NOT EXISTS (SELECT 1 FROM commands c WHERE c.org = $1 AND c.id = d.object_id))`,
			org); err != nil {
			return err
		}
		return db.appendAudit(ctx, tx, org, e.Change("commands", "", strconv.Itoa(n)))
	})
	if err == nil {
		db.terms.Forget(org, term)
	}
	return n, err
}

// deleteCommands deletes an organization's commands ids with their
// deliveries, delivery counts and idempotency keys.
func deleteCommands(ctx context.Context, tx pgx.Tx, org int64, ids []uuid.UUID) error {
	for _, q := range []string{
		"DELETE FROM command_deliveries WHERE org = $1 AND command_id = ANY($2)",
		"DELETE FROM command_delivery_counts WHERE org = $1 AND command_id = ANY($2)",
		"DELETE FROM idempotency_keys WHERE org = $1 AND command_id = ANY($2)",
		"DELETE FROM commands WHERE org = $1 AND id = ANY($2)",
	} {
		if _, err := tx.Exec(ctx, q, org, ids); err != nil {
			return err
		}
	}
	return nil
}

// SetErasureIntegration stores the organization's erasure webhook.
func (db *DB) SetErasureIntegration(ctx context.Context, e gatehouse.AuditEntry, orgID uuid.UUID, tokenHash [32]byte, sealedToken, sealedSecret []byte, at time.Time) (err error) {
	defer sqlstore.Label(&err, "Store.SetErasureIntegration", orgID)
	org, err := db.orgSeq(ctx, db.pool, orgID)
	if err != nil {
		return err
	}
	return db.withTx(ctx, func(tx pgx.Tx) error {
		_, err := tx.Exec(ctx, `INSERT INTO erasure_integrations (org, token_hash, sealed_token, sealed_secret, created_at)
			VALUES ($1, $2, $3, $4, $5) ON CONFLICT (org) DO UPDATE SET token_hash = excluded.token_hash,
			sealed_token = excluded.sealed_token, sealed_secret = excluded.sealed_secret, created_at = excluded.created_at`,
			org, tokenHash[:], sealedToken, sealedSecret, at)
		if err != nil {
			return err
		}
		return db.appendAudit(ctx, tx, org, e.Of(orgID, gatehouse.AuditTarget{Type: gatehouse.TargetOrganization, ID: orgID}))
	})
}

// FindErasureIntegration returns the organization's sealed token and secret.
func (db *DB) FindErasureIntegration(ctx context.Context, orgID uuid.UUID) (_ []byte, _ []byte, _ time.Time, err error) {
	defer sqlstore.Label(&err, "Store.FindErasureIntegration", orgID)
	org, err := db.orgSeq(ctx, db.pool, orgID)
	if err != nil {
		return nil, nil, time.Time{}, err
	}
	var (
		token, secret []byte
		at            time.Time
	)
	err = db.pool.QueryRow(ctx, "SELECT sealed_token, sealed_secret, created_at FROM erasure_integrations WHERE org = $1", org).
		Scan(&token, &secret, &at)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, nil, time.Time{}, fmt.Errorf("erasure webhook: %w", gatehouse.ErrNotFound)
	}
	return token, secret, at.UTC(), wrap(err)
}

// ErasureIntegrationByToken finds the organization of a token's hash.
func (db *DB) ErasureIntegrationByToken(ctx context.Context, tokenHash [32]byte) (_ uuid.UUID, _ []byte, err error) {
	defer sqlstore.Label(&err, "Store.ErasureIntegrationByToken")
	var (
		orgID  uuid.UUID
		secret []byte
	)
	err = db.pool.QueryRow(ctx, `SELECT o.id, i.sealed_secret FROM erasure_integrations i
		JOIN organizations o ON o.seq = i.org WHERE i.token_hash = $1`, tokenHash[:]).Scan(&orgID, &secret)
	if errors.Is(err, pgx.ErrNoRows) {
		return orgID, nil, fmt.Errorf("erasure webhook: %w", gatehouse.ErrNotFound)
	}
	return orgID, secret, wrap(err)
}

// ClaimErasure claims a notification for the delivery that erases it:
// one upsert, whose row lock makes deliveries at once wait for each
// other, and then see the winner's claim.
func (db *DB) ClaimErasure(ctx context.Context, orgID uuid.UUID, notificationID string, now time.Time, lease time.Duration) (claimed, done bool, err error) {
	defer sqlstore.Label(&err, "Store.ClaimErasure", orgID)
	org, err := db.orgSeq(ctx, db.pool, orgID)
	if err != nil {
		return false, false, err
	}
	err = db.withTx(ctx, func(tx pgx.Tx) error {
		// Erased before claims were kept: its record says so.
		if err := tx.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM erasure_requests
			WHERE org = $1 AND notification_id = $2 AND outcome = 'erased')`, org, notificationID).Scan(&done); err != nil || done {
			return err
		}
		tag, err := tx.Exec(ctx, `INSERT INTO erasure_claims (org, notification_id, until) VALUES ($1, $2, $3)
			ON CONFLICT (org, notification_id) DO UPDATE SET until = excluded.until
			WHERE erasure_claims.done = false AND erasure_claims.until <= $4`,
			org, notificationID, now.Add(lease), now)
		if err != nil {
			return err
		}
		if claimed = tag.RowsAffected() > 0; claimed {
			return nil
		}
		return tx.QueryRow(ctx, "SELECT done FROM erasure_claims WHERE org = $1 AND notification_id = $2", org, notificationID).Scan(&done)
	})
	return claimed, done, err
}

// ReleaseErasure ends the claim of an erasure that failed.
func (db *DB) ReleaseErasure(ctx context.Context, orgID uuid.UUID, notificationID string) (err error) {
	defer sqlstore.Label(&err, "Store.ReleaseErasure", orgID)
	org, err := db.orgSeq(ctx, db.pool, orgID)
	if err != nil {
		return err
	}
	_, err = db.pool.Exec(ctx, "DELETE FROM erasure_claims WHERE org = $1 AND notification_id = $2 AND done = false", org, notificationID)
	return wrap(err)
}

// RecordErasureRequest appends one request's record.
func (db *DB) RecordErasureRequest(ctx context.Context, orgID uuid.UUID, r gatehouse.ErasureRequest) (err error) {
	defer sqlstore.Label(&err, "Store.RecordErasureRequest", orgID)
	org, err := db.orgSeq(ctx, db.pool, orgID)
	if err != nil {
		return err
	}
	if r.Outcome == gatehouse.ErasureErased {
		return db.withTx(ctx, func(tx pgx.Tx) error {
			if err := insertErasureRequest(ctx, tx, org, r); err != nil {
				return err
			}
			_, err := tx.Exec(ctx, "UPDATE erasure_claims SET done = true WHERE org = $1 AND notification_id = $2", org, r.NotificationID)
			return err
		})
	}
	if err := insertErasureRequest(ctx, db.pool, org, r); err != nil {
		return err
	}
	// Erasures are kept; of the rest, the latest KeptErasureRequests.
	_, err = db.pool.Exec(ctx, `DELETE FROM erasure_requests WHERE org = $1 AND outcome <> 'erased' AND seq <=
		(SELECT seq FROM erasure_requests WHERE org = $1 AND outcome <> 'erased' ORDER BY seq DESC OFFSET $2 LIMIT 1)`,
		org, sqlstore.KeptErasureRequests)
	return wrap(err)
}

func insertErasureRequest(ctx context.Context, q interface {
	Exec(context.Context, string, ...any) (pgconn.CommandTag, error)
}, org int64, r gatehouse.ErasureRequest) error {
	_, err := q.Exec(ctx, `INSERT INTO erasure_requests (org, id, notification_id, received_at, outcome, detail,
		user_hash, events, commands) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
		org, r.ID, r.NotificationID, time.Time(r.ReceivedAt), string(r.Outcome), r.Detail, r.UserHash, r.Events, r.Commands)
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) && pgErr.Code == "23505" {
		return fmt.Errorf("notification %s: %w", r.NotificationID, gatehouse.ErrConflict)
	}
	return wrap(err)
}

// ListErasureRequests returns the organization's latest requests.
func (db *DB) ListErasureRequests(ctx context.Context, orgID uuid.UUID, limit int) (_ []gatehouse.ErasureRequest, err error) {
	defer sqlstore.Label(&err, "Store.ListErasureRequests", orgID)
	org, err := db.orgSeq(ctx, db.pool, orgID)
	if err != nil {
		return nil, err
	}
	rows, _ := db.pool.Query(ctx, `SELECT id, notification_id, received_at, outcome, detail, user_hash, events, commands
		FROM erasure_requests WHERE org = $1 ORDER BY seq DESC LIMIT $2`, org, limit)
	rs, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (gatehouse.ErasureRequest, error) {
		var (
			e  gatehouse.ErasureRequest
			at time.Time
		)
		err := r.Scan(&e.ID, &e.NotificationID, &at, &e.Outcome, &e.Detail, &e.UserHash, &e.Events, &e.Commands)
		e.ReceivedAt = gatehouse.Time(at.UTC())
		return e, err
	})
	if rs == nil {
		rs = []gatehouse.ErasureRequest{}
	}
	return rs, wrap(err)
}
