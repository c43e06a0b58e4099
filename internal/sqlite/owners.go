package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/gatehouse/gatehouse"
	"github.com/gatehouse/gatehouse/internal/sqlstore"
	"github.com/google/uuid"
)

// OrgOfAPIKey returns the organization that owns the key, or ErrNotFound.
func (db *DB) OrgOfAPIKey(ctx context.Context, id uuid.UUID) (_ uuid.UUID, err error) {
	defer sqlstore.Label(&err, "Store.OrgOfAPIKey", id)
	return db.ownerOf(ctx, "api key", `SELECT o.id FROM api_keys t JOIN organizations o ON o.seq = t.org WHERE t.id = ?`, id)
}

// OrgOfLocation returns the organization that owns the location, or ErrNotFound.
func (db *DB) OrgOfLocation(ctx context.Context, id uuid.UUID) (_ uuid.UUID, err error) {
	defer sqlstore.Label(&err, "Store.OrgOfLocation", id)
	return db.ownerOf(ctx, "location", `SELECT o.id FROM locations t JOIN organizations o ON o.seq = t.org WHERE t.id = ?`, id)
}

// OrgOfAccessPoint returns the organization that owns the access point, or ErrNotFound.
func (db *DB) OrgOfAccessPoint(ctx context.Context, id uuid.UUID) (_ uuid.UUID, err error) {
	defer sqlstore.Label(&err, "Store.OrgOfAccessPoint", id)
	return db.ownerOf(ctx, "access point", `SELECT o.id FROM access_points t JOIN organizations o ON o.seq = t.org WHERE t.id = ?`, id)
}

func (db *DB) ownerOf(ctx context.Context, what, query string, id uuid.UUID) (uuid.UUID, error) {
	var org uuid.UUID
	err := db.read.QueryRowContext(ctx, query, id[:]).Scan(&org)
	if errors.Is(err, sql.ErrNoRows) {
		return org, fmt.Errorf("%s %s: %w", what, id, gatehouse.ErrNotFound)
	}
	return org, wrap(err)
}

// OrgOfCommand returns the organization of an issued command. It asks
// each organization's primary key range rather than scan the commands.
func (db *DB) OrgOfCommand(ctx context.Context, id uuid.UUID) (_ uuid.UUID, err error) {
	defer sqlstore.Label(&err, "Store.OrgOfCommand", id)
	var org uuid.UUID
	err = db.read.QueryRowContext(ctx, `SELECT o.id FROM organizations o
		WHERE EXISTS (SELECT 1 FROM commands c WHERE c.org = o.seq AND c.id = ? AND c.issued = 1)`, id[:]).Scan(&org)
	if errors.Is(err, sql.ErrNoRows) {
		return uuid.Nil, fmt.Errorf("command %s: %w", id, gatehouse.ErrNotFound)
	}
	return org, wrap(err)
}
