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

// CreateOrganization stores a new organization.
func (db *DB) CreateOrganization(ctx context.Context, e gatehouse.AuditEntry, name string) (_ gatehouse.Organization, err error) {
	defer sqlstore.Label(&err, "Store.CreateOrganization")
	o, err := sqlstore.NewOrganization(name, db.Now())
	if err != nil {
		return o, err
	}
	err = db.withTx(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, "INSERT INTO organizations (id, name, created_at) VALUES (?, ?, ?)",
			o.ID[:], o.Name, millis(time.Time(o.CreatedAt)))
		if err != nil {
			return err
		}
		seq, err := res.LastInsertId()
		if err != nil {
			return err
		}
		return db.appendAudit(ctx, tx, seq, e.Of(o.ID, gatehouse.AuditTarget{Type: gatehouse.TargetOrganization, ID: o.ID, Name: o.Name}))
	})
	return o, err
}

// ListOrganizations returns every organization, oldest first.
func (db *DB) ListOrganizations(ctx context.Context) (_ []gatehouse.Organization, err error) {
	defer sqlstore.Label(&err, "Store.ListOrganizations")
	rows, err := db.read.QueryContext(ctx, "SELECT id, name, created_at, retention_days FROM organizations WHERE seq <> 0 ORDER BY seq")
	if err != nil {
		return nil, wrap(err)
	}
	defer rows.Close()
	orgs := []gatehouse.Organization{}
	for rows.Next() {
		o, err := scanOrganization(rows)
		if err != nil {
			return nil, wrap(err)
		}
		orgs = append(orgs, o)
	}
	return orgs, wrap(rows.Err())
}

// FindOrganization returns one organization, or ErrNotFound.
func (db *DB) FindOrganization(ctx context.Context, id uuid.UUID) (_ gatehouse.Organization, err error) {
	defer sqlstore.Label(&err, "Store.FindOrganization", id)
	o, err := scanOrganization(db.read.QueryRowContext(ctx, "SELECT id, name, created_at, retention_days FROM organizations WHERE id = ? AND seq <> 0", id[:]))
	if errors.Is(err, sql.ErrNoRows) {
		return o, fmt.Errorf("organization %s: %w", id, gatehouse.ErrNotFound)
	}
	return o, wrap(err)
}

type scanner interface{ Scan(dest ...any) error }

func scanOrganization(s scanner) (gatehouse.Organization, error) {
	var (
		o  gatehouse.Organization
		ms int64
	)
	err := s.Scan(&o.ID, &o.Name, &ms, &o.RetentionDays)
	o.CreatedAt = gatehouse.Time(fromMillis(ms))
	return o, err
}

// RenameOrganization renames an organization, or answers ErrNotFound.
func (db *DB) RenameOrganization(ctx context.Context, e gatehouse.AuditEntry, id uuid.UUID, name string) (_ gatehouse.Organization, err error) {
	defer sqlstore.Label(&err, "Store.RenameOrganization", id)
	name, err = gatehouse.CheckName("name", name)
	if err != nil {
		return gatehouse.Organization{}, err
	}
	var o gatehouse.Organization
	err = db.withTx(ctx, func(tx *sql.Tx) error {
		var (
			seq int64
			old string
		)
		err := tx.QueryRowContext(ctx, "SELECT seq, name FROM organizations WHERE id = ?", id[:]).Scan(&seq, &old)
		if errors.Is(err, sql.ErrNoRows) {
			return fmt.Errorf("organization %s: %w", id, gatehouse.ErrNotFound)
		}
		if err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, "UPDATE organizations SET name = ? WHERE seq = ?", name, seq); err != nil {
			return err
		}
		if o, err = scanOrganization(tx.QueryRowContext(ctx, "SELECT id, name, created_at, retention_days FROM organizations WHERE seq = ?", seq)); err != nil || old == name {
			return err
		}
		return db.appendAudit(ctx, tx, seq, e.Of(id, gatehouse.AuditTarget{Type: gatehouse.TargetOrganization, ID: id, Name: name}).Change("name", old, name))
	})
	return o, err
}
