package sqlite

import (
	"context"
	"database/sql"
	"errors"

	"github.com/google/uuid"

	"github.com/gatehouse/gatehouse/internal/sqlstore"
)

// locationUniverse is the universe of the organization's location, ""
// when it has none (or there is no such location).
func locationUniverse(ctx context.Context, q querier, org int64, loc uuid.UUID) (string, error) {
	var u sql.NullString
	err := q.QueryRowContext(ctx, "SELECT universe_id FROM locations WHERE id = ? AND org = ?", loc[:], org).Scan(&u)
	if errors.Is(err, sql.ErrNoRows) {
		return "", nil
	}
	return u.String, err
}

// checkUniverse applies sqlstore.CheckUniverse to what the organization's
// universe holds now, in the transaction of the change that grew it. The
// bytes are the stored bodies' (length of the blob, not of the text in
// characters).
func checkUniverse(ctx context.Context, q querier, org int64, universe string, addsAccessPoints, addsBytes bool) error {
	if universe == "" || !addsAccessPoints && !addsBytes {
		return nil
	}
	var load sqlstore.UniverseLoad
	err := q.QueryRowContext(ctx, `SELECT count(a.id), coalesce(sum(length(CAST(p.body AS BLOB))), 0)
		FROM locations l JOIN access_points a ON a.location_id = l.id AND a.org = l.org `+policyOf+`
		WHERE l.org = ? AND l.universe_id = ?`, org, universe).Scan(&load.AccessPoints, &load.PolicyBytes)
	if err != nil {
		return err
	}
	return sqlstore.CheckUniverse(universe, load, addsAccessPoints, addsBytes)
}
