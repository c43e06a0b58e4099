package postgres

import (
	"context"
	"errors"
	"fmt"

	"github.com/gatehouse/gatehouse"
	"github.com/gatehouse/gatehouse/internal/sqlstore"
	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
)

// OrgOfAPIKey returns the organization that owns the key, or ErrNotFound.
func (db *DB) OrgOfAPIKey(ctx context.Context, id uuid.UUID) (_ uuid.UUID, err error) {
	defer sqlstore.Label(&err, "Store.OrgOfAPIKey", id)
	return db.ownerOf(ctx, "api key", `SELECT o.id FROM api_keys t JOIN organizations o ON o.seq = t.org WHERE t.id = $1`, id)
}

// OrgOfUser returns the organization of the dashboard user, or
// ErrNotFound: how a router finds the shard of a session whose entry names
// no organization (internal/shards).
func (db *DB) OrgOfUser(ctx context.Context, id uuid.UUID) (_ uuid.UUID, err error) {
	defer sqlstore.Label(&err, "Store.OrgOfUser", id)
	return db.ownerOf(ctx, "user", `SELECT o.id FROM users t JOIN organizations o ON o.seq = t.org WHERE t.id = $1`, id)
}

// OrgOfLocation returns the organization that owns the location, or ErrNotFound.
func (db *DB) OrgOfLocation(ctx context.Context, id uuid.UUID) (_ uuid.UUID, err error) {
	defer sqlstore.Label(&err, "Store.OrgOfLocation", id)
	return db.ownerOf(ctx, "location", `SELECT o.id FROM locations t JOIN organizations o ON o.seq = t.org WHERE t.id = $1`, id)
}

// OrgOfAccessPoint returns the organization that owns the access point, or ErrNotFound.
func (db *DB) OrgOfAccessPoint(ctx context.Context, id uuid.UUID) (_ uuid.UUID, err error) {
	defer sqlstore.Label(&err, "Store.OrgOfAccessPoint", id)
	return db.ownerOf(ctx, "access point", `SELECT o.id FROM access_points t JOIN organizations o ON o.seq = t.org WHERE t.id = $1`, id)
}

// OrgOfCommand returns the organization of an issued command, or
// ErrNotFound (a command only known from ingested events included).
func (db *DB) OrgOfCommand(ctx context.Context, id uuid.UUID) (_ uuid.UUID, err error) {
	defer sqlstore.Label(&err, "Store.OrgOfCommand", id)
	return db.ownerOf(ctx, "command", `SELECT o.id FROM commands t JOIN organizations o ON o.seq = t.org WHERE t.id = $1 AND t.issued LIMIT 1`, id)
}

func (db *DB) ownerOf(ctx context.Context, what, query string, id uuid.UUID) (uuid.UUID, error) {
	var org uuid.UUID
	err := db.pool.QueryRow(ctx, query, id).Scan(&org)
	if errors.Is(err, pgx.ErrNoRows) {
		return org, fmt.Errorf("%s %s: %w", what, id, gatehouse.ErrNotFound)
	}
	return org, wrap(err)
}
