package postgres

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/gatehouse/gatehouse"
	"github.com/gatehouse/gatehouse/internal/sqlstore"
	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
)

// AddWebhookDelivery stores a pending manual delivery and makes the
// endpoint due.
func (db *DB) AddWebhookDelivery(ctx context.Context, orgID, webhookID uuid.UUID, d gatehouse.WebhookDelivery) (_ gatehouse.WebhookDelivery, err error) {
	defer sqlstore.Label(&err, "Store.AddWebhookDelivery", orgID, webhookID)
	org, err := db.orgSeq(ctx, db.pool, orgID)
	if err != nil {
		return d, err
	}
	err = db.withTx(ctx, func(tx pgx.Tx) error {
		var (
			hook    int64
			enabled bool
		)
		err := tx.QueryRow(ctx, "UPDATE webhooks SET next_at = least(next_at, $3) WHERE org = $1 AND id = $2 RETURNING seq, enabled",
			org, webhookID, time.Time(d.At)).Scan(&hook, &enabled)
		if errors.Is(err, pgx.ErrNoRows) {
			return fmt.Errorf("webhook %s: %w", webhookID, gatehouse.ErrNotFound)
		}
		if err != nil {
			return err
		}
		if !enabled {
			return &gatehouse.ConflictError{Field: "enabled", Message: "the endpoint is disabled: enable it first"}
		}
		return insertDeliveries(ctx, tx, hook, []gatehouse.WebhookDelivery{d})
	})
	return d, err
}

// FindWebhookDelivery returns one delivery of an organization's endpoint.
func (db *DB) FindWebhookDelivery(ctx context.Context, orgID, webhookID, id uuid.UUID) (_ gatehouse.WebhookDelivery, err error) {
	defer sqlstore.Label(&err, "Store.FindWebhookDelivery", orgID, webhookID, id)
	rows, _ := db.pool.Query(ctx, `SELECT `+deliveryColumns+` FROM webhook_deliveries d
		JOIN webhooks w ON w.seq = d.webhook JOIN organizations o ON o.seq = w.org
		WHERE o.id = $1 AND w.id = $2 AND d.id = $3`, orgID, webhookID, id)
	d, err := pgx.CollectExactlyOneRow(rows, scanDelivery)
	if errors.Is(err, pgx.ErrNoRows) {
		return d, fmt.Errorf("delivery %s: %w", id, gatehouse.ErrNotFound)
	}
	return d, wrap(err)
}

// ListWebhookDeliveries returns an endpoint's most recent deliveries.
func (db *DB) ListWebhookDeliveries(ctx context.Context, orgID, webhookID uuid.UUID, limit int) (_ []gatehouse.WebhookDelivery, err error) {
	defer sqlstore.Label(&err, "Store.ListWebhookDeliveries", orgID, webhookID)
	if _, err := findWebhook(ctx, db.pool, orgID, webhookID, ""); err != nil {
		return nil, err
	}
	rows, _ := db.pool.Query(ctx, `SELECT `+deliveryColumns+` FROM webhook_deliveries d
		JOIN webhooks w ON w.seq = d.webhook JOIN organizations o ON o.seq = w.org
		WHERE o.id = $1 AND w.id = $2 ORDER BY d.seq DESC LIMIT $3`, orgID, webhookID, limit)
	ds, err := pgx.CollectRows(rows, scanDelivery)
	if ds == nil {
		ds = []gatehouse.WebhookDelivery{}
	}
	return ds, wrap(err)
}

// ClaimWebhook leases a due endpoint of the organization with the fewest
// leased, then of the one whose last lease ended longest ago (the largest
// lease_until of its endpoints: a lease ends at its round's release),
// then the one due soonest. SKIP LOCKED: instances claiming at once each
// take another endpoint, and none waits (they may count the same
// organization's leases before either commits: one lease more, once).
func (db *DB) ClaimWebhook(ctx context.Context, holder string, now time.Time, ttl time.Duration) (_ gatehouse.WebhookClaim, err error) {
	defer sqlstore.Label(&err, "Store.ClaimWebhook")
	var (
		c     gatehouse.WebhookClaim
		hook  int64
		orgID uuid.UUID
		id    uuid.UUID
	)
	now = gatehouse.Truncate(now)
	err = db.pool.QueryRow(ctx, `UPDATE webhooks w SET lease_holder = $1, lease_until = $3
		FROM organizations o
		WHERE o.seq = w.org AND w.seq = (SELECT d.seq `+webhookDue+` FOR UPDATE OF d SKIP LOCKED)
		RETURNING w.seq, o.id, w.id, w.sealed, w.filters`, holder, now, now.Add(ttl)).Scan(&hook, &orgID, &id, &c.Sealed, &c.Filters)
	if errors.Is(err, pgx.ErrNoRows) {
		return c, gatehouse.ErrNotFound
	}
	if err != nil {
		return c, wrap(err)
	}
	if c.Webhook, err = findWebhook(ctx, db.pool, orgID, id, ""); err != nil {
		return c, err
	}
	rows, _ := db.pool.Query(ctx, `SELECT `+deliveryColumns+` FROM webhook_deliveries d
		WHERE d.webhook = $1 AND d.status = 'pending' ORDER BY d.seq LIMIT 10`, hook)
	c.Pending, err = pgx.CollectRows(rows, scanDelivery)
	return c, wrap(err)
}

// webhookDue is where ClaimWebhook finds the endpoint it takes for holder
// ($1) at now ($2): d, with s, the keys of its order.
const webhookDue = `FROM webhooks d
	JOIN (SELECT org, count(*) FILTER (WHERE lease_until > $2) AS leased, max(lease_until) AS served FROM webhooks
		WHERE org IN (SELECT org FROM webhooks WHERE enabled AND next_at <= $2) GROUP BY org) s ON s.org = d.org
	WHERE d.enabled AND d.next_at <= $2 AND (d.lease_until <= $2 OR d.lease_holder = $1)
	ORDER BY s.leased, s.served, d.next_at LIMIT 1`

// WebhookDue says what ClaimWebhook would take for holder at now, by the
// keys of its order, without taking it: a router over several databases
// (internal/shards) asks each and claims on the first, so that the order
// holds across them. False when no endpoint is due.
func (db *DB) WebhookDue(ctx context.Context, holder string, now time.Time) (_ WebhookRank, due bool, err error) {
	defer sqlstore.Label(&err, "Store.WebhookDue")
	var rank WebhookRank
	// A lease never taken ends at -infinity, which time.Time cannot hold:
	// the year 1 sorts the same.
	err = db.pool.QueryRow(ctx, `SELECT s.leased, CASE WHEN isfinite(s.served) THEN s.served ELSE '0001-01-01Z' END, d.next_at
		`+webhookDue, holder, gatehouse.Truncate(now)).Scan(&rank.Leased, &rank.Served, &rank.NextAt)
	if errors.Is(err, pgx.ErrNoRows) {
		return rank, false, nil
	}
	return rank, err == nil, wrap(err)
}

// WebhookRank is where an endpoint stands in ClaimWebhook's order: its
// organization's endpoints leased, the end of its organization's last
// lease, and when it is due.
type WebhookRank struct {
	Leased         int64
	Served, NextAt time.Time
}

// Compare orders ranks as ClaimWebhook takes them.
func (r WebhookRank) Compare(o WebhookRank) int {
	return cmp.Or(cmp.Compare(r.Leased, o.Leased), r.Served.Compare(o.Served), r.NextAt.Compare(o.NextAt))
}

// SaveWebhookProgress stores a round of deliveries.
func (db *DB) SaveWebhookProgress(ctx context.Context, p gatehouse.WebhookProgress) (err error) {
	defer sqlstore.Label(&err, "Store.SaveWebhookProgress", p.OrgID, p.ID)
	org, err := db.orgSeq(ctx, db.pool, p.OrgID)
	if err != nil {
		return err
	}
	now := gatehouse.Truncate(p.Now)
	lost := false
	err = db.withTx(ctx, func(tx pgx.Tx) error {
		lost = false
		hook, err := rowSeq(ctx, tx, "webhooks", "webhook", org, p.ID)
		if err != nil {
			return err
		}
		if err := insertDeliveries(ctx, tx, hook, p.Deliveries); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `DELETE FROM webhook_deliveries WHERE webhook = $1 AND seq <=
			(SELECT seq FROM webhook_deliveries WHERE webhook = $1 ORDER BY seq DESC OFFSET $2 LIMIT 1)`,
			hook, sqlstore.KeptDeliveries); err != nil {
			return err
		}
		var url string
		err = tx.QueryRow(ctx, `UPDATE webhooks SET events_txn = $1, events_seq = $2, commands_txn = $3, commands_seq = $4,
			attempts = $5, failing_since = $6, last_error = $7, next_at = $8,
			lease_until = CASE WHEN $9 THEN $10 ELSE lease_until END,
			enabled = enabled AND NOT $11,
			disabled_reason = CASE WHEN $11 THEN 'failing' ELSE disabled_reason END
			, lockdowns_txn = $15, lockdowns_seq = $16
			WHERE seq = $12 AND lease_holder = $13 AND lease_until > $10 AND generation = $14 RETURNING url`,
			int64(p.EventsAfter.Txn), p.EventsAfter.Seq, int64(p.CommandsAfter.Txn), p.CommandsAfter.Seq,
			p.Attempts, optUTC(p.FailingSince), p.LastError, p.NextAt, p.Release, now, p.Disable != nil,
			hook, p.Holder, p.Generation, int64(p.LockdownsAfter.Txn), p.LockdownsAfter.Seq).Scan(&url)
		if errors.Is(err, pgx.ErrNoRows) {
			// Lost the lease, or a replay moved the position: the log rows
			// stay, the lease (if still ours) ends.
			lost = true
			_, err := tx.Exec(ctx, "UPDATE webhooks SET lease_until = $1 WHERE seq = $2 AND lease_holder = $3", now, hook, p.Holder)
			return err
		}
		if err != nil {
			return err
		}
		if p.Disable != nil {
			return db.appendAudit(ctx, tx, org, p.Disable.Of(p.OrgID, sqlstore.WebhookTarget(p.ID, url)))
		}
		return nil
	})
	if err == nil && lost {
		err = sqlstore.ErrLeaseLost
	}
	return wrap(err)
}

// ReadCommandChanges returns the organization's command changes after a
// position, in (xid, seq) order below the oldest running transaction
// (horizon).
func (db *DB) ReadCommandChanges(ctx context.Context, orgID uuid.UUID, after gatehouse.FeedPosition, limit int) (_ []gatehouse.CommandChange, _ gatehouse.FeedPosition, err error) {
	defer sqlstore.Label(&err, "Store.ReadCommandChanges", orgID)
	org, err := db.orgSeq(ctx, db.pool, orgID)
	if errors.Is(err, gatehouse.ErrNotFound) {
		return nil, after, nil
	}
	if err != nil {
		return nil, after, err
	}
	rows, _ := db.pool.Query(ctx, `SELECT id, status, change_xid::text::bigint, change_seq FROM commands
		WHERE org = $1 AND issued AND (change_xid, change_seq) > ($2::text::xid8, $3)
		AND change_xid < `+horizon("$1")+`
		ORDER BY change_xid, change_seq LIMIT $4`, org, strconv.FormatUint(after.Txn, 10), after.Seq, limit)
	changes, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (gatehouse.CommandChange, error) {
		var (
			c   gatehouse.CommandChange
			txn int64
		)
		err := r.Scan(&c.ID, &c.Status, &txn, &c.Position.Seq)
		c.Position.Txn = uint64(txn)
		return c, err
	})
	if len(changes) > 0 {
		after = changes[len(changes)-1].Position
	}
	return changes, after, wrap(err)
}

func insertDeliveries(ctx context.Context, tx pgx.Tx, hook int64, ds []gatehouse.WebhookDelivery) error {
	for _, d := range ds {
		_, err := tx.Exec(ctx, `INSERT INTO webhook_deliveries (webhook, id, message_id, type, object_id, status, manual,
			attempt, at, response_code, latency_ms, error, response) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)
			ON CONFLICT (id) DO UPDATE SET status = excluded.status, attempt = excluded.attempt, at = excluded.at,
				response_code = excluded.response_code, latency_ms = excluded.latency_ms,
				error = excluded.error, response = excluded.response`,
			hook, d.ID, d.MessageID, string(d.Type), d.ObjectID, d.Status, d.Manual, d.Attempt, time.Time(d.At),
			d.ResponseCode, d.LatencyMS, d.Error, d.Response)
		if err != nil {
			return err
		}
	}
	return nil
}

func scanDelivery(r pgx.CollectableRow) (gatehouse.WebhookDelivery, error) {
	var (
		d  gatehouse.WebhookDelivery
		at time.Time
	)
	err := r.Scan(&d.ID, &d.MessageID, &d.Type, &d.ObjectID, &d.Status, &d.Manual, &d.Attempt, &at,
		&d.ResponseCode, &d.LatencyMS, &d.Error, &d.Response)
	d.At = gatehouse.Time(at.UTC())
	return d, err
}
