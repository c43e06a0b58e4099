package postgres

import (
	"context"
	"errors"
	"fmt"

	"github.com/gatehouse/gatehouse"
	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
)

// The helpers here read and delete the rows an organization owns by id
// (webhooks, alert rules): each names its table, and the noun its
// not-found error starts with ("webhook", "alert rule"). Table and column
// names are the callers' constants, never input.

// oneOf reads the one row of rows, read by id, with scan, or returns noun
// id's ErrNotFound when there is none.
func oneOf[T any](rows pgx.Rows, scan pgx.RowToFunc[T], noun string, id uuid.UUID) (T, error) {
	v, err := pgx.CollectExactlyOneRow(rows, scan)
	if errors.Is(err, pgx.ErrNoRows) {
		return v, fmt.Errorf("%s %s: %w", noun, id, gatehouse.ErrNotFound)
	}
	return v, wrap(err)
}

// rowSeq returns the seq of the organization's (org) row of table by id.
func rowSeq(ctx context.Context, q querier, table, noun string, org int64, id uuid.UUID) (int64, error) {
	var seq int64
	err := q.QueryRow(ctx, "SELECT seq FROM "+table+" WHERE org = $1 AND id = $2", org, id).Scan(&seq)
	if errors.Is(err, pgx.ErrNoRows) {
		return 0, fmt.Errorf("%s %s: %w", noun, id, gatehouse.ErrNotFound)
	}
	return seq, err
}

// lockedCount locks the organization's (org) row, so that one row of
// table is made at a time per organization and the count holds, and
// returns how many rows of table it has.
func lockedCount(ctx context.Context, tx pgx.Tx, table string, org int64) (int, error) {
	if _, err := tx.Exec(ctx, "SELECT 1 FROM organizations WHERE seq = $1 FOR UPDATE", org); err != nil {
		return 0, err
	}
	var n int
	err := tx.QueryRow(ctx, "SELECT count(*) FROM "+table+" WHERE org = $1", org).Scan(&n)
	return n, err
}

// sealedOf returns the sealed secrets of an organization's row of table.
func (db *DB) sealedOf(ctx context.Context, table, noun string, orgID, id uuid.UUID) ([]byte, error) {
	var sealed []byte
	err := db.pool.QueryRow(ctx, `SELECT t.sealed FROM `+table+` t JOIN organizations o ON o.seq = t.org
		WHERE o.id = $1 AND t.id = $2`, orgID, id).Scan(&sealed)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, fmt.Errorf("%s %s: %w", noun, id, gatehouse.ErrNotFound)
	}
	return sealed, wrap(err)
}

// deleteRow deletes the organization's (org) row of table by id and
// returns its column named (what its audit target is named by).
func deleteRow(ctx context.Context, tx pgx.Tx, table, column, noun string, org int64, id uuid.UUID) (string, error) {
	var name string
	err := tx.QueryRow(ctx, "DELETE FROM "+table+" WHERE org = $1 AND id = $2 RETURNING "+column, org, id).Scan(&name)
	if errors.Is(err, pgx.ErrNoRows) {
		return "", fmt.Errorf("%s %s: %w", noun, id, gatehouse.ErrNotFound)
	}
	return name, err
}
