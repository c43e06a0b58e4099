package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"strings"

	"github.com/gatehouse/gatehouse"
	"github.com/gatehouse/gatehouse/internal/sqlstore"
	"github.com/google/uuid"
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
	var target any
	if e.Target.ID != uuid.Nil {
		target = e.Target.ID[:]
	}
	_, err = q.ExecContext(ctx, `INSERT INTO audit_log (id, org, at, action, actor_type, actor_id, actor_label,
			target_type, target_id, target_name, changes, request_id, client_address)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		e.ID[:], org, millis(e.At), e.Action, e.Actor.Type, sqlstore.OptID(e.Actor.ID), e.Actor.Label,
		e.Target.Type, target, e.Target.Name, string(changes), e.RequestID, e.ClientAddress)
	if seq, ok := org.(int64); ok && err == nil {
		// The audit rules that name the action fire in the transaction
		// of the change (docs/api.md, "Alert rules").
		err = db.fireAuditAlerts(ctx, q, seq, e)
	}
	return err
}

// AppendAudit appends an entry that records no change of its own.
func (db *DB) AppendAudit(ctx context.Context, e gatehouse.AuditEntry) (err error) {
	defer sqlstore.Label(&err, "Store.AppendAudit", e.OrgID)
	return db.withTx(ctx, func(tx *sql.Tx) error {
		var org any
		if e.OrgID != uuid.Nil {
			seq, err := db.orgSeq(ctx, tx, e.OrgID)
			if err != nil {
				return err
			}
			org = seq
		}
		return db.appendAudit(ctx, tx, org, e)
	})
}

// ListAuditEntries returns a page of an organization's audit log.
func (db *DB) ListAuditEntries(ctx context.Context, orgID uuid.UUID, f gatehouse.AuditFilter) (_ gatehouse.AuditPage, err error) {
	defer sqlstore.Label(&err, "Store.ListAuditEntries", orgID)
	org, err := db.orgSeq(ctx, db.read, orgID)
	if err != nil {
		return gatehouse.AuditPage{}, err
	}
	where, args := []string{"org = ?"}, []any{org}
	add := func(cond string, arg ...any) { where, args = append(where, cond), append(args, arg...) }
	if f.Action != "" {
		add("action = ?", f.Action)
	}
	if f.ActorID != nil {
		add("actor_id = ?", f.ActorID[:])
	}
	if f.TargetID != nil {
		add("target_id = ?", f.TargetID[:])
	}
	if f.From != nil {
		add("at >= ?", millis(*f.From))
	}
	if f.To != nil {
		add("at < ?", millis(*f.To))
	}
	if f.After != nil {
		add("(at < ? OR (at = ? AND id < ?))", millis(f.After.At), millis(f.After.At), f.After.ID[:])
	}
	rows, err := db.read.QueryContext(ctx, `SELECT id, at, action, actor_type, actor_id, actor_label,
			target_type, target_id, target_name, changes, request_id, client_address
		FROM audit_log WHERE `+strings.Join(where, " AND ")+` ORDER BY at DESC, id DESC LIMIT ?`, append(args, f.Limit+1)...)
	if err != nil {
		return gatehouse.AuditPage{}, wrap(err)
	}
	defer rows.Close()
	var entries []gatehouse.AuditEntry
	for rows.Next() {
		var (
			e                 gatehouse.AuditEntry
			at                int64
			actorID, targetID []byte
			changes           string
		)
		if err := rows.Scan(&e.ID, &at, &e.Action, &e.Actor.Type, &actorID, &e.Actor.Label,
			&e.Target.Type, &targetID, &e.Target.Name, &changes, &e.RequestID, &e.ClientAddress); err != nil {
			return gatehouse.AuditPage{}, wrap(err)
		}
		e.OrgID, e.At = orgID, fromMillis(at)
		if actorID != nil {
			id, err := uuid.FromBytes(actorID)
			if err != nil {
				return gatehouse.AuditPage{}, fmt.Errorf("audit actor id: %w", err)
			}
			e.Actor.ID = &id
		}
		if targetID != nil {
			copy(e.Target.ID[:], targetID)
		}
		if e.Changes, err = sqlstore.ReadAuditChanges([]byte(changes)); err != nil {
			return gatehouse.AuditPage{}, err
		}
		entries = append(entries, e)
	}
	if err := rows.Err(); err != nil {
		return gatehouse.AuditPage{}, wrap(err)
	}
	return sqlstore.AuditPage(entries, f.Limit), nil
}
