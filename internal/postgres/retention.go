package postgres

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/gatehouse/gatehouse"
	"github.com/gatehouse/gatehouse/internal/sqlstore"
	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
)

// SetRetention sets how long an organization's events are kept.
func (db *DB) SetRetention(ctx context.Context, e gatehouse.AuditEntry, orgID uuid.UUID, days int) (_ gatehouse.Organization, err error) {
	defer sqlstore.Label(&err, "Store.SetRetention", orgID)
	var o gatehouse.Organization
	err = db.withTx(ctx, func(tx pgx.Tx) error {
		var seq int64
		rows, _ := tx.Query(ctx, "SELECT id, name, created_at, retention_days FROM organizations WHERE id = $1 FOR NO KEY UPDATE", orgID)
		var err error
		if o, err = pgx.CollectExactlyOneRow(rows, scanOrganization); errors.Is(err, pgx.ErrNoRows) {
			return fmt.Errorf("organization %s: %w", orgID, gatehouse.ErrNotFound)
		}
		if err != nil || o.RetentionDays == days {
			return err
		}
		if err := tx.QueryRow(ctx, "UPDATE organizations SET retention_days = $2 WHERE id = $1 RETURNING seq", orgID, days).Scan(&seq); err != nil {
			return err
		}
		old := o.RetentionDays
		o.RetentionDays = days
		return db.appendAudit(ctx, tx, seq, sqlstore.RetentionEntry(e, o, old))
	})
	return o, err
}

// DeleteEventsBefore deletes a batch of an organization's expired events.
func (db *DB) DeleteEventsBefore(ctx context.Context, orgID uuid.UUID, before time.Time, limit int) (_ int, err error) {
	defer sqlstore.Label(&err, "Store.DeleteEventsBefore", orgID)
	return db.deleteEvents(ctx, orgID, "occurred_at < $2", before, limit)
}

// PruneTerms deletes platform user terms no event has any more, 1,000
// at a time, each batch a statement of its own, then the spans and terms
// of server jobs no event has (pruneSpans).
func (db *DB) PruneTerms(ctx context.Context, orgID uuid.UUID) (_ int, err error) {
	defer sqlstore.Label(&err, "Store.PruneTerms", orgID)
	org, err := db.orgSeq(ctx, db.pool, orgID)
	if err != nil {
		return 0, err
	}
	pruned := 0
	for {
		rows, _ := db.pool.Query(ctx, `DELETE FROM search_terms t USING (SELECT field, ref, value FROM search_terms s
				WHERE s.org = $1 AND s.field = $2
				AND NOT EXISTS (SELECT 1 FROM events e WHERE e.org = s.org AND e.platform_user_id = s.value) LIMIT 1000) gone
			WHERE t.org = $1 AND t.field = gone.field AND t.ref = gone.ref AND t.value = gone.value RETURNING t.value`,
			org, sqlstore.TermPlatformUser)
		values, err := pgx.CollectRows(rows, pgx.RowTo[string])
		for _, v := range values {
			db.terms.Forget(org, sqlstore.Term{Field: sqlstore.TermPlatformUser, Value: v})
		}
		pruned += len(values)
		if err != nil {
			return pruned, wrap(err)
		}
		if len(values) < 1000 {
			break
		}
	}
	jobs, err := db.pruneSpans(ctx, org)
	return pruned + jobs, err
}

// pruneSpans deletes the spans, and search terms, of server jobs no event
// has any more: those whose span ends by the organization's oldest event
// (every event of a job is within its span), 1,000 at a time. Spans whose
// jobs still have events before their ends stay as wide as they were:
// harmless.
func (db *DB) pruneSpans(ctx context.Context, org int64) (int, error) {
	pruned := 0
	for {
		rows, _ := db.pool.Query(ctx, `WITH gone AS (
				DELETE FROM job_spans WHERE org = $1 AND job IN (SELECT job FROM job_spans
					WHERE org = $1 AND to_at <= (SELECT coalesce(min(occurred_at), 'infinity') FROM events WHERE org = $1) LIMIT 1000)
				RETURNING job),
			terms AS (DELETE FROM search_terms t USING gone
				WHERE t.org = $1 AND t.field = $2 AND t.ref = '00000000-0000-0000-0000-000000000000' AND t.value = gone.job)
			SELECT job FROM gone`, org, sqlstore.TermServerJob)
		jobs, err := pgx.CollectRows(rows, pgx.RowTo[string])
		for _, job := range jobs {
			db.spans.Forget(org, job)
			db.terms.Forget(org, sqlstore.Term{Field: sqlstore.TermServerJob, Value: job})
		}
		pruned += len(jobs)
		if err != nil || len(jobs) < 1000 {
			return pruned, wrap(err)
		}
	}
}

// OldestEvent returns when the organization's oldest event occurred.
func (db *DB) OldestEvent(ctx context.Context, orgID uuid.UUID) (_ time.Time, _ bool, err error) {
	defer sqlstore.Label(&err, "Store.OldestEvent", orgID)
	org, err := db.orgSeq(ctx, db.pool, orgID)
	if err != nil {
		return time.Time{}, false, err
	}
	var at *time.Time
	err = db.pool.QueryRow(ctx, "SELECT min(occurred_at) FROM events WHERE org = $1", org).Scan(&at)
	if err != nil || at == nil {
		return time.Time{}, false, wrap(err)
	}
	return at.UTC(), true, nil
}

// DeleteCommandsBefore deletes a batch of an organization's commands
// issued before a time whose events are gone, and its delivery log rows
// of before then.
func (db *DB) DeleteCommandsBefore(ctx context.Context, orgID uuid.UUID, before time.Time, limit int) (_ int, err error) {
	defer sqlstore.Label(&err, "Store.DeleteCommandsBefore", orgID)
	org, err := db.orgSeq(ctx, db.pool, orgID)
	if err != nil {
		return 0, err
	}
	var n int
	err = db.withTx(ctx, func(tx pgx.Tx) error {
		rows, _ := tx.Query(ctx, `SELECT c.id FROM commands c WHERE c.org = $1 AND c.issued_at < $2
			AND NOT EXISTS (SELECT 1 FROM events e WHERE e.org = c.org AND e.command_id = c.id)
			LIMIT $3 FOR UPDATE SKIP LOCKED`, org, before, limit)
		ids, err := pgx.CollectRows(rows, pgx.RowTo[uuid.UUID])
		if err != nil {
			return err
		}
		n = len(ids)
		if err := deleteCommands(ctx, tx, org, ids); err != nil {
			return err
		}
		if n < limit {
			_, err = tx.Exec(ctx, `DELETE FROM webhook_deliveries WHERE webhook IN (SELECT seq FROM webhooks WHERE org = $1)
				AND at < $2`, org, before)
		}
		return err
	})
	return n, wrap(err)
}
