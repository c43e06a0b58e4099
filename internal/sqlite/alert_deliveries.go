package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"github.com/gatehouse/gatehouse"
	"github.com/gatehouse/gatehouse/internal/sqlstore"
	"github.com/google/uuid"
)

const alertColumns = `a.seq, a.id, o.id, r.id, r.name, a.kind, a.test, a.group_by, a.group_key, a.count, a.window_seconds,
	a.window_start, a.window_end, a.audit, a.filters, a.fired_at, a.status, a.attempts, a.next_at, a.last_error`

const alertFrom = ` FROM alerts a JOIN alert_rules r ON r.seq = a.rule JOIN organizations o ON o.seq = a.org`

func scanAlert(rows *sql.Rows, s *sqlstore.SeqAlert) error {
	var (
		a                       = &s.Alert
		start, end, fired, next int64
		audit                   sql.NullString
		kind, filters           string
	)
	if err := rows.Scan(&s.Seq, &a.ID, &a.OrgID, &a.RuleID, &a.RuleName, &kind, &a.Test, &a.GroupBy, &a.Group, &a.Count,
		&a.WindowSeconds, &start, &end, &audit, &filters, &fired, &a.Delivery.Status, &a.Delivery.Attempts, &next,
		&a.Delivery.LastError); err != nil {
		return err
	}
	a.Kind = gatehouse.AlertKind(kind)
	a.WindowStart, a.WindowEnd, a.FiredAt = gatehouse.Time(fromMillis(start)), gatehouse.Time(fromMillis(end)), gatehouse.Time(fromMillis(fired))
	sqlstore.FillAlert(a, fromOptString(audit), filters, fromMillis(next))
	return nil
}

// AddAlert stores a test alert of an organization's rule.
func (db *DB) AddAlert(ctx context.Context, a gatehouse.Alert) (_ gatehouse.Alert, err error) {
	defer sqlstore.Label(&err, "Store.AddAlert", a.OrgID, a.RuleID)
	err = db.withTx(ctx, func(tx *sql.Tx) error {
		org, err := db.orgSeq(ctx, tx, a.OrgID)
		if err != nil {
			return err
		}
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
	return db.findAlert(ctx, db.read, a.OrgID, a.ID)
}

// ListAlerts returns a page of an organization's alerts, newest first.
func (db *DB) ListAlerts(ctx context.Context, orgID uuid.UUID, f gatehouse.AlertFilter) (_ gatehouse.AlertPage, err error) {
	defer sqlstore.Label(&err, "Store.ListAlerts", orgID)
	q, args := alertColumnsQuery+alertFrom+" WHERE o.id = ?", []any{orgID[:]}
	if f.RuleID != nil {
		q += " AND r.id = ?"
		args = append(args, f.RuleID[:])
	}
	if f.After != nil {
		q += " AND a.seq < ?"
		args = append(args, *f.After)
	}
	q += " ORDER BY a.seq DESC LIMIT ?"
	args = append(args, f.Limit+1)
	rows, err := queryAll(ctx, db.read, scanAlert, q, args...)
	if err != nil {
		return gatehouse.AlertPage{}, wrap(err)
	}
	return sqlstore.AlertPage(rows, f.Limit), nil
}

const alertColumnsQuery = "SELECT " + alertColumns

// FindAlert returns an organization's alert with its attempts.
func (db *DB) FindAlert(ctx context.Context, orgID, id uuid.UUID) (_ gatehouse.Alert, err error) {
	defer sqlstore.Label(&err, "Store.FindAlert", orgID, id)
	return db.findAlert(ctx, db.read, orgID, id)
}

func (db *DB) findAlert(ctx context.Context, q querier, orgID, id uuid.UUID) (gatehouse.Alert, error) {
	rows, err := queryAll(ctx, q, scanAlert, alertColumnsQuery+alertFrom+" WHERE o.id = ? AND a.id = ?", orgID[:], id[:])
	s, err := firstOf(rows, err, "alert", id)
	if err != nil {
		return gatehouse.Alert{}, err
	}
	a := s.Alert
	a.Deliveries, err = queryAll(ctx, q, func(rows *sql.Rows, t *gatehouse.AlertAttempt) error {
		var at int64
		var code, latency sql.NullInt64
		if err := rows.Scan(&t.ID, &t.Attempt, &at, &t.Status, &code, &latency, &t.Error, &t.Response); err != nil {
			return err
		}
		t.At = gatehouse.Time(fromMillis(at))
		if code.Valid {
			c := int(code.Int64)
			t.ResponseCode = &c
		}
		if latency.Valid {
			t.LatencyMS = &latency.Int64
		}
		return nil
	}, `SELECT id, attempt, at, status, response_code, latency_ms, error, response FROM alert_attempts
		WHERE alert = ? ORDER BY seq DESC`, s.Seq)
	if a.Deliveries == nil {
		a.Deliveries = []gatehouse.AlertAttempt{}
	}
	return a, wrap(err)
}

// ClaimAlertRule leases a due threshold rule, the one due longest.
func (db *DB) ClaimAlertRule(ctx context.Context, holder string, now time.Time, ttl time.Duration) (_ gatehouse.AlertRuleClaim, err error) {
	defer sqlstore.Label(&err, "Store.ClaimAlertRule")
	var c gatehouse.AlertRuleClaim
	err = db.claimDue(ctx, "alert_rules", "kind = 'threshold'", holder, now, ttl, func(tx *sql.Tx, orgID, id uuid.UUID) (err error) {
		c.Rule, err = db.findAlertRule(ctx, tx, orgID, id)
		return err
	})
	return c, err
}

// claimDue leases the row of table that is due longest among those where
// which holds, and runs then on it in the lease's transaction. Most polls
// find nothing due: they ask a reader first. It returns ErrNotFound when
// none is due.
func (db *DB) claimDue(ctx context.Context, table, which, holder string, now time.Time, ttl time.Duration, then func(tx *sql.Tx, orgID, id uuid.UUID) error) error {
	var due int
	err := db.read.QueryRowContext(ctx, `SELECT count(*) FROM (SELECT 1 FROM `+table+` WHERE `+which+` AND next_at <= ?
		AND (lease_until <= ? OR lease_holder = ?) LIMIT 1)`, millis(now), millis(now), holder).Scan(&due)
	if err != nil {
		return wrap(err)
	}
	if due == 0 {
		return gatehouse.ErrNotFound
	}
	return db.withTx(ctx, func(tx *sql.Tx) error {
		var orgID, id uuid.UUID
		err := tx.QueryRowContext(ctx, `UPDATE `+table+` SET lease_holder = ?, lease_until = ?
			WHERE seq = (SELECT seq FROM `+table+` WHERE `+which+` AND next_at <= ?
				AND (lease_until <= ? OR lease_holder = ?) ORDER BY next_at LIMIT 1)
			RETURNING (SELECT id FROM organizations WHERE seq = `+table+`.org), id`,
			holder, millis(now.Add(ttl)), millis(now), millis(now), holder).Scan(&orgID, &id)
		if errors.Is(err, sql.ErrNoRows) {
			return gatehouse.ErrNotFound
		}
		if err != nil {
			return err
		}
		return then(tx, orgID, id)
	})
}

// SaveAlertEvaluation stores an evaluation of a leased rule.
func (db *DB) SaveAlertEvaluation(ctx context.Context, p gatehouse.AlertEvaluation) (_ []gatehouse.Alert, err error) {
	defer sqlstore.Label(&err, "Store.SaveAlertEvaluation", p.OrgID, p.RuleID)
	var fired []gatehouse.Alert
	err = db.withTx(ctx, func(tx *sql.Tx) error {
		fired = nil
		org, err := db.orgSeq(ctx, tx, p.OrgID)
		if err != nil {
			return err
		}
		var (
			rule     int64
			cooldown int
		)
		err = tx.QueryRowContext(ctx, `UPDATE alert_rules SET events_after = ?, next_at = ?,
			lease_until = CASE WHEN ? THEN ? ELSE lease_until END
			WHERE org = ? AND id = ? AND lease_holder = ? AND lease_until > ? AND generation = ?
			RETURNING seq, cooldown_seconds`,
			p.EventsAfter.Seq, millis(p.NextAt), p.Release, millis(p.Now), org, p.RuleID[:], p.Holder, millis(p.Now), p.Generation).Scan(&rule, &cooldown)
		if errors.Is(err, sql.ErrNoRows) {
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
	var c gatehouse.AlertClaim
	err = db.claimDue(ctx, "alerts", "status = 'pending'", holder, now, ttl, func(tx *sql.Tx, orgID, id uuid.UUID) (err error) {
		if c.Alert, err = db.findAlert(ctx, tx, orgID, id); err != nil {
			return err
		}
		var format string
		err = tx.QueryRowContext(ctx, `SELECT r.format, r.url, r.sealed FROM alerts a JOIN alert_rules r ON r.seq = a.rule
			WHERE a.id = ?`, id[:]).Scan(&format, &c.Destination.URL, &c.Sealed)
		c.Destination.Format = gatehouse.AlertFormat(format)
		return err
	})
	return c, err
}

// SaveAlertAttempt stores an attempt at a leased alert.
func (db *DB) SaveAlertAttempt(ctx context.Context, r gatehouse.AlertAttemptResult) (err error) {
	defer sqlstore.Label(&err, "Store.SaveAlertAttempt", r.OrgID, r.AlertID)
	return db.withTx(ctx, func(tx *sql.Tx) error {
		org, err := db.orgSeq(ctx, tx, r.OrgID)
		if err != nil {
			return err
		}
		var alert int64
		err = tx.QueryRowContext(ctx, `UPDATE alerts SET status = ?, attempts = ?, next_at = ?, last_error = ?, lease_until = ?
			WHERE org = ? AND id = ? AND lease_holder = ? AND lease_until > ? RETURNING seq`,
			r.Delivery.Status, r.Delivery.Attempts, millis(r.NextAt), r.Delivery.LastError, millis(r.Now),
			org, r.AlertID[:], r.Holder, millis(r.Now)).Scan(&alert)
		if errors.Is(err, sql.ErrNoRows) {
			return sqlstore.ErrAlertLeaseLost
		}
		if err != nil {
			return err
		}
		t := r.Attempt
		_, err = tx.ExecContext(ctx, `INSERT INTO alert_attempts (alert, id, attempt, at, status, response_code, latency_ms, error, response)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`, alert, t.ID[:], t.Attempt, millis(time.Time(t.At)), t.Status,
			t.ResponseCode, t.LatencyMS, t.Error, t.Response)
		return err
	})
}
