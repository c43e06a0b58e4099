package postgres

import (
	"context"
	"fmt"
	"strings"

	"github.com/gatehouse/gatehouse"
	"github.com/gatehouse/gatehouse/internal/sqlstore"
	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
)

// appendAudit inserts e, completed, in the transaction of the change it
// records. org is the organization's seq, or nil for none.
func (db *DB) appendAudit(ctx context.Context, q querier, org any, e gatehouse.AuditEntry) error {
	e, err := e.Complete(db.Now())
	if err != nil {
		return err
	}
	changes, err := sqlstore.AuditChanges(e)
	if err != nil {
		return err
	}
	var target *uuid.UUID
	if e.Target.ID != uuid.Nil {
		target = &e.Target.ID
	}
	_, err = q.Exec(ctx, `INSERT INTO audit_log (id, org, at, action, actor_type, actor_id, actor_label,
			target_type, target_id, target_name, changes, request_id, client_address)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)`,
		e.ID, org, e.At, string(e.Action), string(e.Actor.Type), e.Actor.ID, e.Actor.Label,
		e.Target.Type, target, e.Target.Name, string(changes), e.RequestID, e.ClientAddress)
	if seq, ok := org.(int64); ok && err == nil {
		// The audit rules that name the action fire in the transaction
		// of the change (docs/api.md, "Alert rules").
		err = db.fireAuditAlerts(ctx, q, seq, e)
	}
	return err
}

// appendAuditIn appends e in the log of its organization e.OrgID.
func (db *DB) appendAuditIn(ctx context.Context, tx pgx.Tx, e gatehouse.AuditEntry) error {
	var org any
	if e.OrgID != uuid.Nil {
		seq, err := db.orgSeq(ctx, tx, e.OrgID)
		if err != nil {
			return err
		}
		org = seq
	}
	return db.appendAudit(ctx, tx, org, e)
}

// AppendAudit appends an entry that records no change of its own.
func (db *DB) AppendAudit(ctx context.Context, e gatehouse.AuditEntry) (err error) {
	defer sqlstore.Label(&err, "Store.AppendAudit", e.OrgID)
	return db.withTx(ctx, func(tx pgx.Tx) error { return db.appendAuditIn(ctx, tx, e) })
}

// ListAuditEntries returns a page of an organization's audit log.
func (db *DB) ListAuditEntries(ctx context.Context, orgID uuid.UUID, f gatehouse.AuditFilter) (_ gatehouse.AuditPage, err error) {
	defer sqlstore.Label(&err, "Store.ListAuditEntries", orgID)
	org, err := db.orgSeq(ctx, db.pool, orgID)
	if err != nil {
		return gatehouse.AuditPage{}, err
	}
	where, args := []string{"org = $1"}, []any{org}
	add := func(cond string, arg any) {
		args = append(args, arg)
		where = append(where, strings.ReplaceAll(cond, "$?", fmt.Sprintf("$%d", len(args))))
	}
	if f.Action != "" {
		add("action = $?", string(f.Action))
	}
	if f.ActorID != nil {
		add("actor_id = $?", *f.ActorID)
	}
	if f.TargetID != nil {
		add("target_id = $?", *f.TargetID)
	}
	if f.From != nil {
		add("at >= $?", *f.From)
	}
	if f.To != nil {
		add("at < $?", *f.To)
	}
	if f.After != nil {
		add("at <= $?", f.After.At)
		add(fmt.Sprintf("(at, id) < ($%d, $?)", len(args)), f.After.ID)
	}
	args = append(args, f.Limit+1)
	rows, err := db.pool.Query(ctx, `SELECT id, at, action, actor_type, actor_id, actor_label,
			target_type, target_id, target_name, changes, request_id, client_address
		FROM audit_log WHERE `+strings.Join(where, " AND ")+fmt.Sprintf(` ORDER BY at DESC, id DESC LIMIT $%d`, len(args)), args...)
	if err != nil {
		return gatehouse.AuditPage{}, wrap(err)
	}
	defer rows.Close()
	var entries []gatehouse.AuditEntry
	for rows.Next() {
		var (
			e        gatehouse.AuditEntry
			targetID *uuid.UUID
			changes  []byte
		)
		if err := rows.Scan(&e.ID, &e.At, &e.Action, &e.Actor.Type, &e.Actor.ID, &e.Actor.Label,
			&e.Target.Type, &targetID, &e.Target.Name, &changes, &e.RequestID, &e.ClientAddress); err != nil {
			return gatehouse.AuditPage{}, wrap(err)
		}
		e.OrgID, e.At = orgID, e.At.UTC()
		if targetID != nil {
			e.Target.ID = *targetID
		}
		if e.Changes, err = sqlstore.ReadAuditChanges(changes); err != nil {
			return gatehouse.AuditPage{}, err
		}
		entries = append(entries, e)
	}
	if err := rows.Err(); err != nil {
		return gatehouse.AuditPage{}, wrap(err)
	}
	return sqlstore.AuditPage(entries, f.Limit), nil
}
