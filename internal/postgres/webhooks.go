package postgres

import (
	"context"
	"strconv"
	"strings"
	"time"

	"github.com/gatehouse/gatehouse"
	"github.com/gatehouse/gatehouse/internal/sqlstore"
	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
)

const webhookColumns = `w.id, o.id, w.url, w.description, w.types, w.filters, w.enabled, w.disabled_reason, w.created_at,
	w.events_txn, w.events_seq, w.commands_txn, w.commands_seq, w.generation, w.attempts, w.failing_since,
	w.last_error, w.next_at, w.previous_secret_until, w.lockdowns_txn, w.lockdowns_seq`

// CreateWebhook stores an organization's endpoint at the heads of its
// feeds: below the oldest transaction still running, every row is read
// already, or not (migration 0012; feedHead).
func (db *DB) CreateWebhook(ctx context.Context, e gatehouse.AuditEntry, w gatehouse.Webhook, filters string, sealed []byte) (_ gatehouse.Webhook, err error) {
	defer sqlstore.Label(&err, "Store.CreateWebhook", w.OrgID)
	org, err := db.orgSeq(ctx, db.pool, w.OrgID)
	if err != nil {
		return gatehouse.Webhook{}, err
	}
	err = db.withTx(ctx, func(tx pgx.Tx) error {
		n, err := lockedCount(ctx, tx, "webhooks", org)
		if err != nil {
			return err
		}
		if err := sqlstore.CheckWebhookCount(n); err != nil {
			return err
		}
		_, err = tx.Exec(ctx, `INSERT INTO webhooks (org, id, url, description, types, filters, sealed, enabled,
			created_at, events_txn, events_seq, commands_txn, commands_seq, next_at, lockdowns_txn, lockdowns_seq)
			SELECT $1, $2, $3, $4, $5, $6, $7, true, $8, h, 0, h, 0, $8, h, 0
			FROM (SELECT `+feedHead("$1")+` AS h) head`,
			org, w.ID, w.URL, w.Description, sqlstore.JoinTypes(w.Types), filters, sealed, time.Time(w.CreatedAt))
		if err != nil {
			return err
		}
		return db.appendAudit(ctx, tx, org, e.Of(w.OrgID, sqlstore.WebhookTarget(w.ID, w.URL)))
	})
	if err != nil {
		return gatehouse.Webhook{}, err
	}
	return findWebhook(ctx, db.pool, w.OrgID, w.ID, "")
}

// ListWebhooks returns an organization's endpoints, oldest first.
func (db *DB) ListWebhooks(ctx context.Context, orgID uuid.UUID) (_ []gatehouse.Webhook, err error) {
	defer sqlstore.Label(&err, "Store.ListWebhooks", orgID)
	rows, _ := db.pool.Query(ctx, `SELECT `+webhookColumns+`
		FROM webhooks w JOIN organizations o ON o.seq = w.org WHERE o.id = $1 ORDER BY w.seq`, orgID)
	hooks, err := pgx.CollectRows(rows, scanWebhook)
	if hooks == nil {
		hooks = []gatehouse.Webhook{}
	}
	return hooks, wrap(err)
}

// FindWebhook returns an organization's endpoint.
func (db *DB) FindWebhook(ctx context.Context, orgID, id uuid.UUID) (_ gatehouse.Webhook, err error) {
	defer sqlstore.Label(&err, "Store.FindWebhook", orgID, id)
	return findWebhook(ctx, db.pool, orgID, id, "")
}

func findWebhook(ctx context.Context, q querier, orgID, id uuid.UUID, lock string) (gatehouse.Webhook, error) {
	rows, _ := q.Query(ctx, `SELECT `+webhookColumns+`
		FROM webhooks w JOIN organizations o ON o.seq = w.org WHERE o.id = $1 AND w.id = $2`+lock, orgID, id)
	return oneOf(rows, scanWebhook, "webhook", id)
}

// UpdateWebhook applies c to an organization's endpoint.
func (db *DB) UpdateWebhook(ctx context.Context, e gatehouse.AuditEntry, orgID, id uuid.UUID, c gatehouse.WebhookChange, now time.Time) (_ gatehouse.Webhook, err error) {
	defer sqlstore.Label(&err, "Store.UpdateWebhook", orgID, id)
	var w gatehouse.Webhook
	err = db.withTx(ctx, func(tx pgx.Tx) error {
		old, err := findWebhook(ctx, tx, orgID, id, " FOR UPDATE OF w")
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
		arg := func(v any) string {
			args = append(args, v)
			return "$" + strconv.Itoa(len(args))
		}
		for _, s := range set {
			sets = append(sets, s.Column+" = "+arg(s.Value))
		}
		if sqlstore.WebhookRestarts(old, c) {
			sets = append(sets, "attempts = 0", "failing_since = NULL", "last_error = ''", "next_at = "+arg(now))
		}
		if sqlstore.WebhookMoves(old, c) {
			sets = append(sets, "generation = generation + 1")
		}
		if c.EventsAfter != nil {
			sets = append(sets, "events_txn = "+arg(int64(c.EventsAfter.Txn)), "events_seq = "+arg(c.EventsAfter.Seq))
		}
		var org int64
		err = tx.QueryRow(ctx, "UPDATE webhooks SET "+strings.Join(sets, ", ")+" WHERE id = "+arg(id)+" RETURNING org", args...).Scan(&org)
		if err != nil {
			return err
		}
		if w, err = findWebhook(ctx, tx, orgID, id, ""); err != nil {
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
	org, err := db.orgSeq(ctx, db.pool, orgID)
	if err != nil {
		return gatehouse.Webhook{}, err
	}
	var w gatehouse.Webhook
	err = db.withTx(ctx, func(tx pgx.Tx) error {
		tag, err := tx.Exec(ctx, "UPDATE webhooks SET sealed = $1, previous_secret_until = $2 WHERE org = $3 AND id = $4 AND sealed = $5",
			sealed, previousUntil, org, id, old)
		if err != nil {
			return err
		}
		if w, err = findWebhook(ctx, tx, orgID, id, ""); err != nil {
			return err
		}
		if tag.RowsAffected() == 0 {
			return &gatehouse.ConflictError{Field: "secret", Message: "was rotated meanwhile: rotate again"}
		}
		return db.appendAudit(ctx, tx, org, e.Of(orgID, sqlstore.WebhookTarget(id, w.URL)))
	})
	return w, err
}

// DeleteWebhook deletes an organization's endpoint and its delivery log.
func (db *DB) DeleteWebhook(ctx context.Context, e gatehouse.AuditEntry, orgID, id uuid.UUID) (err error) {
	defer sqlstore.Label(&err, "Store.DeleteWebhook", orgID, id)
	org, err := db.orgSeq(ctx, db.pool, orgID)
	if err != nil {
		return err
	}
	return db.withTx(ctx, func(tx pgx.Tx) error {
		url, err := deleteRow(ctx, tx, "webhooks", "url", "webhook", org, id)
		if err != nil {
			return err
		}
		return db.appendAudit(ctx, tx, org, e.Of(orgID, sqlstore.WebhookTarget(id, url)))
	})
}

const deliveryColumns = `d.id, d.message_id, d.type, d.object_id, d.status, d.manual, d.attempt, d.at,
	d.response_code, d.latency_ms, d.error, d.response`

func scanWebhook(r pgx.CollectableRow) (gatehouse.Webhook, error) {
	var (
		w                 gatehouse.Webhook
		types, filters    string
		created, nextAt   time.Time
		eventsTxn, cmdTxn int64
		lockdownTxn       int64
		since, previous   *time.Time
		lastError         string
		attempts          int
	)
	if err := r.Scan(&w.ID, &w.OrgID, &w.URL, &w.Description, &types, &filters, &w.Enabled, &w.DisabledReason, &created,
		&eventsTxn, &w.EventsAfter.Seq, &cmdTxn, &w.CommandsAfter.Seq, &w.Generation, &attempts, &since,
		&lastError, &nextAt, &previous, &lockdownTxn, &w.LockdownsAfter.Seq); err != nil {
		return w, err
	}
	if previous != nil {
		w.PreviousSecretExpiresAt = (*gatehouse.Time)(optUTC(previous))
	}
	w.EventsAfter.Txn, w.CommandsAfter.Txn, w.LockdownsAfter.Txn = uint64(eventsTxn), uint64(cmdTxn), uint64(lockdownTxn)
	w.CreatedAt = gatehouse.Time(created.UTC())
	sqlstore.FillWebhook(&w, types, filters, attempts, optUTC(since), lastError, nextAt.UTC())
	return w, nil
}
