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
func (db *DB) CreateOrganization(ctx context.Context, name string) (gatehouse.Organization, error) {
	o, err := sqlstore.NewOrganization(name, db.Now())
	if err != nil {
		return o, err
	}
	_, err = db.pool.Exec(ctx, "INSERT INTO organizations (id, name, created_at) VALUES ($1, $2, $3)", o.ID, o.Name, time.Time(o.CreatedAt))
	return o, wrap(err)
}

// ListOrganizations returns every organization, oldest first.
func (db *DB) ListOrganizations(ctx context.Context) ([]gatehouse.Organization, error) {
	rows, err := db.pool.Query(ctx, "SELECT id, name, created_at FROM organizations ORDER BY seq")
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
func (db *DB) FindOrganization(ctx context.Context, id uuid.UUID) (gatehouse.Organization, error) {
	rows, _ := db.pool.Query(ctx, "SELECT id, name, created_at FROM organizations WHERE id = $1", id)
	o, err := pgx.CollectExactlyOneRow(rows, scanOrganization)
	if errors.Is(err, pgx.ErrNoRows) {
		return o, fmt.Errorf("organization %s: %w", id, gatehouse.ErrNotFound)
	}
	return o, wrap(err)
}

// RenameOrganization renames an organization, or answers ErrNotFound.
func (db *DB) RenameOrganization(ctx context.Context, id uuid.UUID, name string) (gatehouse.Organization, error) {
	name, err := gatehouse.CheckName("name", name)
	if err != nil {
		return gatehouse.Organization{}, err
	}
	rows, _ := db.pool.Query(ctx, "UPDATE organizations SET name = $2 WHERE id = $1 RETURNING id, name, created_at", id, name)
	o, err := pgx.CollectExactlyOneRow(rows, scanOrganization)
	if errors.Is(err, pgx.ErrNoRows) {
		return o, fmt.Errorf("organization %s: %w", id, gatehouse.ErrNotFound)
	}
	return o, wrap(err)
}

func scanOrganization(row pgx.CollectableRow) (gatehouse.Organization, error) {
	var (
		o  gatehouse.Organization
		at time.Time
	)
	err := row.Scan(&o.ID, &o.Name, &at)
	o.CreatedAt = gatehouse.Time(at.UTC())
	return o, err
}
