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

const alertRuleColumns = `r.id, o.id, r.name, r.condition, r.format, r.url, r.cooldown_seconds, r.created_at, r.updated_at,
	r.events_txn, r.events_seq, r.generation`

// feedHead is the feed position of the organization org below which
// every row is read already, or not (migration 0012): the oldest
// transaction still running, in the organization's positions (horizon),
// as the bigint the webhooks' and alert rules' positions are kept in.
func feedHead(org string) string {
	return horizon(org) + `::text::bigint`
}

func scanAlertRule(row pgx.CollectableRow) (gatehouse.AlertRule, error) {
	var (
		r                 gatehouse.AlertRule
		condition, format string
		created, updated  time.Time
		txn               int64
	)
	if err := row.Scan(&r.ID, &r.OrgID, &r.Name, &condition, &format, &r.Destination.URL, &r.CooldownSeconds,
		&created, &updated, &txn, &r.EventsAfter.Seq, &r.Generation); err != nil {
		return r, err
	}
	r.EventsAfter.Txn = uint64(txn)
	r.CreatedAt, r.UpdatedAt = gatehouse.Time(created.UTC()), gatehouse.Time(updated.UTC())
	return r, sqlstore.FillAlertRule(&r, condition, format)
}

// CreateAlertRule stores an organization's rule at the head of its feed.
func (db *DB) CreateAlertRule(ctx context.Context, e gatehouse.AuditEntry, r gatehouse.AlertRule, sealed []byte) (_ gatehouse.AlertRule, err error) {
	defer sqlstore.Label(&err, "Store.CreateAlertRule", r.OrgID)
	org, err := db.orgSeq(ctx, db.pool, r.OrgID)
	if err != nil {
		return gatehouse.AlertRule{}, err
	}
	err = db.withTx(ctx, func(tx pgx.Tx) error {
		n, err := lockedCount(ctx, tx, "alert_rules", org)
		if err != nil {
			return err
		}
		if err := sqlstore.CheckAlertRuleCount(n); err != nil {
			return err
		}
		at := time.Time(r.CreatedAt)
		_, err = tx.Exec(ctx, `INSERT INTO alert_rules (org, id, name, kind, condition, format, url, sealed,
			cooldown_seconds, created_at, updated_at, events_txn, events_seq, next_at)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $10, `+feedHead("$1")+`, 0, $10)`,
			org, r.ID, r.Name, string(r.Condition.Kind), gatehouse.EncodeAlertCondition(r.Condition),
			string(r.Destination.Format), r.Destination.URL, sealed, r.CooldownSeconds, at)
		if err != nil {
			return err
		}
		return db.appendAudit(ctx, tx, org, sqlstore.AlertRuleCreated(e, r).Of(r.OrgID, sqlstore.AlertRuleTarget(r.ID, r.Name)))
	})
	if err != nil {
		return gatehouse.AlertRule{}, err
	}
	return findAlertRule(ctx, db.pool, r.OrgID, r.ID)
}

// ListAlertRules returns an organization's rules, oldest first.
func (db *DB) ListAlertRules(ctx context.Context, orgID uuid.UUID) (_ []gatehouse.AlertRule, err error) {
	defer sqlstore.Label(&err, "Store.ListAlertRules", orgID)
	rows, _ := db.pool.Query(ctx, `SELECT `+alertRuleColumns+`
		FROM alert_rules r JOIN organizations o ON o.seq = r.org WHERE o.id = $1 ORDER BY r.seq`, orgID)
	rules, err := pgx.CollectRows(rows, scanAlertRule)
	if rules == nil {
		rules = []gatehouse.AlertRule{}
	}
	return rules, wrap(err)
}

// FindAlertRule returns an organization's rule.
func (db *DB) FindAlertRule(ctx context.Context, orgID, id uuid.UUID) (_ gatehouse.AlertRule, err error) {
	defer sqlstore.Label(&err, "Store.FindAlertRule", orgID, id)
	return findAlertRule(ctx, db.pool, orgID, id)
}

func findAlertRule(ctx context.Context, q querier, orgID, id uuid.UUID) (gatehouse.AlertRule, error) {
	rows, _ := q.Query(ctx, `SELECT `+alertRuleColumns+`
		FROM alert_rules r JOIN organizations o ON o.seq = r.org WHERE o.id = $1 AND r.id = $2`, orgID, id)
	return oneOf(rows, scanAlertRule, "alert rule", id)
}

// UpdateAlertRule applies c to an organization's rule.
func (db *DB) UpdateAlertRule(ctx context.Context, e gatehouse.AuditEntry, orgID, id uuid.UUID, c gatehouse.AlertRuleChange, sealed []byte, now time.Time) (_ gatehouse.AlertRule, err error) {
	defer sqlstore.Label(&err, "Store.UpdateAlertRule", orgID, id)
	org, err := db.orgSeq(ctx, db.pool, orgID)
	if err != nil {
		return gatehouse.AlertRule{}, err
	}
	var r gatehouse.AlertRule
	err = db.withTx(ctx, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, "SELECT 1 FROM alert_rules WHERE org = $1 AND id = $2 FOR UPDATE", org, id); err != nil {
			return err
		}
		old, err := findAlertRule(ctx, tx, orgID, id)
		if err != nil {
			return err
		}
		set, entry, moved := sqlstore.AlertRuleChanges(old, c, e)
		if len(set) == 0 && sealed == nil {
			r = old
			return nil
		}
		sets, args := []string{"updated_at = $1"}, []any{now}
		arg := func(v any) string {
			args = append(args, v)
			return "$" + strconv.Itoa(len(args))
		}
		orgArg := arg(org)
		for _, s := range set {
			sets = append(sets, s.Column+" = "+arg(s.Value))
		}
		if sealed != nil {
			sets = append(sets, "sealed = "+arg(sealed))
		}
		if moved {
			sets = append(sets, "generation = generation + 1", "next_at = "+arg(now), "events_txn = "+feedHead(orgArg), "events_seq = 0")
		}
		q := "UPDATE alert_rules SET " + strings.Join(sets, ", ") + " WHERE org = " + orgArg + " AND id = " + arg(id)
		if _, err := tx.Exec(ctx, q, args...); err != nil {
			return err
		}
		if r, err = findAlertRule(ctx, tx, orgID, id); err != nil {
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
	org, err := db.orgSeq(ctx, db.pool, orgID)
	if err != nil {
		return err
	}
	return db.withTx(ctx, func(tx pgx.Tx) error {
		name, err := deleteRow(ctx, tx, "alert_rules", "name", "alert rule", org, id)
		if err != nil {
			return err
		}
		return db.appendAudit(ctx, tx, org, e.Of(orgID, sqlstore.AlertRuleTarget(id, name)))
	})
}

// fireAuditAlerts stores, in the transaction of e, an alert of each of
// the organization's audit rules that names e's action, unless one of the
// same rule and group fired within its cooldown. Each matching rule's row
// is locked first, so that two changes committing at once cannot both
// fire within one cooldown.
func (db *DB) fireAuditAlerts(ctx context.Context, q querier, org int64, e gatehouse.AuditEntry) error {
	if ok, err := db.alertTables(ctx, q); !ok {
		return err
	}
	rows, _ := q.Query(ctx, "SELECT seq, id, name, condition, cooldown_seconds FROM alert_rules WHERE org = $1 AND kind = 'audit' ORDER BY seq", org)
	rules, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (sqlstore.AuditRule, error) {
		var r sqlstore.AuditRule
		return r, row.Scan(&r.Seq, &r.ID, &r.Name, &r.Condition, &r.Cooldown)
	})
	if err != nil {
		return err
	}
	for _, r := range rules {
		a, ok := r.Fires(e)
		if !ok {
			continue
		}
		if _, err := q.Exec(ctx, "SELECT 1 FROM alert_rules WHERE seq = $1 FOR UPDATE", r.Seq); err != nil {
			return err
		}
		if _, err := insertAlert(ctx, q, org, r.Seq, r.Cooldown, a); err != nil {
			return err
		}
	}
	return nil
}

// insertAlert stores a as an alert of the rule (seq) unless one of its
// group fired within cooldown seconds before it; it reports whether it
// stored it. The caller holds the rule's row lock.
func insertAlert(ctx context.Context, q querier, org, rule int64, cooldown int, a gatehouse.Alert) (bool, error) {
	if !a.Test {
		var last *time.Time
		if err := q.QueryRow(ctx, "SELECT max(fired_at) FROM alerts WHERE rule = $1 AND group_key = $2 AND NOT test",
			rule, a.Group).Scan(&last); err != nil {
			return false, err
		}
		if last != nil && sqlstore.AlertInCooldown(*last, time.Time(a.FiredAt), cooldown) {
			return false, nil
		}
	}
	audit, filters := sqlstore.AlertJSON(a)
	_, err := q.Exec(ctx, `INSERT INTO alerts (org, rule, id, kind, test, group_by, group_key, count, window_seconds,
		window_start, window_end, audit, filters, fired_at, status, next_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, 'pending', $14)`,
		org, rule, a.ID, string(a.Kind), a.Test, a.GroupBy, a.Group, a.Count, a.WindowSeconds,
		time.Time(a.WindowStart), time.Time(a.WindowEnd), audit, filters, time.Time(a.FiredAt))
	if err != nil {
		return false, err
	}
	// A rule keeps its most recent alerts, as an endpoint its deliveries.
	_, err = q.Exec(ctx, `DELETE FROM alerts WHERE rule = $1 AND status <> 'pending' AND seq <=
		(SELECT seq FROM alerts WHERE rule = $1 ORDER BY seq DESC LIMIT 1 OFFSET $2)`, rule, sqlstore.KeptAlerts)
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
	var exists bool
	if err := q.QueryRow(ctx, "SELECT to_regclass('alert_rules') IS NOT NULL").Scan(&exists); err != nil || !exists {
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
	_, err := q.Exec(ctx, "DELETE FROM alerts WHERE org = $1 AND group_by = 'platformUserId' AND group_key = $2", org, platformUserID)
	return err
}
