package postgres

// HoldIngestCommitsForTest makes every ingest transaction run hold just
// before it commits: the feed's test (internal/storetest) holds commits
// back with it. It is exported beyond this package's tests for the store
// suite on shards (internal/shards), whose stores are this package's.
func (db *DB) HoldIngestCommitsForTest(hold func()) { db.beforeIngestCommit = hold }
