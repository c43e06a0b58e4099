package postgres

import (
	"context"
	"time"
)

// SleepForTest runs a statement that takes d, to test timeouts.
func (db *DB) SleepForTest(ctx context.Context, d time.Duration) error {
	_, err := db.pool.Exec(ctx, "SELECT pg_sleep($1)", d.Seconds())
	return wrap(err)
}
