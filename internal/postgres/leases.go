package postgres

import (
	"context"
	"time"

	"github.com/gatehouse/gatehouse"
	"github.com/gatehouse/gatehouse/internal/sqlstore"
)

// TryLease takes or renews the lease name for holder until now+ttl, in one
// statement: the row is inserted, or taken over when the lease has ended
// (until ≤ now) or is holder's already; another holder's unexpired lease
// is left alone and nothing is returned.
func (db *DB) TryLease(ctx context.Context, name, holder string, now time.Time, ttl time.Duration) (_ bool, err error) {
	defer sqlstore.Label(&err, "Store.TryLease")
	now = gatehouse.Truncate(now)
	tag, err := db.pool.Exec(ctx, `INSERT INTO leases (name, holder, until) VALUES ($1, $2, $3)
		ON CONFLICT (name) DO UPDATE SET holder = excluded.holder, until = excluded.until
		WHERE leases.until <= $4 OR leases.holder = excluded.holder`, name, holder, now.Add(ttl), now)
	if err != nil {
		return false, wrap(err)
	}
	return tag.RowsAffected() == 1, nil
}
