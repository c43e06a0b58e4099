package sqlite

import (
	"context"
	"database/sql"
	"time"

	"github.com/gatehouse/gatehouse"
	"github.com/gatehouse/gatehouse/internal/sqlstore"
	"github.com/google/uuid"
)

// SetRetention sets how long an organization's events are kept.
func (db *DB) SetRetention(ctx context.Context, e gatehouse.AuditEntry, orgID uuid.UUID, days int) (_ gatehouse.Organization, err error) {
	defer sqlstore.Label(&err, "Store.SetRetention", orgID)
	var o gatehouse.Organization
	err = db.withTx(ctx, func(tx *sql.Tx) error {
		org, err := db.orgSeq(ctx, tx, orgID)
		if err != nil {
			return err
		}
		o, err = scanOrganization(tx.QueryRowContext(ctx, "SELECT id, name, created_at, retention_days FROM organizations WHERE seq = ?", org))
		if err != nil || o.RetentionDays == days {
			return err
		}
		if _, err := tx.ExecContext(ctx, "UPDATE organizations SET retention_days = ? WHERE seq = ?", days, org); err != nil {
			return err
		}
		old := o.RetentionDays
		o.RetentionDays = days
		return db.appendAudit(ctx, tx, org, sqlstore.RetentionEntry(e, o, old))
	})
	return o, err
}

// DeleteEventsBefore deletes a batch of an organization's expired events.
func (db *DB) DeleteEventsBefore(ctx context.Context, orgID uuid.UUID, before time.Time, limit int) (_ int, err error) {
	defer sqlstore.Label(&err, "Store.DeleteEventsBefore", orgID)
	return db.deleteEvents(ctx, orgID, "occurred_at < ?", millis(before), limit)
}

// PruneTerms deletes platform user terms no event has any more, and the
// spans and terms of server jobs no event has (pruneSpans). It
// looks for them on a reader, a page of terms at a time, and deletes
// those it found in a short write transaction each, checking again:
// the one writer is never held for the scan.
func (db *DB) PruneTerms(ctx context.Context, orgID uuid.UUID) (_ int, err error) {
	defer sqlstore.Label(&err, "Store.PruneTerms", orgID)
	org, err := db.orgSeq(ctx, db.read, orgID)
	if err != nil {
		return 0, err
	}
	type term struct {
		rowid int64
		value string
	}
	pruned := 0
	for after := int64(0); ; {
		var last int64
		var dead []term
		page, err := queryAll(ctx, db.read, func(r *sql.Rows, t *struct {
			term
			gone bool
		}) error {
			return r.Scan(&t.rowid, &t.value, &t.gone)
		}, `SELECT t.rowid, t.value, NOT EXISTS (SELECT 1 FROM events e WHERE e.org = t.org AND e.platform_user_id = t.value)
			FROM search_terms t WHERE t.org = ? AND t.field = ? AND t.rowid > ? ORDER BY t.rowid LIMIT 1000`,
			org, sqlstore.TermPlatformUser, after)
		if err != nil {
			return pruned, wrap(err)
		}
		for _, t := range page {
			last = t.rowid
			if t.gone {
				dead = append(dead, t.term)
			}
		}
		if len(dead) > 0 {
			err := db.withTx(ctx, func(tx *sql.Tx) error {
				for _, t := range dead {
					res, err := tx.ExecContext(ctx, `DELETE FROM search_terms WHERE rowid = ? AND NOT EXISTS
						(SELECT 1 FROM events e WHERE e.org = ? AND e.platform_user_id = ?)`, t.rowid, org, t.value)
					if err != nil {
						return err
					}
					if n, _ := res.RowsAffected(); n > 0 {
						pruned++
						db.terms.Forget(org, sqlstore.Term{Field: sqlstore.TermPlatformUser, Value: t.value})
					}
				}
				return nil
			})
			if err != nil {
				return pruned, err
			}
		}
		if len(page) < 1000 {
			break
		}
		after = last
	}
	jobs, err := db.pruneSpans(ctx, org)
	return pruned + jobs, err
}

// pruneSpans deletes the spans, and search terms, of server jobs no event
// has any more: those whose span ends by the organization's oldest event
// (every event of a job is within its span). Spans whose jobs still have
// events before their ends stay as wide as they were: harmless.
func (db *DB) pruneSpans(ctx context.Context, org int64) (int, error) {
	const oldest = "(SELECT coalesce(min(occurred_at), 9223372036854775807) FROM events WHERE org = ?)"
	jobs, err := queryAll(ctx, db.read, func(r *sql.Rows, job *string) error { return r.Scan(job) },
		"SELECT job FROM job_spans WHERE org = ? AND to_at <= "+oldest, org, org)
	if err != nil {
		return 0, wrap(err)
	}
	pruned := 0
	for len(jobs) > 0 {
		n := min(len(jobs), 1000)
		err := db.withTx(ctx, func(tx *sql.Tx) error {
			for _, job := range jobs[:n] {
				res, err := tx.ExecContext(ctx, "DELETE FROM job_spans WHERE org = ? AND job = ? AND to_at <= "+oldest, org, job, org)
				if err != nil {
					return err
				}
				if n, _ := res.RowsAffected(); n == 0 {
					continue
				}
				term := sqlstore.Term{Field: sqlstore.TermServerJob, Value: job}
				if _, err := tx.ExecContext(ctx, "DELETE FROM search_terms WHERE org = ? AND field = ? AND ref = ? AND value = ?",
					org, term.Field, term.Ref[:], term.Value); err != nil {
					return err
				}
				pruned++
				db.spans.Forget(org, job)
				db.terms.Forget(org, term)
			}
			return nil
		})
		if err != nil {
			return pruned, err
		}
		jobs = jobs[n:]
	}
	return pruned, nil
}

// OldestEvent returns when the organization's oldest event occurred.
func (db *DB) OldestEvent(ctx context.Context, orgID uuid.UUID) (_ time.Time, _ bool, err error) {
	defer sqlstore.Label(&err, "Store.OldestEvent", orgID)
	org, err := db.orgSeq(ctx, db.read, orgID)
	if err != nil {
		return time.Time{}, false, err
	}
	var ms sql.NullInt64
	err = db.read.QueryRowContext(ctx, "SELECT min(occurred_at) FROM events WHERE org = ?", org).Scan(&ms)
	return fromMillis(ms.Int64), ms.Valid, wrap(err)
}

// DeleteCommandsBefore deletes a batch of an organization's commands
// issued before a time whose events are gone, and its delivery log rows
// of before then.
func (db *DB) DeleteCommandsBefore(ctx context.Context, orgID uuid.UUID, before time.Time, limit int) (_ int, err error) {
	defer sqlstore.Label(&err, "Store.DeleteCommandsBefore", orgID)
	var n int
	err = db.withTx(ctx, func(tx *sql.Tx) error {
		org, err := db.orgSeq(ctx, tx, orgID)
		if err != nil {
			return err
		}
		ids, err := queryAll(ctx, tx, func(r *sql.Rows, id *[]byte) error { return r.Scan(id) },
			`SELECT c.id FROM commands c WHERE c.org = ? AND c.issued_at < ?
				AND NOT EXISTS (SELECT 1 FROM events e WHERE e.org = c.org AND e.command_id = c.id) LIMIT ?`,
			org, millis(before), limit)
		if err != nil {
			return err
		}
		n = len(ids)
		if err := deleteCommands(ctx, tx, org, ids); err != nil {
			return err
		}
		if n < limit {
			_, err = tx.ExecContext(ctx, "DELETE FROM webhook_deliveries WHERE webhook IN (SELECT seq FROM webhooks WHERE org = ?) AND at < ?",
				org, millis(before))
		}
		return err
	})
	return n, err
}
