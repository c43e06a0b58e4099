package sqlite

import (
	"context"
	"database/sql"
	"strings"
	"time"

	"github.com/gatehouse/gatehouse"
	"github.com/gatehouse/gatehouse/internal/sqlstore"
	"github.com/google/uuid"
)

const webhookColumns = `w.id, o.id, w.url, w.description, w.types, w.filters, w.enabled, w.disabled_reason, w.created_at,
	w.events_after, w.commands_after, w.generation, w.attempts, w.failing_since, w.last_error, w.next_at,
	w.previous_secret_until, w.lockdowns_after`

// CreateWebhook stores an organization's endpoint at the heads of its feeds.
func (db *DB) CreateWebhook(ctx context.Context, e gatehouse.AuditEntry, w gatehouse.Webhook, filters string, sealed []byte) (_ gatehouse.Webhook, err error) {
	defer sqlstore.Label(&err, "Store.CreateWebhook", w.OrgID)
	err = db.withTx(ctx, func(tx *sql.Tx) error {
		org, err := db.orgSeq(ctx, tx, w.OrgID)
		if err != nil {
			return err
		}
		n, err := countRows(ctx, tx, "webhooks", org)
		if err != nil {
			return err
		}
		if err := sqlstore.CheckWebhookCount(n); err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, `INSERT INTO webhooks (org, id, url, description, types, filters, sealed, enabled,
			created_at, events_after, commands_after, next_at, lockdowns_after)
			VALUES (?, ?, ?, ?, ?, ?, ?, 1, ?,
				(SELECT coalesce(max(seq), 0) FROM events WHERE org = ?),
				(SELECT coalesce(max(change_seq), 0) FROM commands WHERE org = ? AND issued = 1), ?,
				(SELECT coalesce(max(seq), 0) FROM lockdown_changes WHERE org = ?))`,
			org, w.ID[:], w.URL, w.Description, sqlstore.JoinTypes(w.Types), filters, sealed,
			millis(time.Time(w.CreatedAt)), org, org, millis(time.Time(w.CreatedAt)), org)
		if err != nil {
			return err
		}
		return db.appendAudit(ctx, tx, org, e.Of(w.OrgID, sqlstore.WebhookTarget(w.ID, w.URL)))
	})
	if err != nil {
		return gatehouse.Webhook{}, err
	}
	return db.findWebhook(ctx, db.read, w.OrgID, w.ID)
}

// ListWebhooks returns an organization's endpoints, oldest first.
func (db *DB) ListWebhooks(ctx context.Context, orgID uuid.UUID) (_ []gatehouse.Webhook, err error) {
	defer sqlstore.Label(&err, "Store.ListWebhooks", orgID)
	hooks, err := queryAll(ctx, db.read, scanWebhook, `SELECT `+webhookColumns+`
		FROM webhooks w JOIN organizations o ON o.seq = w.org WHERE o.id = ? ORDER BY w.seq`, orgID[:])
	if hooks == nil {
		hooks = []gatehouse.Webhook{}
	}
	return hooks, wrap(err)
}

// FindWebhook returns an organization's endpoint.
func (db *DB) FindWebhook(ctx context.Context, orgID, id uuid.UUID) (_ gatehouse.Webhook, err error) {
	defer sqlstore.Label(&err, "Store.FindWebhook", orgID, id)
	return db.findWebhook(ctx, db.read, orgID, id)
}

func (db *DB) findWebhook(ctx context.Context, q querier, orgID, id uuid.UUID) (gatehouse.Webhook, error) {
	hooks, err := queryAll(ctx, q, scanWebhook, `SELECT `+webhookColumns+`
		FROM webhooks w JOIN organizations o ON o.seq = w.org WHERE o.id = ? AND w.id = ?`, orgID[:], id[:])
	return firstOf(hooks, err, "webhook", id)
}

// UpdateWebhook applies c to an organization's endpoint.
func (db *DB) UpdateWebhook(ctx context.Context, e gatehouse.AuditEntry, orgID, id uuid.UUID, c gatehouse.WebhookChange, now time.Time) (_ gatehouse.Webhook, err error) {
	defer sqlstore.Label(&err, "Store.UpdateWebhook", orgID, id)
	var w gatehouse.Webhook
	err = db.withTx(ctx, func(tx *sql.Tx) error {
		old, err := db.findWebhook(ctx, tx, orgID, id)
		if err != nil {
			return err
		}
		set, entry := sqlstore.WebhookChanges(old, c, e)
		if len(set) == 0 && c.EventsAfter == nil {
			w = old
			return nil
		}
		var (
			sets []string
			args []any
		)
		sets, args = setColumns(sets, args, set)
		if sqlstore.WebhookRestarts(old, c) {
			sets = append(sets, "attempts = 0", "failing_since = NULL", "last_error = ''", "next_at = ?")
			args = append(args, millis(now))
		}
		if sqlstore.WebhookMoves(old, c) {
			sets = append(sets, "generation = generation + 1")
		}
		if c.EventsAfter != nil {
			sets = append(sets, "events_after = ?")
			args = append(args, c.EventsAfter.Seq)
		}
		org, err := db.orgSeq(ctx, tx, orgID)
		if err != nil {
			return err
		}
		args = append(args, org, id[:])
		if _, err := tx.ExecContext(ctx, "UPDATE webhooks SET "+strings.Join(sets, ", ")+" WHERE org = ? AND id = ?", args...); err != nil {
			return err
		}
		if w, err = db.findWebhook(ctx, tx, orgID, id); err != nil {
			return err
		}
		return db.appendAudit(ctx, tx, org, entry.Of(orgID, sqlstore.WebhookTarget(id, w.URL)))
	})
	return w, err
}

// WebhookSecret returns an organization's endpoint's sealed secrets.
func (db *DB) WebhookSecret(ctx context.Context, orgID, id uuid.UUID) (_ []byte, err error) {
	defer sqlstore.Label(&err, "Store.WebhookSecret", orgID, id)
	return db.sealedOf(ctx, "webhooks", "webhook", orgID, id)
}

// RotateWebhookSecret replaces an endpoint's sealed secrets.
func (db *DB) RotateWebhookSecret(ctx context.Context, e gatehouse.AuditEntry, orgID, id uuid.UUID, old, sealed []byte, previousUntil *time.Time) (_ gatehouse.Webhook, err error) {
	defer sqlstore.Label(&err, "Store.RotateWebhookSecret", orgID, id)
	var w gatehouse.Webhook
	err = db.withTx(ctx, func(tx *sql.Tx) error {
		org, err := db.orgSeq(ctx, tx, orgID)
		if err != nil {
			return err
		}
		res, err := tx.ExecContext(ctx, "UPDATE webhooks SET sealed = ?, previous_secret_until = ? WHERE org = ? AND id = ? AND sealed = ?",
			sealed, optMillis(previousUntil), org, id[:], old)
		if err != nil {
			return err
		}
		if w, err = db.findWebhook(ctx, tx, orgID, id); err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return &gatehouse.ConflictError{Field: "secret", Message: "was rotated meanwhile: rotate again"}
		}
		return db.appendAudit(ctx, tx, org, e.Of(orgID, sqlstore.WebhookTarget(id, w.URL)))
	})
	return w, err
}

// DeleteWebhook deletes an organization's endpoint and its delivery log.
func (db *DB) DeleteWebhook(ctx context.Context, e gatehouse.AuditEntry, orgID, id uuid.UUID) (err error) {
	defer sqlstore.Label(&err, "Store.DeleteWebhook", orgID, id)
	return db.withTx(ctx, func(tx *sql.Tx) error {
		org, err := db.orgSeq(ctx, tx, orgID)
		if err != nil {
			return err
		}
		url, err := deleteRow(ctx, tx, "webhooks", "url", "webhook", org, id)
		if err != nil {
			return err
		}
		return db.appendAudit(ctx, tx, org, e.Of(orgID, sqlstore.WebhookTarget(id, url)))
	})
}

const deliveryColumns = `d.id, d.message_id, d.type, d.object_id, d.status, d.manual, d.attempt, d.at,
	d.response_code, d.latency_ms, d.error, d.response`

func scanWebhook(r *sql.Rows, w *gatehouse.Webhook) error {
	var (
		types, filters  string
		created, nextAt int64
		since, previous sql.NullInt64
		lastError       string
		attempts        int
	)
	if err := r.Scan(&w.ID, &w.OrgID, &w.URL, &w.Description, &types, &filters, &w.Enabled, &w.DisabledReason, &created,
		&w.EventsAfter.Seq, &w.CommandsAfter.Seq, &w.Generation, &attempts, &since, &lastError, &nextAt, &previous, &w.LockdownsAfter.Seq); err != nil {
		return err
	}
	if previous.Valid {
		w.PreviousSecretExpiresAt = (*gatehouse.Time)(fromOptMillis(previous))
	}
	w.CreatedAt = gatehouse.Time(fromMillis(created))
	sqlstore.FillWebhook(w, types, filters, attempts, fromOptMillis(since), lastError, fromMillis(nextAt))
	return nil
}
