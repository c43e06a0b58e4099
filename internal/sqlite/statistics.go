package sqlite

import (
	"context"
	"time"

	"github.com/gatehouse/gatehouse/internal/sqlstore"
)

// statisticsLull is how long this process's writer must have been idle
// before the statistics round analyzes: ANALYZE holds the one writer for
// a time that grows with the table, whatever analysis_limit says (about
// 20 ms at 90,000 events, 150–500 ms at 900,000), and every write waits.
const statisticsLull = time.Second

// RefreshStatistics gathers the statistics of the tables that changed
// enough since they were last gathered (PRAGMA optimize: SQLite's own
// measure), with a bounded sample per index (analysis_limit). Unless
// forced, it does so only in a lull, when no write transaction of this
// process began or ended in the last statisticsLull, and reports whether
// it looked; forced (after an import), it analyzes every table.
func (db *DB) RefreshStatistics(ctx context.Context, force bool) (_ bool, err error) {
	defer sqlstore.Label(&err, "Store.RefreshStatistics")
	analyze := "ANALYZE"
	if !force {
		if db.writingSince.Load() != 0 || db.Now().UnixNano()-db.wroteAt.Load() < int64(statisticsLull) {
			return false, nil
		}
		analyze = "PRAGMA optimize"
	}
	if _, err := db.write.ExecContext(ctx, "PRAGMA analysis_limit = 1000"); err != nil {
		return false, wrap(err)
	}
	if _, err := db.write.ExecContext(ctx, analyze); err != nil {
		return false, wrap(err)
	}
	return true, nil
}
