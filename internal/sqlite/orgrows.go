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

// The helpers here read and delete the rows an organization owns by id
// (webhooks, alert rules): each names its table, and the noun its
// not-found error starts with ("webhook", "alert rule"). Table and column
// names are the callers' constants, never input.

// firstOf returns the first of rows, read by id, or noun id's ErrNotFound
// when there is none.
func firstOf[T any](rows []T, err error, noun string, id uuid.UUID) (T, error) {
	var zero T
	if err != nil {
		return zero, wrap(err)
	}
	if len(rows) == 0 {
		return zero, fmt.Errorf("%s %s: %w", noun, id, gatehouse.ErrNotFound)
	}
	return rows[0], nil
}

// rowSeq returns the seq of the organization's (org) row of table by id.
func rowSeq(ctx context.Context, q querier, table, noun string, org int64, id uuid.UUID) (int64, error) {
	var seq int64
	err := q.QueryRowContext(ctx, "SELECT seq FROM "+table+" WHERE org = ? AND id = ?", org, id[:]).Scan(&seq)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, fmt.Errorf("%s %s: %w", noun, id, gatehouse.ErrNotFound)
	}
	return seq, err
}

// countRows returns how many rows of table the organization (org) has.
func countRows(ctx context.Context, q querier, table string, org int64) (int, error) {
	var n int
	err := q.QueryRowContext(ctx, "SELECT count(*) FROM "+table+" WHERE org = ?", org).Scan(&n)
	return n, err
}

// sealedOf returns the sealed secrets of an organization's row of table.
func (db *DB) sealedOf(ctx context.Context, table, noun string, orgID, id uuid.UUID) ([]byte, error) {
	var sealed []byte
	err := db.read.QueryRowContext(ctx, `SELECT t.sealed FROM `+table+` t JOIN organizations o ON o.seq = t.org
		WHERE o.id = ? AND t.id = ?`, orgID[:], id[:]).Scan(&sealed)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("%s %s: %w", noun, id, gatehouse.ErrNotFound)
	}
	return sealed, wrap(err)
}

// deleteRow deletes the organization's (org) row of table by id and
// returns its column named (what its audit target is named by).
func deleteRow(ctx context.Context, tx *sql.Tx, table, column, noun string, org int64, id uuid.UUID) (string, error) {
	var name string
	err := tx.QueryRowContext(ctx, "DELETE FROM "+table+" WHERE org = ? AND id = ? RETURNING "+column, org, id[:]).Scan(&name)
	if errors.Is(err, sql.ErrNoRows) {
		return "", fmt.Errorf("%s %s: %w", noun, id, gatehouse.ErrNotFound)
	}
	return name, err
}

// setColumns adds to sets and args the columns set changes, as
// "column = ?" each with its value.
func setColumns(sets []string, args []any, set []sqlstore.Set) ([]string, []any) {
	for _, s := range set {
		sets = append(sets, s.Column+" = ?")
		args = append(args, s.Value)
	}
	return sets, args
}
