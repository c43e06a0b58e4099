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

// CreateOrganization stores a new organization.
func (db *DB) CreateOrganization(ctx context.Context, e gatehouse.AuditEntry, name string) (_ gatehouse.Organization, err error) {
	defer sqlstore.Label(&err, "Store.CreateOrganization")
	o, err := sqlstore.NewOrganization(name, db.Now())
	if err != nil {
		return o, err
	}
	return db.createOrganization(ctx, e, o)
}

// ListOrganizations returns every organization, oldest first.
func (db *DB) ListOrganizations(ctx context.Context) (_ []gatehouse.Organization, err error) {
	defer sqlstore.Label(&err, "Store.ListOrganizations")
	rows, err := db.pool.Query(ctx, "SELECT id, name, created_at, retention_days FROM organizations ORDER BY seq")
	if err != nil {
		return nil, wrap(err)
	}
	orgs, err := pgx.CollectRows(rows, scanOrganization)
	if orgs == nil {
		orgs = []gatehouse.Organization{}
	}
	return orgs, wrap(err)
}

// FindOrganization returns one organization, or ErrNotFound.
func (db *DB) FindOrganization(ctx context.Context, id uuid.UUID) (_ gatehouse.Organization, err error) {
	defer sqlstore.Label(&err, "Store.FindOrganization", id)
	rows, _ := db.pool.Query(ctx, "SELECT id, name, created_at, retention_days FROM organizations WHERE id = $1", id)
	o, err := pgx.CollectExactlyOneRow(rows, scanOrganization)
	if errors.Is(err, pgx.ErrNoRows) {
		return o, fmt.Errorf("organization %s: %w", id, gatehouse.ErrNotFound)
	}
	return o, wrap(err)
}

// RenameOrganization renames an organization, or answers ErrNotFound.
func (db *DB) RenameOrganization(ctx context.Context, e gatehouse.AuditEntry, id uuid.UUID, name string) (_ gatehouse.Organization, err error) {
	defer sqlstore.Label(&err, "Store.RenameOrganization", id)
	name, err = gatehouse.CheckName("name", name)
	if err != nil {
		return gatehouse.Organization{}, err
	}
	var o gatehouse.Organization
	err = db.withTx(ctx, func(tx pgx.Tx) error {
		var (
			seq int64
			old string
		)
		err := tx.QueryRow(ctx, "SELECT seq, name FROM organizations WHERE id = $1 FOR NO KEY UPDATE", id).Scan(&seq, &old)
		if errors.Is(err, pgx.ErrNoRows) {
			return fmt.Errorf("organization %s: %w", id, gatehouse.ErrNotFound)
		}
		if err != nil {
			return err
		}
		rows, _ := tx.Query(ctx, "UPDATE organizations SET name = $2 WHERE seq = $1 RETURNING id, name, created_at, retention_days", seq, name)
		if o, err = pgx.CollectExactlyOneRow(rows, scanOrganization); err != nil || old == name {
			return err
		}
		return db.appendAudit(ctx, tx, seq, e.Of(id, gatehouse.AuditTarget{Type: gatehouse.TargetOrganization, ID: id, Name: name}).Change("name", old, name))
	})
	return o, err
}

func scanOrganization(row pgx.CollectableRow) (gatehouse.Organization, error) {
	var (
		o  gatehouse.Organization
		at time.Time
	)
	err := row.Scan(&o.ID, &o.Name, &at, &o.RetentionDays)
	o.CreatedAt = gatehouse.Time(at.UTC())
	return o, err
}
