package sqlite

import (
	"context"
	"database/sql"
	"time"

	"github.com/gatehouse/gatehouse/internal/sqlstore"
)

// TryLease takes or renews a lease for holder; another holder's
// unexpired lease is kept.
func (db *DB) TryLease(ctx context.Context, name, holder string, now time.Time, ttl time.Duration) (_ bool, err error) {
	defer sqlstore.Label(&err, "Store.TryLease")
	var held bool
	err = db.withTx(ctx, func(tx *sql.Tx) error {
		r, err := tx.ExecContext(ctx, `INSERT INTO leases (name, holder, until) VALUES (?, ?, ?)
			ON CONFLICT (name) DO UPDATE SET holder = excluded.holder, until = excluded.until
			WHERE leases.holder = excluded.holder OR leases.until <= ?`,
			name, holder, millis(now.Add(ttl)), millis(now))
		if err != nil {
			return err
		}
		n, err := r.RowsAffected()
		held = n > 0
		return err
	})
	return held, err
}
