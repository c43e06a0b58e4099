package shards

// HoldIngestCommitsForTest holds back the ingest commits of every shard
// (storetest's feed tests).
func (r *Router) HoldIngestCommitsForTest(hold func()) {
	for _, db := range r.open() {
		db.HoldIngestCommitsForTest(hold)
	}
}
