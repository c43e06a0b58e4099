package gatehouse

import (
	"context"

	"github.com/google/uuid"
)

// StatisticsKeeper is a store whose query planner reads statistics of the
// event tables that the store must refresh itself: on PostgreSQL,
// autovacuum may be off or lag a bulk load by minutes, and until the
// statistics are gathered a filter that takes milliseconds takes seconds
// (the planner believes the table empty).
type StatisticsKeeper interface {
	// RefreshStatistics gathers the statistics of the event tables when
	// enough events changed since they were last gathered, or always when
	// force is set. It reports whether it did.
	RefreshStatistics(ctx context.Context, force bool) (bool, error)
}

// ParallelWriter is implemented by a store whose transactions may commit
// in parallel (PostgreSQL): Writers is how many the recorder of
// decisions keeps in flight for one organization, so that a batch forms
// and is written while another waits for its commit to reach the disk. A
// store without it (SQLite, one writer) gets one.
type ParallelWriter interface {
	Writers() int
}

// BulkIngester is implemented by a store that loads many events faster
// when several batches share one transaction: SQLite writes a page that
// several batches change, and copies it from its log into the database
// file, once per commit instead of once per batch.
type BulkIngester interface {
	// BeginBulkIngest starts a transaction for the organization's events.
	BeginBulkIngest(ctx context.Context, orgID uuid.UUID) (BulkIngest, error)
}

// BulkIngest is one transaction of a bulk load. Each IngestEvents is all
// or nothing on its own, as Store.IngestEvents is: a batch it refuses
// leaves what the transaction already holds as it was. Nothing is durable,
// or visible to readers, until Commit.
type BulkIngest interface {
	IngestEvents(ctx context.Context, events []NewEvent) (IngestResult, error)
	Commit() error
	// Rollback ends the transaction without storing; after Commit it does
	// nothing.
	Rollback()
}
