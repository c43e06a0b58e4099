package postgres

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"
)

// SleepForTest runs a statement that takes d, to test timeouts.
func (db *DB) SleepForTest(ctx context.Context, d time.Duration) error {
	_, err := db.pool.Exec(ctx, "SELECT pg_sleep($1)", d.Seconds())
	return wrap(err)
}

// WithTxForTest runs fn as a store method runs its transaction.
func (db *DB) WithTxForTest(ctx context.Context, fn func(pgx.Tx) error) error {
	return db.withTx(ctx, fn)
}
