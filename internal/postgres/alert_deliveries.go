package postgres

import (
	"context"
	"errors"
	"strconv"
	"time"

	"github.com/gatehouse/gatehouse"
	"github.com/gatehouse/gatehouse/internal/sqlstore"
	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
)

const alertColumnsQuery = `SELECT a.seq, a.id, o.id, r.id, r.name, a.kind, a.test, a.group_by, a.group_key, a.count,
	a.window_seconds, a.window_start, a.window_end, a.audit, a.filters, a.fired_at, a.status, a.attempts, a.next_at,
	a.last_error`

const alertFrom = ` FROM alerts a JOIN alert_rules r ON r.seq = a.rule JOIN organizations o ON o.seq = a.org`

func scanAlert(row pgx.CollectableRow) (sqlstore.SeqAlert, error) {
	var (
		s                       sqlstore.SeqAlert
		a                       = &s.Alert
		start, end, fired, next time.Time
		audit                   *string
		kind, filters           string
	)
	if err := row.Scan(&s.Seq, &a.ID, &a.OrgID, &a.RuleID, &a.RuleName, &kind, &a.Test, &a.GroupBy, &a.Group, &a.Count,
		&a.WindowSeconds, &start, &end, &audit, &filters, &fired, &a.Delivery.Status, &a.Delivery.Attempts, &next,
		&a.Delivery.LastError); err != nil {
		return s, err
	}
	a.Kind = gatehouse.AlertKind(kind)
	a.WindowStart, a.WindowEnd, a.FiredAt = gatehouse.Time(start.UTC()), gatehouse.Time(end.UTC()), gatehouse.Time(fired.UTC())
	sqlstore.FillAlert(a, audit, filters, next.UTC())
	return s, nil
}

// AddAlert stores a test alert of an organization's rule.
func (db *DB) AddAlert(ctx context.Context, a gatehouse.Alert) (_ gatehouse.Alert, err error) {
	defer sqlstore.Label(&err, "Store.AddAlert", a.OrgID, a.RuleID)
	org, err := db.orgSeq(ctx, db.pool, a.OrgID)
	if err != nil {
		return gatehouse.Alert{}, err
	}
	err = db.withTx(ctx, func(tx pgx.Tx) error {
		rule, err := rowSeq(ctx, tx, "alert_rules", "alert rule", org, a.RuleID)
		if err != nil {
			return err
		}
		_, err = insertAlert(ctx, tx, org, rule, 0, a)
		return err
	})
	if err != nil {
		return gatehouse.Alert{}, err
	}
	return findAlert(ctx, db.pool, a.OrgID, a.ID)
}

// ListAlerts returns a page of an organization's alerts, newest first.
func (db *DB) ListAlerts(ctx context.Context, orgID uuid.UUID, f gatehouse.AlertFilter) (_ gatehouse.AlertPage, err error) {
	defer sqlstore.Label(&err, "Store.ListAlerts", orgID)
	q, args := alertColumnsQuery+alertFrom+" WHERE o.id = $1", []any{orgID}
	if f.RuleID != nil {
		args = append(args, *f.RuleID)
		q += " AND r.id = $" + strconv.Itoa(len(args))
	}
	if f.After != nil {
		args = append(args, *f.After)
		q += " AND a.seq < $" + strconv.Itoa(len(args))
	}
	args = append(args, f.Limit+1)
	q += " ORDER BY a.seq DESC LIMIT $" + strconv.Itoa(len(args))
	rows, _ := db.pool.Query(ctx, q, args...)
	all, err := pgx.CollectRows(rows, scanAlert)
	if err != nil {
		return gatehouse.AlertPage{}, wrap(err)
	}
	return sqlstore.AlertPage(all, f.Limit), nil
}

// FindAlert returns an organization's alert with its attempts.
func (db *DB) FindAlert(ctx context.Context, orgID, id uuid.UUID) (_ gatehouse.Alert, err error) {
	defer sqlstore.Label(&err, "Store.FindAlert", orgID, id)
	return findAlert(ctx, db.pool, orgID, id)
}

func findAlert(ctx context.Context, q querier, orgID, id uuid.UUID) (gatehouse.Alert, error) {
	rows, _ := q.Query(ctx, alertColumnsQuery+alertFrom+" WHERE o.id = $1 AND a.id = $2", orgID, id)
	s, err := oneOf(rows, scanAlert, "alert", id)
	if err != nil {
		return gatehouse.Alert{}, err
	}
	a := s.Alert
	rows, _ = q.Query(ctx, `SELECT id, attempt, at, status, response_code, latency_ms, error, response FROM alert_attempts
		WHERE alert = $1 ORDER BY seq DESC`, s.Seq)
	a.Deliveries, err = pgx.CollectRows(rows, func(row pgx.CollectableRow) (gatehouse.AlertAttempt, error) {
		var (
			t  gatehouse.AlertAttempt
			at time.Time
		)
		err := row.Scan(&t.ID, &t.Attempt, &at, &t.Status, &t.ResponseCode, &t.LatencyMS, &t.Error, &t.Response)
		t.At = gatehouse.Time(at.UTC())
		return t, err
	})
	if a.Deliveries == nil {
		a.Deliveries = []gatehouse.AlertAttempt{}
	}
	return a, wrap(err)
}

// ClaimAlertRule leases a due threshold rule, the one due longest; rules
// leased by another claim at this moment are skipped, not waited for.
func (db *DB) ClaimAlertRule(ctx context.Context, holder string, now time.Time, ttl time.Duration) (_ gatehouse.AlertRuleClaim, err error) {
	defer sqlstore.Label(&err, "Store.ClaimAlertRule")
	var (
		c         gatehouse.AlertRuleClaim
		orgID, id uuid.UUID
	)
	now = gatehouse.Truncate(now)
	err = db.pool.QueryRow(ctx, `UPDATE alert_rules r SET lease_holder = $1, lease_until = $2
		FROM organizations o
		WHERE o.seq = r.org AND r.seq = (SELECT seq FROM alert_rules WHERE kind = 'threshold' AND next_at <= $3
			AND (lease_until <= $3 OR lease_holder = $1) ORDER BY next_at LIMIT 1 FOR UPDATE SKIP LOCKED)
		RETURNING o.id, r.id`, holder, now.Add(ttl), now).Scan(&orgID, &id)
	if errors.Is(err, pgx.ErrNoRows) {
		return c, gatehouse.ErrNotFound
	}
	if err != nil {
		return c, wrap(err)
	}
	c.Rule, err = findAlertRule(ctx, db.pool, orgID, id)
	return c, err
}

// SaveAlertEvaluation stores an evaluation of a leased rule. The update
// of the rule's row, which checks the lease, holds its lock until the
// alerts are stored.
func (db *DB) SaveAlertEvaluation(ctx context.Context, p gatehouse.AlertEvaluation) (_ []gatehouse.Alert, err error) {
	defer sqlstore.Label(&err, "Store.SaveAlertEvaluation", p.OrgID, p.RuleID)
	org, err := db.orgSeq(ctx, db.pool, p.OrgID)
	if err != nil {
		return nil, err
	}
	now := gatehouse.Truncate(p.Now)
	var fired []gatehouse.Alert
	err = db.withTx(ctx, func(tx pgx.Tx) error {
		fired = nil
		var (
			rule     int64
			cooldown int
		)
		err := tx.QueryRow(ctx, `UPDATE alert_rules SET events_txn = $1, events_seq = $2, next_at = $3,
			lease_until = CASE WHEN $4 THEN $5 ELSE lease_until END
			WHERE org = $6 AND id = $7 AND lease_holder = $8 AND lease_until > $5 AND generation = $9
			RETURNING seq, cooldown_seconds`,
			int64(p.EventsAfter.Txn), p.EventsAfter.Seq, p.NextAt, p.Release, now, org, p.RuleID, p.Holder, p.Generation).Scan(&rule, &cooldown)
		if errors.Is(err, pgx.ErrNoRows) {
			return sqlstore.ErrAlertLeaseLost
		}
		if err != nil {
			return err
		}
		fired, err = sqlstore.StoreAlerts(p.Alerts, func(a gatehouse.Alert) (bool, error) {
			return insertAlert(ctx, tx, org, rule, cooldown, a)
		})
		return err
	})
	return fired, err
}

// ClaimAlert leases an alert whose delivery is due, the one due longest.
func (db *DB) ClaimAlert(ctx context.Context, holder string, now time.Time, ttl time.Duration) (_ gatehouse.AlertClaim, err error) {
	defer sqlstore.Label(&err, "Store.ClaimAlert")
	var (
		c         gatehouse.AlertClaim
		orgID, id uuid.UUID
		format    string
	)
	now = gatehouse.Truncate(now)
	err = db.pool.QueryRow(ctx, `UPDATE alerts a SET lease_holder = $1, lease_until = $2
		FROM organizations o, alert_rules r
		WHERE o.seq = a.org AND r.seq = a.rule AND a.seq = (SELECT seq FROM alerts WHERE status = 'pending' AND next_at <= $3
			AND (lease_until <= $3 OR lease_holder = $1) ORDER BY next_at LIMIT 1 FOR UPDATE SKIP LOCKED)
		RETURNING o.id, a.id, r.format, r.url, r.sealed`, holder, now.Add(ttl), now).Scan(&orgID, &id, &format, &c.Destination.URL, &c.Sealed)
	if errors.Is(err, pgx.ErrNoRows) {
		return c, gatehouse.ErrNotFound
	}
	if err != nil {
		return c, wrap(err)
	}
	c.Destination.Format = gatehouse.AlertFormat(format)
	c.Alert, err = findAlert(ctx, db.pool, orgID, id)
	return c, err
}

// SaveAlertAttempt stores an attempt at a leased alert.
func (db *DB) SaveAlertAttempt(ctx context.Context, r gatehouse.AlertAttemptResult) (err error) {
	defer sqlstore.Label(&err, "Store.SaveAlertAttempt", r.OrgID, r.AlertID)
	org, err := db.orgSeq(ctx, db.pool, r.OrgID)
	if err != nil {
		return err
	}
	now := gatehouse.Truncate(r.Now)
	return db.withTx(ctx, func(tx pgx.Tx) error {
		var alert int64
		err := tx.QueryRow(ctx, `UPDATE alerts SET status = $1, attempts = $2, next_at = $3, last_error = $4, lease_until = $5
			WHERE org = $6 AND id = $7 AND lease_holder = $8 AND lease_until > $5 RETURNING seq`,
			r.Delivery.Status, r.Delivery.Attempts, r.NextAt, r.Delivery.LastError, now, org, r.AlertID, r.Holder).Scan(&alert)
		if errors.Is(err, pgx.ErrNoRows) {
			return sqlstore.ErrAlertLeaseLost
		}
		if err != nil {
			return err
		}
		t := r.Attempt
		_, err = tx.Exec(ctx, `INSERT INTO alert_attempts (alert, id, attempt, at, status, response_code, latency_ms, error, response)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`, alert, t.ID, t.Attempt, time.Time(t.At), t.Status,
			t.ResponseCode, t.LatencyMS, t.Error, t.Response)
		return err
	})
}
