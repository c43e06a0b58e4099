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

const webhookColumns = `w.id, o.id, w.url, w.description, w.types, w.filters, w.enabled, w.disabled_reason, w.created_at,
	w.events_after, w.commands_after, w.generation, w.attempts, w.failing_since, w.last_error, w.next_at,
	w.previous_secret_until`

// CreateWebhook stores an organization's endpoint at the heads of its feeds.
func (db *DB) CreateWebhook(ctx context.Context, e gatehouse.AuditEntry, w gatehouse.Webhook, filters string, sealed []byte) (_ gatehouse.Webhook, err error) {
	defer sqlstore.Label(&err, "Store.CreateWebhook", w.OrgID)
	err = db.withTx(ctx, func(tx *sql.Tx) error {
		org, err := db.orgSeq(ctx, tx, w.OrgID)
		if err != nil {
			return err
		}
		var n int
		if err := tx.QueryRowContext(ctx, "SELECT count(*) FROM webhooks WHERE org = ?", org).Scan(&n); err != nil {
			return err
		}
		if err := sqlstore.CheckWebhookCount(n); err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, `INSERT INTO webhooks (org, id, url, description, types, filters, sealed, enabled,
			created_at, events_after, commands_after, next_at)
			VALUES (?, ?, ?, ?, ?, ?, ?, 1, ?,
				(SELECT coalesce(max(seq), 0) FROM events WHERE org = ?),
				(SELECT coalesce(max(change_seq), 0) FROM commands WHERE org = ? AND issued = 1), ?)`,
			org, w.ID[:], w.URL, w.Description, sqlstore.JoinTypes(w.Types), filters, sealed,
			millis(time.Time(w.CreatedAt)), org, org, millis(time.Time(w.CreatedAt)))
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
	if err != nil {
		return gatehouse.Webhook{}, wrap(err)
	}
	if len(hooks) == 0 {
		return gatehouse.Webhook{}, fmt.Errorf("webhook %s: %w", id, gatehouse.ErrNotFound)
	}
	return hooks[0], nil
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
		for _, s := range set {
			sets = append(sets, s.Column+" = ?")
			args = append(args, s.Value)
		}
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
	var sealed []byte
	err = db.read.QueryRowContext(ctx, `SELECT w.sealed FROM webhooks w JOIN organizations o ON o.seq = w.org
		WHERE o.id = ? AND w.id = ?`, orgID[:], id[:]).Scan(&sealed)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("webhook %s: %w", id, gatehouse.ErrNotFound)
	}
	return sealed, wrap(err)
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
		var url string
		err = tx.QueryRowContext(ctx, "DELETE FROM webhooks WHERE org = ? AND id = ? RETURNING url", org, id[:]).Scan(&url)
		if errors.Is(err, sql.ErrNoRows) {
			return fmt.Errorf("webhook %s: %w", id, gatehouse.ErrNotFound)
		}
		if err != nil {
			return err
		}
		return db.appendAudit(ctx, tx, org, e.Of(orgID, sqlstore.WebhookTarget(id, url)))
	})
}

// AddWebhookDelivery stores a pending manual delivery and makes the
// endpoint due.
func (db *DB) AddWebhookDelivery(ctx context.Context, orgID, webhookID uuid.UUID, d gatehouse.WebhookDelivery) (_ gatehouse.WebhookDelivery, err error) {
	defer sqlstore.Label(&err, "Store.AddWebhookDelivery", orgID, webhookID)
	err = db.withTx(ctx, func(tx *sql.Tx) error {
		org, err := db.orgSeq(ctx, tx, orgID)
		if err != nil {
			return err
		}
		var (
			hook    int64
			enabled bool
		)
		err = tx.QueryRowContext(ctx, "SELECT seq, enabled FROM webhooks WHERE org = ? AND id = ?", org, webhookID[:]).Scan(&hook, &enabled)
		if errors.Is(err, sql.ErrNoRows) {
			return fmt.Errorf("webhook %s: %w", webhookID, gatehouse.ErrNotFound)
		}
		if err != nil {
			return err
		}
		if !enabled {
			return &gatehouse.ConflictError{Field: "enabled", Message: "the endpoint is disabled: enable it first"}
		}
		if err := insertDeliveries(ctx, tx, hook, []gatehouse.WebhookDelivery{d}); err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, "UPDATE webhooks SET next_at = min(next_at, ?) WHERE seq = ?", millis(time.Time(d.At)), hook)
		return err
	})
	return d, err
}

const deliveryColumns = `d.id, d.message_id, d.type, d.object_id, d.status, d.manual, d.attempt, d.at,
	d.response_code, d.latency_ms, d.error, d.response`

// FindWebhookDelivery returns one delivery of an organization's endpoint.
func (db *DB) FindWebhookDelivery(ctx context.Context, orgID, webhookID, id uuid.UUID) (_ gatehouse.WebhookDelivery, err error) {
	defer sqlstore.Label(&err, "Store.FindWebhookDelivery", orgID, webhookID, id)
	ds, err := queryAll(ctx, db.read, scanDelivery, `SELECT `+deliveryColumns+` FROM webhook_deliveries d
		JOIN webhooks w ON w.seq = d.webhook JOIN organizations o ON o.seq = w.org
		WHERE o.id = ? AND w.id = ? AND d.id = ?`, orgID[:], webhookID[:], id[:])
	if err != nil {
		return gatehouse.WebhookDelivery{}, wrap(err)
	}
	if len(ds) == 0 {
		return gatehouse.WebhookDelivery{}, fmt.Errorf("delivery %s: %w", id, gatehouse.ErrNotFound)
	}
	return ds[0], nil
}

// ListWebhookDeliveries returns an endpoint's most recent deliveries.
func (db *DB) ListWebhookDeliveries(ctx context.Context, orgID, webhookID uuid.UUID, limit int) (_ []gatehouse.WebhookDelivery, err error) {
	defer sqlstore.Label(&err, "Store.ListWebhookDeliveries", orgID, webhookID)
	if _, err := db.findWebhook(ctx, db.read, orgID, webhookID); err != nil {
		return nil, err
	}
	ds, err := queryAll(ctx, db.read, scanDelivery, `SELECT `+deliveryColumns+` FROM webhook_deliveries d
		JOIN webhooks w ON w.seq = d.webhook JOIN organizations o ON o.seq = w.org
		WHERE o.id = ? AND w.id = ? ORDER BY d.seq DESC LIMIT ?`, orgID[:], webhookID[:], limit)
	if ds == nil {
		ds = []gatehouse.WebhookDelivery{}
	}
	return ds, wrap(err)
}

// ClaimWebhook leases a due endpoint of the organization with the fewest
// leased, then of the one whose last lease ended longest ago (the largest
// lease_until of its endpoints: a lease ends at its round's release),
// then the one due soonest. The one writer makes the choice and the lease
// one step: two claims never get the same endpoint, and the counts they
// compare are exact.
func (db *DB) ClaimWebhook(ctx context.Context, holder string, now time.Time, ttl time.Duration) (_ gatehouse.WebhookClaim, err error) {
	defer sqlstore.Label(&err, "Store.ClaimWebhook")
	var c gatehouse.WebhookClaim
	// Most polls find nothing due: they ask a reader, and leave the one
	// writer to the writes.
	var due int
	err = db.read.QueryRowContext(ctx, `SELECT count(*) FROM (SELECT 1 FROM webhooks WHERE enabled = 1 AND next_at <= ?
		AND (lease_until <= ? OR lease_holder = ?) LIMIT 1)`, millis(now), millis(now), holder).Scan(&due)
	if err != nil {
		return c, wrap(err)
	}
	if due == 0 {
		return c, gatehouse.ErrNotFound
	}
	err = db.withTx(ctx, func(tx *sql.Tx) error {
		var (
			hook  int64
			orgID uuid.UUID
			id    uuid.UUID
		)
		err := tx.QueryRowContext(ctx, `UPDATE webhooks SET lease_holder = ?, lease_until = ?
			WHERE seq = (SELECT w.seq FROM webhooks w
				JOIN (SELECT org, sum(lease_until > ?) AS leased, max(lease_until) AS served FROM webhooks
					WHERE org IN (SELECT org FROM webhooks WHERE enabled = 1 AND next_at <= ?) GROUP BY org) o ON o.org = w.org
				WHERE w.enabled = 1 AND w.next_at <= ? AND (w.lease_until <= ? OR w.lease_holder = ?)
				ORDER BY o.leased, o.served, w.next_at LIMIT 1)
			RETURNING seq, (SELECT id FROM organizations WHERE seq = webhooks.org), id, sealed, filters`,
			holder, millis(now.Add(ttl)), millis(now), millis(now), millis(now), millis(now), holder).Scan(&hook, &orgID, &id, &c.Sealed, &c.Filters)
		if errors.Is(err, sql.ErrNoRows) {
			return gatehouse.ErrNotFound
		}
		if err != nil {
			return err
		}
		if c.Webhook, err = db.findWebhook(ctx, tx, orgID, id); err != nil {
			return err
		}
		c.Pending, err = queryAll(ctx, tx, scanDelivery, `SELECT `+deliveryColumns+` FROM webhook_deliveries d
			WHERE d.webhook = ? AND d.status = 'pending' ORDER BY d.seq LIMIT 10`, hook)
		return err
	})
	return c, err
}

// SaveWebhookProgress stores a round of deliveries.
func (db *DB) SaveWebhookProgress(ctx context.Context, p gatehouse.WebhookProgress) (err error) {
	defer sqlstore.Label(&err, "Store.SaveWebhookProgress", p.OrgID, p.ID)
	lost := false
	err = db.withTx(ctx, func(tx *sql.Tx) error {
		org, err := db.orgSeq(ctx, tx, p.OrgID)
		if err != nil {
			return err
		}
		var hook int64
		err = tx.QueryRowContext(ctx, "SELECT seq FROM webhooks WHERE org = ? AND id = ?", org, p.ID[:]).Scan(&hook)
		if errors.Is(err, sql.ErrNoRows) {
			return fmt.Errorf("webhook %s: %w", p.ID, gatehouse.ErrNotFound)
		}
		if err != nil {
			return err
		}
		if err := insertDeliveries(ctx, tx, hook, p.Deliveries); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM webhook_deliveries WHERE webhook = ? AND seq <=
			(SELECT seq FROM webhook_deliveries WHERE webhook = ? ORDER BY seq DESC LIMIT 1 OFFSET ?)`,
			hook, hook, sqlstore.KeptDeliveries); err != nil {
			return err
		}
		res, err := tx.ExecContext(ctx, `UPDATE webhooks SET events_after = ?, commands_after = ?, attempts = ?,
			failing_since = ?, last_error = ?, next_at = ?,
			lease_until = CASE WHEN ? THEN ? ELSE lease_until END,
			enabled = CASE WHEN ? THEN 0 ELSE enabled END,
			disabled_reason = CASE WHEN ? THEN 'failing' ELSE disabled_reason END
			WHERE seq = ? AND lease_holder = ? AND lease_until > ? AND generation = ?`,
			p.EventsAfter.Seq, p.CommandsAfter.Seq, p.Attempts, optMillis(p.FailingSince), p.LastError, millis(p.NextAt),
			p.Release, millis(p.Now), p.Disable != nil, p.Disable != nil, hook, p.Holder, millis(p.Now), p.Generation)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			// Lost the lease, or a replay moved the position: the log rows
			// stay, the lease (if still ours) ends.
			lost = true
			_, err := tx.ExecContext(ctx, "UPDATE webhooks SET lease_until = ? WHERE seq = ? AND lease_holder = ?", millis(p.Now), hook, p.Holder)
			return err
		}
		if p.Disable != nil {
			var url string
			if err := tx.QueryRowContext(ctx, "SELECT url FROM webhooks WHERE seq = ?", hook).Scan(&url); err != nil {
				return err
			}
			return db.appendAudit(ctx, tx, org, p.Disable.Of(p.OrgID, sqlstore.WebhookTarget(p.ID, url)))
		}
		return nil
	})
	if err == nil && lost {
		err = sqlstore.ErrLeaseLost
	}
	return err
}

// ReadCommandChanges returns the organization's command changes after a
// position, in change_seq order (one writer: commit order).
func (db *DB) ReadCommandChanges(ctx context.Context, orgID uuid.UUID, after gatehouse.FeedPosition, limit int) (_ []gatehouse.CommandChange, _ gatehouse.FeedPosition, err error) {
	defer sqlstore.Label(&err, "Store.ReadCommandChanges", orgID)
	org, err := db.orgSeq(ctx, db.read, orgID)
	if errors.Is(err, gatehouse.ErrNotFound) {
		return nil, after, nil
	}
	if err != nil {
		return nil, after, err
	}
	changes, err := queryAll(ctx, db.read, func(r *sql.Rows, c *gatehouse.CommandChange) error {
		return r.Scan(&c.ID, &c.Status, &c.Position.Seq)
	}, `SELECT id, status, change_seq FROM commands WHERE org = ? AND issued = 1 AND change_seq > ?
		ORDER BY change_seq LIMIT ?`, org, after.Seq, limit)
	if len(changes) > 0 {
		after = changes[len(changes)-1].Position
	}
	return changes, after, wrap(err)
}

func insertDeliveries(ctx context.Context, tx *sql.Tx, hook int64, ds []gatehouse.WebhookDelivery) error {
	for _, d := range ds {
		_, err := tx.ExecContext(ctx, `INSERT INTO webhook_deliveries (webhook, id, message_id, type, object_id, status, manual,
			attempt, at, response_code, latency_ms, error, response) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
			ON CONFLICT (id) DO UPDATE SET status = excluded.status, attempt = excluded.attempt, at = excluded.at,
				response_code = excluded.response_code, latency_ms = excluded.latency_ms,
				error = excluded.error, response = excluded.response`,
			hook, d.ID[:], d.MessageID, string(d.Type), d.ObjectID[:], d.Status, d.Manual, d.Attempt, millis(time.Time(d.At)),
			d.ResponseCode, d.LatencyMS, d.Error, d.Response)
		if err != nil {
			return err
		}
	}
	return nil
}

func scanWebhook(r *sql.Rows, w *gatehouse.Webhook) error {
	var (
		types, filters  string
		created, nextAt int64
		since, previous sql.NullInt64
		lastError       string
		attempts        int
	)
	if err := r.Scan(&w.ID, &w.OrgID, &w.URL, &w.Description, &types, &filters, &w.Enabled, &w.DisabledReason, &created,
		&w.EventsAfter.Seq, &w.CommandsAfter.Seq, &w.Generation, &attempts, &since, &lastError, &nextAt, &previous); err != nil {
		return err
	}
	if previous.Valid {
		w.PreviousSecretExpiresAt = (*gatehouse.Time)(fromOptMillis(previous))
	}
	w.CreatedAt = gatehouse.Time(fromMillis(created))
	sqlstore.FillWebhook(w, types, filters, attempts, fromOptMillis(since), lastError, fromMillis(nextAt))
	return nil
}

func scanDelivery(r *sql.Rows, d *gatehouse.WebhookDelivery) error {
	var at int64
	if err := r.Scan(&d.ID, &d.MessageID, &d.Type, &d.ObjectID, &d.Status, &d.Manual, &d.Attempt, &at,
		&d.ResponseCode, &d.LatencyMS, &d.Error, &d.Response); err != nil {
		return err
	}
	d.At = gatehouse.Time(fromMillis(at))
	return nil
}
