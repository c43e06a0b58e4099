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

const alertRuleColumns = `r.id, o.id, r.name, r.condition, r.format, r.url, r.cooldown_seconds, r.created_at, r.updated_at,
	r.events_after, r.generation`

func scanAlertRule(rows *sql.Rows, r *gatehouse.AlertRule) error {
	var (
		condition, format string
		created, updated  int64
	)
	if err := rows.Scan(&r.ID, &r.OrgID, &r.Name, &condition, &format, &r.Destination.URL, &r.CooldownSeconds,
		&created, &updated, &r.EventsAfter.Seq, &r.Generation); err != nil {
		return err
	}
	r.CreatedAt, r.UpdatedAt = gatehouse.Time(fromMillis(created)), gatehouse.Time(fromMillis(updated))
	return sqlstore.FillAlertRule(r, condition, format)
}

// CreateAlertRule stores an organization's rule at the head of its feed.
func (db *DB) CreateAlertRule(ctx context.Context, e gatehouse.AuditEntry, r gatehouse.AlertRule, sealed []byte) (_ gatehouse.AlertRule, err error) {
	defer sqlstore.Label(&err, "Store.CreateAlertRule", r.OrgID)
	err = db.withTx(ctx, func(tx *sql.Tx) error {
		org, err := db.orgSeq(ctx, tx, r.OrgID)
		if err != nil {
			return err
		}
		n, err := countRows(ctx, tx, "alert_rules", org)
		if err != nil {
			return err
		}
		if err := sqlstore.CheckAlertRuleCount(n); err != nil {
			return err
		}
		at := millis(time.Time(r.CreatedAt))
		_, err = tx.ExecContext(ctx, `INSERT INTO alert_rules (org, id, name, kind, condition, format, url, sealed,
			cooldown_seconds, created_at, updated_at, events_after, next_at)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, (SELECT coalesce(max(seq), 0) FROM events WHERE org = ?), ?)`,
			org, r.ID[:], r.Name, string(r.Condition.Kind), gatehouse.EncodeAlertCondition(r.Condition),
			string(r.Destination.Format), r.Destination.URL, sealed, r.CooldownSeconds, at, at, org, at)
		if err != nil {
			return err
		}
		return db.appendAudit(ctx, tx, org, sqlstore.AlertRuleCreated(e, r).Of(r.OrgID, sqlstore.AlertRuleTarget(r.ID, r.Name)))
	})
	if err != nil {
		return gatehouse.AlertRule{}, err
	}
	return db.findAlertRule(ctx, db.read, r.OrgID, r.ID)
}

// ListAlertRules returns an organization's rules, oldest first.
func (db *DB) ListAlertRules(ctx context.Context, orgID uuid.UUID) (_ []gatehouse.AlertRule, err error) {
	defer sqlstore.Label(&err, "Store.ListAlertRules", orgID)
	rules, err := queryAll(ctx, db.read, scanAlertRule, `SELECT `+alertRuleColumns+`
		FROM alert_rules r JOIN organizations o ON o.seq = r.org WHERE o.id = ? ORDER BY r.seq`, orgID[:])
	if rules == nil {
		rules = []gatehouse.AlertRule{}
	}
	return rules, wrap(err)
}

// FindAlertRule returns an organization's rule.
func (db *DB) FindAlertRule(ctx context.Context, orgID, id uuid.UUID) (_ gatehouse.AlertRule, err error) {
	defer sqlstore.Label(&err, "Store.FindAlertRule", orgID, id)
	return db.findAlertRule(ctx, db.read, orgID, id)
}

func (db *DB) findAlertRule(ctx context.Context, q querier, orgID, id uuid.UUID) (gatehouse.AlertRule, error) {
	rules, err := queryAll(ctx, q, scanAlertRule, `SELECT `+alertRuleColumns+`
		FROM alert_rules r JOIN organizations o ON o.seq = r.org WHERE o.id = ? AND r.id = ?`, orgID[:], id[:])
	return firstOf(rules, err, "alert rule", id)
}

// UpdateAlertRule applies c to an organization's rule.
func (db *DB) UpdateAlertRule(ctx context.Context, e gatehouse.AuditEntry, orgID, id uuid.UUID, c gatehouse.AlertRuleChange, sealed []byte, now time.Time) (_ gatehouse.AlertRule, err error) {
	defer sqlstore.Label(&err, "Store.UpdateAlertRule", orgID, id)
	var r gatehouse.AlertRule
	err = db.withTx(ctx, func(tx *sql.Tx) error {
		old, err := db.findAlertRule(ctx, tx, orgID, id)
		if err != nil {
			return err
		}
		set, entry, moved := sqlstore.AlertRuleChanges(old, c, e)
		if len(set) == 0 && sealed == nil {
			r = old
			return nil
		}
		org, err := db.orgSeq(ctx, tx, orgID)
		if err != nil {
			return err
		}
		sets, args := []string{"updated_at = ?"}, []any{millis(now)}
		sets, args = setColumns(sets, args, set)
		if sealed != nil {
			sets = append(sets, "sealed = ?")
			args = append(args, sealed)
		}
		if moved {
			sets = append(sets, "generation = generation + 1", "next_at = ?",
				"events_after = (SELECT coalesce(max(seq), 0) FROM events WHERE org = ?)")
			args = append(args, millis(now), org)
		}
		args = append(args, org, id[:])
		if _, err := tx.ExecContext(ctx, "UPDATE alert_rules SET "+strings.Join(sets, ", ")+" WHERE org = ? AND id = ?", args...); err != nil {
			return err
		}
		if r, err = db.findAlertRule(ctx, tx, orgID, id); err != nil {
			return err
		}
		return db.appendAudit(ctx, tx, org, entry.Of(orgID, sqlstore.AlertRuleTarget(id, r.Name)))
	})
	return r, err
}

// AlertRuleSecret returns the sealed secret of an organization's rule.
func (db *DB) AlertRuleSecret(ctx context.Context, orgID, id uuid.UUID) (_ []byte, err error) {
	defer sqlstore.Label(&err, "Store.AlertRuleSecret", orgID, id)
	return db.sealedOf(ctx, "alert_rules", "alert rule", orgID, id)
}

// DeleteAlertRule deletes an organization's rule and its alerts.
func (db *DB) DeleteAlertRule(ctx context.Context, e gatehouse.AuditEntry, orgID, id uuid.UUID) (err error) {
	defer sqlstore.Label(&err, "Store.DeleteAlertRule", orgID, id)
	return db.withTx(ctx, func(tx *sql.Tx) error {
		org, err := db.orgSeq(ctx, tx, orgID)
		if err != nil {
			return err
		}
		name, err := deleteRow(ctx, tx, "alert_rules", "name", "alert rule", org, id)
		if err != nil {
			return err
		}
		return db.appendAudit(ctx, tx, org, e.Of(orgID, sqlstore.AlertRuleTarget(id, name)))
	})
}

// fireAuditAlerts stores, in the transaction of e, an alert of each of
// the organization's audit rules that names e's action, unless one of the
// same rule and group fired within its cooldown. The one writer makes the
// check and the insert one step.
func (db *DB) fireAuditAlerts(ctx context.Context, q querier, org int64, e gatehouse.AuditEntry) error {
	if ok, err := db.alertTables(ctx, q); !ok {
		return err
	}
	rules, err := queryAll(ctx, q, func(rows *sql.Rows, r *sqlstore.AuditRule) error {
		return rows.Scan(&r.Seq, &r.ID, &r.Name, &r.Condition, &r.Cooldown)
	}, "SELECT seq, id, name, condition, cooldown_seconds FROM alert_rules WHERE org = ? AND kind = 'audit' ORDER BY seq", org)
	if err != nil {
		return err
	}
	for _, r := range rules {
		a, ok := r.Fires(e)
		if !ok {
			continue
		}
		if _, err := insertAlert(ctx, q, org, r.Seq, r.Cooldown, a); err != nil {
			return err
		}
	}
	return nil
}

// insertAlert stores a as an alert of the rule (seq) unless one of its
// group fired within cooldown seconds before it; it reports whether it
// stored it.
func insertAlert(ctx context.Context, q querier, org, rule int64, cooldown int, a gatehouse.Alert) (bool, error) {
	if !a.Test {
		var last sql.NullInt64
		if err := q.QueryRowContext(ctx, "SELECT max(fired_at) FROM alerts WHERE rule = ? AND group_key = ? AND test = 0",
			rule, a.Group).Scan(&last); err != nil {
			return false, err
		}
		if last.Valid && sqlstore.AlertInCooldown(fromMillis(last.Int64), time.Time(a.FiredAt), cooldown) {
			return false, nil
		}
	}
	audit, filters := sqlstore.AlertJSON(a)
	_, err := q.ExecContext(ctx, `INSERT INTO alerts (org, rule, id, kind, test, group_by, group_key, count, window_seconds,
		window_start, window_end, audit, filters, fired_at, status, next_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'pending', ?)`,
		org, rule, a.ID[:], string(a.Kind), a.Test, a.GroupBy, a.Group, a.Count, a.WindowSeconds,
		millis(time.Time(a.WindowStart)), millis(time.Time(a.WindowEnd)), audit, filters, millis(time.Time(a.FiredAt)),
		millis(time.Time(a.FiredAt)))
	if err != nil {
		return false, err
	}
	// A rule keeps its most recent alerts, as an endpoint its deliveries.
	_, err = q.ExecContext(ctx, `DELETE FROM alerts WHERE rule = ? AND status <> 'pending' AND seq <=
		(SELECT seq FROM alerts WHERE rule = ? ORDER BY seq DESC LIMIT 1 OFFSET ?)`, rule, rule, sqlstore.KeptAlerts)
	return err == nil, err
}

// alertTables reports whether the alert tables exist (migration 0022): a
// database being migrated (tests stop at earlier migrations) may not have
// them yet, and then no rule fires and no alert is erased. A database is
// migrated forward only, so a yes is kept.
func (db *DB) alertTables(ctx context.Context, q querier) (bool, error) {
	if db.alertRules.Load() {
		return true, nil
	}
	var n int
	if err := q.QueryRowContext(ctx, "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'alert_rules'").Scan(&n); err != nil || n == 0 {
		return false, err
	}
	db.alertRules.Store(true)
	return true, nil
}

// eraseAlerts deletes the alerts that name an erased player as their
// group.
func (db *DB) eraseAlerts(ctx context.Context, q querier, org int64, platformUserID string) error {
	if ok, err := db.alertTables(ctx, q); !ok {
		return err
	}
	_, err := q.ExecContext(ctx, "DELETE FROM alerts WHERE org = ? AND group_by = 'platformUserId' AND group_key = ?", org, platformUserID)
	return err
}
