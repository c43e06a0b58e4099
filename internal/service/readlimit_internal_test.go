package service

import (
	"context"
	"testing"
	"time"

	"github.com/gatehouse/gatehouse"
)

// parallelStub is a store that says it writes in parallel, and nothing
// else: the plumbing under test never calls it.
type parallelStub struct {
	gatehouse.Store
	writers int
}

func (p parallelStub) Writers() int { return p.writers }

func (p parallelStub) RefreshStatistics(context.Context, bool) (bool, error) { return true, nil }

// What a store can do beside Store is still found once LimitReads wraps
// it: the served app's recorder keeps PostgreSQL's parallel writers, and
// its statistics round runs.
func TestLimitReadsKeepsWhatTheStoreCanDo(t *testing.T) {
	wrapped := LimitReads(parallelStub{writers: 4}, NewReadSlots(2, time.Second), time.Second)
	if n := storeWriters(wrapped); n != 4 {
		t.Errorf("writers through LimitReads: %d, want the store's 4", n)
	}
	if _, ok := storeAs[gatehouse.StatisticsKeeper](wrapped); !ok {
		t.Error("the store's statistics are not found through LimitReads")
	}
	if _, ok := storeAs[gatehouse.BulkIngester](wrapped); ok {
		t.Error("a store that cannot bulk-ingest is found to through LimitReads")
	}
}
