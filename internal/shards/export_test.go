package shards

import "time"

// HoldIngestCommitsForTest holds back the ingest commits of every shard
// (storetest's feed tests).
func (r *Router) HoldIngestCommitsForTest(hold func()) {
	for _, db := range r.open() {
		db.HoldIngestCommitsForTest(hold)
	}
}

// SetFenceWaitForTest sets how long a move waits for the source's
// transactions, until the test ends.
func SetFenceWaitForTest(t interface{ Cleanup(func()) }, d time.Duration) {
	was := fenceWait
	fenceWait = d
	t.Cleanup(func() { fenceWait = was })
}

// SetDirectoryTrustForTest sets directoryTrust until the test ends.
func SetDirectoryTrustForTest(t interface{ Cleanup(func()) }, d time.Duration) {
	was := directoryTrust
	directoryTrust = d
	t.Cleanup(func() { directoryTrust = was })
}
