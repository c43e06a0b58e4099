package postgres

import (
	"context"
	"errors"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/gatehouse/gatehouse/internal/sqlstore"
)

// locationUniverse is the universe of the organization's location, ""
// when it has none (or there is no such location).
func locationUniverse(ctx context.Context, q querier, org int64, loc uuid.UUID) (string, error) {
	var u *string
	err := q.QueryRow(ctx, "SELECT universe_id FROM locations WHERE id = $1 AND org = $2", loc, org).Scan(&u)
	if errors.Is(err, pgx.ErrNoRows) || u == nil {
		return "", nil
	}
	return *u, err
}

// lockUniverse locks the organization's locations of universe, in id
// order, so that two changes that grow one universe take turns: each
// checks what the other committed. Differs from SQLite, whose one
// writer serializes every change.
func lockUniverse(ctx context.Context, q querier, org int64, universe string) error {
	if universe == "" {
		return nil
	}
	_, err := q.Exec(ctx, "SELECT 1 FROM locations WHERE org = $1 AND universe_id = $2 ORDER BY id FOR UPDATE", org, universe)
	return err
}

// checkUniverse applies sqlstore.CheckUniverse to what the organization's
// universe holds now, in the transaction of the change that grew it
// (after lockUniverse).
func checkUniverse(ctx context.Context, q querier, org int64, universe string, addsAccessPoints, addsBytes bool) error {
	if universe == "" || !addsAccessPoints && !addsBytes {
		return nil
	}
	var load sqlstore.UniverseLoad
	err := q.QueryRow(ctx, `SELECT count(a.id), coalesce(sum(octet_length(p.body)), 0)
		FROM locations l JOIN access_points a ON a.location_id = l.id AND a.org = l.org `+policyOf+`
		WHERE l.org = $1 AND l.universe_id = $2`, org, universe).Scan(&load.AccessPoints, &load.PolicyBytes)
	if err != nil {
		return err
	}
	return sqlstore.CheckUniverse(universe, load, addsAccessPoints, addsBytes)
}
