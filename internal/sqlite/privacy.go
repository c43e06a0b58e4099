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
	sqlitedrv "modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

// DeletePlayerEvents deletes a batch of a platform user's events.
func (db *DB) DeletePlayerEvents(ctx context.Context, orgID uuid.UUID, platformUserID string, limit int) (_ int, err error) {
	defer sqlstore.Label(&err, "Store.DeletePlayerEvents", orgID)
	return db.deleteEvents(ctx, orgID, "platform_user_id = ?", platformUserID, limit)
}

// deleteEvents deletes at most limit of the organization's events
// matching cond (one argument). The one writer hands out the largest
// seq + 1, so the event holding the table's largest seq is not deleted
// but moved to the internal organization 0, its personal fields cleared:
// it keeps the high-water mark (migration 0014), and the one it kept
// before is deleted.
//
// What is pending is folded into the player rollup first, the rest within
// the transaction: the triggers of migration 0021 take each event deleted
// out of every rollup, which is right only for an event in it.
func (db *DB) deleteEvents(ctx context.Context, orgID uuid.UUID, cond string, arg any, limit int) (int, error) {
	if err := db.catchUpPlayers(ctx); err != nil {
		return 0, err
	}
	var n int
	err := db.withTx(ctx, func(tx *sql.Tx) error {
		org, err := db.orgSeq(ctx, tx, orgID)
		if err != nil {
			return err
		}
		if !db.noRollups.Load() {
			if _, err := rollPlayers(ctx, tx, 0); err != nil {
				return err
			}
		}
		var top int64
		if err := tx.QueryRowContext(ctx, "SELECT coalesce(max(seq), 0) FROM events").Scan(&top); err != nil {
			return err
		}
		// The row kept before goes first: the one moved may have its id
		// (an event imported again), and (org, id) is unique.
		if _, err := tx.ExecContext(ctx, "DELETE FROM events WHERE org = 0 AND seq < ?", top); err != nil {
			return err
		}
		moved, err := tx.ExecContext(ctx, `UPDATE events SET org = 0, platform_user_id = NULL, platform_user_name = NULL, server_job_id = NULL,
			requested_by = NULL, command_id = NULL, reason = NULL WHERE seq = ? AND org = ? AND `+cond, top, org, arg)
		if err != nil {
			return err
		}
		res, err := tx.ExecContext(ctx, `DELETE FROM events WHERE seq IN
			(SELECT seq FROM events WHERE org = ? AND `+cond+` LIMIT ?)`, org, arg, limit)
		if err != nil {
			return err
		}
		deleted, _ := res.RowsAffected()
		if m, _ := moved.RowsAffected(); m > 0 {
			deleted += m
		}
		n = int(deleted)
		return nil
	})
	return n, err
}

// FinishErasure deletes a platform user's commands and search term.
func (db *DB) FinishErasure(ctx context.Context, e gatehouse.AuditEntry, orgID uuid.UUID, platformUserID string) (_ int, err error) {
	defer sqlstore.Label(&err, "Store.FinishErasure", orgID)
	var n int
	err = db.withTx(ctx, func(tx *sql.Tx) error {
		org, err := db.orgSeq(ctx, tx, orgID)
		if err != nil {
			return err
		}
		ids, err := queryAll(ctx, tx, func(r *sql.Rows, id *[]byte) error { return r.Scan(id) },
			"SELECT id FROM commands WHERE org = ? AND platform_user_id = ?", org, platformUserID)
		if err != nil {
			return err
		}
		if err := deleteCommands(ctx, tx, org, ids); err != nil {
			return err
		}
		n = len(ids)
		if _, err := tx.ExecContext(ctx, "DELETE FROM server_players WHERE org = ? AND platform_user_id = ?", org, platformUserID); err != nil {
			return err
		}
		if err := db.eraseAlerts(ctx, tx, org, platformUserID); err != nil {
			return err
		}
		// The servers' own lists of who is on them name the player too;
		// the digest is cleared, so that the next sync writes its list
		// whole, and the count of their rows (the organization's cap)
		// follows the rows deleted above.
		if _, err := tx.ExecContext(ctx, `UPDATE game_servers SET players_digest = x'',
			players = (SELECT json_group_array(p.value) FROM json_each(game_servers.players) p WHERE p.value <> ?),
			player_count = (SELECT count(*) FROM server_players p WHERE p.org = game_servers.org AND p.job_id = game_servers.job_id)
			WHERE org = ? AND EXISTS (SELECT 1 FROM json_each(game_servers.players) p WHERE p.value = ?)`,
			platformUserID, org, platformUserID); err != nil {
			return err
		}
		term := sqlstore.Term{Field: sqlstore.TermPlatformUser, Value: platformUserID}
		if _, err := tx.ExecContext(ctx, "DELETE FROM search_terms WHERE org = ? AND field = ? AND value = ?", org, term.Field, term.Value); err != nil {
			return err
		}
		db.terms.Forget(org, term)
		// What receivers answered to deliveries of what is gone may echo
		// the player: it goes too.
		if _, err := tx.ExecContext(ctx, `UPDATE webhook_deliveries SET response = ''
			WHERE webhook IN (SELECT seq FROM webhooks WHERE org = ?) AND response <> '' AND (
				type = 'event.created' AND NOT EXISTS (SELECT 1 FROM events e WHERE e.org = ? AND e.id = webhook_deliveries.object_id)
				OR type = 'command.updated' AND NOT EXISTS (SELECT 1 FROM commands c WHERE c.org = ? AND c.id = webhook_deliveries.object_id))`,
			org, org, org); err != nil {
			return err
		}
		return db.appendAudit(ctx, tx, org, e.Change("commands", "", strconv.Itoa(n)))
	})
	return n, err
}

// deleteCommands deletes an organization's commands ids with their
// deliveries and idempotency keys.
func deleteCommands(ctx context.Context, tx *sql.Tx, org int64, ids [][]byte) error {
	var top int64
	if err := tx.QueryRowContext(ctx, "SELECT coalesce(max(change_seq), 0) FROM commands WHERE issued = 1").Scan(&top); err != nil {
		return err
	}
	for _, id := range ids {
		for _, q := range []string{
			"DELETE FROM command_deliveries WHERE org = ? AND command_id = ?",
			"DELETE FROM idempotency_keys WHERE org = ? AND command_id = ?",
		} {
			if _, err := tx.ExecContext(ctx, q, org, id); err != nil {
				return err
			}
		}
		// As for events: the command holding the largest change
		// position moves to organization 0, cleared, once the one
		// kept before is gone.
		if _, err := tx.ExecContext(ctx, "DELETE FROM commands WHERE org = 0 AND change_seq < ?", top); err != nil {
			return err
		}
		moved, err := tx.ExecContext(ctx, `UPDATE commands SET org = 0, platform_user_id = NULL, server_job_id = NULL,
			note = NULL, requested_by = NULL, issued_by_key = NULL
			WHERE org = ? AND id = ? AND issued = 1 AND change_seq = ? AND change_seq > 0`, org, id, top)
		if err != nil {
			return err
		}
		if m, _ := moved.RowsAffected(); m > 0 {
			continue
		}
		if _, err := tx.ExecContext(ctx, "DELETE FROM commands WHERE org = ? AND id = ?", org, id); err != nil {
			return err
		}
	}
	return nil
}

// SetErasureIntegration stores the organization's erasure webhook.
func (db *DB) SetErasureIntegration(ctx context.Context, e gatehouse.AuditEntry, orgID uuid.UUID, tokenHash [32]byte, sealedToken, sealedSecret []byte, at time.Time) (err error) {
	defer sqlstore.Label(&err, "Store.SetErasureIntegration", orgID)
	return db.withTx(ctx, func(tx *sql.Tx) error {
		org, err := db.orgSeq(ctx, tx, orgID)
		if err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, `INSERT INTO erasure_integrations (org, token_hash, sealed_token, sealed_secret, created_at)
			VALUES (?, ?, ?, ?, ?) ON CONFLICT (org) DO UPDATE SET token_hash = excluded.token_hash,
			sealed_token = excluded.sealed_token, sealed_secret = excluded.sealed_secret, created_at = excluded.created_at`,
			org, tokenHash[:], sealedToken, sealedSecret, millis(at))
		if err != nil {
			return err
		}
		return db.appendAudit(ctx, tx, org, e.Of(orgID, gatehouse.AuditTarget{Type: gatehouse.TargetOrganization, ID: orgID}))
	})
}

// FindErasureIntegration returns the organization's sealed token and secret.
func (db *DB) FindErasureIntegration(ctx context.Context, orgID uuid.UUID) (_ []byte, _ []byte, _ time.Time, err error) {
	defer sqlstore.Label(&err, "Store.FindErasureIntegration", orgID)
	org, err := db.orgSeq(ctx, db.read, orgID)
	if err != nil {
		return nil, nil, time.Time{}, err
	}
	var (
		token, secret []byte
		ms            int64
	)
	err = db.read.QueryRowContext(ctx, "SELECT sealed_token, sealed_secret, created_at FROM erasure_integrations WHERE org = ?", org).
		Scan(&token, &secret, &ms)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil, time.Time{}, fmt.Errorf("erasure webhook: %w", gatehouse.ErrNotFound)
	}
	return token, secret, fromMillis(ms), wrap(err)
}

// ErasureIntegrationByToken finds the organization of a token's hash.
func (db *DB) ErasureIntegrationByToken(ctx context.Context, tokenHash [32]byte) (_ uuid.UUID, _ []byte, err error) {
	defer sqlstore.Label(&err, "Store.ErasureIntegrationByToken")
	var (
		orgID  uuid.UUID
		secret []byte
	)
	err = db.read.QueryRowContext(ctx, `SELECT o.id, i.sealed_secret FROM erasure_integrations i
		JOIN organizations o ON o.seq = i.org WHERE i.token_hash = ?`, tokenHash[:]).Scan(&orgID, &secret)
	if errors.Is(err, sql.ErrNoRows) {
		return orgID, nil, fmt.Errorf("erasure webhook: %w", gatehouse.ErrNotFound)
	}
	return orgID, secret, wrap(err)
}

// ClaimErasure claims a notification for the delivery that erases it.
func (db *DB) ClaimErasure(ctx context.Context, orgID uuid.UUID, notificationID string, now time.Time, lease time.Duration) (claimed, done bool, err error) {
	defer sqlstore.Label(&err, "Store.ClaimErasure", orgID)
	err = db.withTx(ctx, func(tx *sql.Tx) error {
		org, err := db.orgSeq(ctx, tx, orgID)
		if err != nil {
			return err
		}
		// Erased before claims were kept: its record says so.
		var n int
		if err := tx.QueryRowContext(ctx, "SELECT count(*) FROM erasure_requests WHERE org = ? AND notification_id = ? AND outcome = 'erased'",
			org, notificationID).Scan(&n); err != nil || n > 0 {
			done = n > 0
			return err
		}
		res, err := tx.ExecContext(ctx, `INSERT INTO erasure_claims (org, notification_id, until) VALUES (?, ?, ?)
			ON CONFLICT (org, notification_id) DO UPDATE SET until = excluded.until
			WHERE erasure_claims.done = 0 AND erasure_claims.until <= ?`,
			org, notificationID, millis(now.Add(lease)), millis(now))
		if err != nil {
			return err
		}
		if m, _ := res.RowsAffected(); m > 0 {
			claimed = true
			return nil
		}
		return tx.QueryRowContext(ctx, "SELECT done FROM erasure_claims WHERE org = ? AND notification_id = ?", org, notificationID).Scan(&done)
	})
	return claimed, done, err
}

// ReleaseErasure ends the claim of an erasure that failed.
func (db *DB) ReleaseErasure(ctx context.Context, orgID uuid.UUID, notificationID string) (err error) {
	defer sqlstore.Label(&err, "Store.ReleaseErasure", orgID)
	return db.withTx(ctx, func(tx *sql.Tx) error {
		org, err := db.orgSeq(ctx, tx, orgID)
		if err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, "DELETE FROM erasure_claims WHERE org = ? AND notification_id = ? AND done = 0", org, notificationID)
		return err
	})
}

// RecordErasureRequest appends one request's record.
func (db *DB) RecordErasureRequest(ctx context.Context, orgID uuid.UUID, r gatehouse.ErasureRequest) (err error) {
	defer sqlstore.Label(&err, "Store.RecordErasureRequest", orgID)
	return db.withTx(ctx, func(tx *sql.Tx) error {
		org, err := db.orgSeq(ctx, tx, orgID)
		if err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, `INSERT INTO erasure_requests (org, id, notification_id, received_at, outcome, detail,
			user_hash, events, commands) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
			org, r.ID[:], r.NotificationID, millis(time.Time(r.ReceivedAt)), string(r.Outcome), r.Detail, r.UserHash, r.Events, r.Commands)
		if isUniqueViolation(err) {
			return fmt.Errorf("notification %s: %w", r.NotificationID, gatehouse.ErrConflict)
		}
		if err != nil {
			return err
		}
		if r.Outcome == gatehouse.ErasureErased {
			_, err := tx.ExecContext(ctx, "UPDATE erasure_claims SET done = 1 WHERE org = ? AND notification_id = ?", org, r.NotificationID)
			return err
		}
		// Erasures are kept; of the rest, the latest KeptErasureRequests.
		_, err = tx.ExecContext(ctx, `DELETE FROM erasure_requests WHERE org = ? AND outcome <> 'erased' AND seq <=
			(SELECT seq FROM erasure_requests WHERE org = ? AND outcome <> 'erased' ORDER BY seq DESC LIMIT 1 OFFSET ?)`,
			org, org, sqlstore.KeptErasureRequests)
		return err
	})
}

// ListErasureRequests returns the organization's latest requests.
func (db *DB) ListErasureRequests(ctx context.Context, orgID uuid.UUID, limit int) (_ []gatehouse.ErasureRequest, err error) {
	defer sqlstore.Label(&err, "Store.ListErasureRequests", orgID)
	org, err := db.orgSeq(ctx, db.read, orgID)
	if err != nil {
		return nil, err
	}
	rs, err := queryAll(ctx, db.read, func(r *sql.Rows, e *gatehouse.ErasureRequest) error {
		var ms int64
		err := r.Scan(&e.ID, &e.NotificationID, &ms, &e.Outcome, &e.Detail, &e.UserHash, &e.Events, &e.Commands)
		e.ReceivedAt = gatehouse.Time(fromMillis(ms))
		return err
	}, `SELECT id, notification_id, received_at, outcome, detail, user_hash, events, commands FROM erasure_requests
		WHERE org = ? ORDER BY seq DESC LIMIT ?`, org, limit)
	if rs == nil {
		rs = []gatehouse.ErasureRequest{}
	}
	return rs, wrap(err)
}

// isUniqueViolation reports a unique index's refusal.
func isUniqueViolation(err error) bool {
	var se *sqlitedrv.Error
	return errors.As(err, &se) && se.Code() == sqlite3.SQLITE_CONSTRAINT_UNIQUE
}
