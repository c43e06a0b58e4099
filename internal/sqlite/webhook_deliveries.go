package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/gatehouse/gatehouse"
	"github.com/gatehouse/gatehouse/internal/sqlstore"
	"github.com/google/uuid"
)

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
		hook, err := rowSeq(ctx, tx, "webhooks", "webhook", org, p.ID)
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
		res, err := tx.ExecContext(ctx, `UPDATE webhooks SET events_after = ?, commands_after = ?, lockdowns_after = ?, attempts = ?,
			failing_since = ?, last_error = ?, next_at = ?,
			lease_until = CASE WHEN ? THEN ? ELSE lease_until END,
			enabled = CASE WHEN ? THEN 0 ELSE enabled END,
			disabled_reason = CASE WHEN ? THEN 'failing' ELSE disabled_reason END
			WHERE seq = ? AND lease_holder = ? AND lease_until > ? AND generation = ?`,
			p.EventsAfter.Seq, p.CommandsAfter.Seq, p.LockdownsAfter.Seq, p.Attempts, optMillis(p.FailingSince), p.LastError, millis(p.NextAt),
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

func scanDelivery(r *sql.Rows, d *gatehouse.WebhookDelivery) error {
	var at int64
	if err := r.Scan(&d.ID, &d.MessageID, &d.Type, &d.ObjectID, &d.Status, &d.Manual, &d.Attempt, &at,
		&d.ResponseCode, &d.LatencyMS, &d.Error, &d.Response); err != nil {
		return err
	}
	d.At = gatehouse.Time(fromMillis(at))
	return nil
}
