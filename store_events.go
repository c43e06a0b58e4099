package gatehouse

import (
	"context"
	"time"

	"github.com/google/uuid"
)

// EventStore is the part of [Store] that stores events and reads them:
// pages, the feed, and the dashboard's counts.
type EventStore interface {
	// IngestEvents stores events for an organization in one transaction:
	// all or nothing.
	//   - An event whose id is already stored for the organization is
	//     counted as a duplicate and left unchanged.
	//   - An access point or requester that is not the organization's is a
	//     *[ValidationError] keyed "events[i].accessPointId" or
	//     "events[i].requestedBy", and nothing is stored.
	IngestEvents(ctx context.Context, orgID uuid.UUID, events []NewEvent) (IngestResult, error)
	// ReadFeed returns the organization's events matching f after
	// position after, in the order they were stored. f's filters apply
	// without Q, dates and ID; f.Limit must be set.
	//
	// Following Next yields each event exactly once: no position is handed
	// out that a transaction still in flight could land before.
	//
	// An unknown organization has an empty feed. A position this database
	// cannot have made (another backend's, or one from before a restore
	// from a dump) is an [ErrInvalid] keyed "after".
	ReadFeed(ctx context.Context, orgID uuid.UUID, f EventFilter, after FeedPosition) (FeedPage, error)
	// CountFeed returns how many of the organization's events matching f
	// (as ReadFeed reads it; Limit unused) are stored after position
	// after: what following the feed from there would read now. Positions
	// are checked as ReadFeed checks them.
	CountFeed(ctx context.Context, orgID uuid.UUID, f EventFilter, after FeedPosition) (int64, error)
	// FeedCursorCeiling returns where the feed of the organization's
	// database stood (past every event then stored) when that database
	// began to hand out sealed feed cursors ([FeedCursors]): every cursor
	// of the first, unsealed form was handed out at or before it. On a
	// database created since, it is the feed's start.
	FeedCursorCeiling(ctx context.Context, orgID uuid.UUID) (FeedPosition, error)
	// ListEvents returns a page of an organization's events matching f, in
	// the event order. f.Limit must be set. A q found in too many distinct
	// values reads a bounded number of events, so the page may be Partial
	// ([SearchBudgets]).
	ListEvents(ctx context.Context, orgID uuid.UUID, f EventFilter) (EventPage, error)
	// CountEvents counts the organization's events matching f in buckets
	// of step from f.From to f.To (both must be set), by outcome: the
	// dashboard's chart.
	CountEvents(ctx context.Context, orgID uuid.UUID, f EventFilter, step time.Duration) ([]EventCount, error)
	// CountInsights counts the organization's events matching f (From and
	// To must be set; Q, ID, After and Limit are not read) in groups of
	// by, exactly, from the rollups the store keeps as events come and go
	// (insights). By GroupHour it gives every UTC hour that has events,
	// in time order, with Hour set and Key empty; by the other groupings
	// not by time, Key is the id, reason, type or player, and at most
	// limit groups (0: all) come, ordered as [SortInsights] orders.
	// Events without a reason or a player are in no group of those
	// groupings. GroupDay and GroupHourOfWeek are [ErrInvalid]: they are
	// folded from hours. An unknown organization has no groups.
	CountInsights(ctx context.Context, orgID uuid.UUID, f EventFilter, by InsightGroup, limit int) ([]InsightCount, error)
	// RollInsights folds the events waiting into the rollup kept behind
	// ingest (players), batch by batch, until none is due at now (an
	// organization folded less than a second before now waits).
	// CountInsights is exact whatever was folded. Every instance calls
	// it; the store keeps two from folding the same events.
	RollInsights(ctx context.Context, now time.Time) error
}

// FindEvents is ListEvents with the exact-id rule of q: when q is a UUID and
// no cursor is given, the organization's event with that id (if it also
// matches the other filters) is returned alone; when there is none, the
// ordinary substring search runs, since a server job id may be a UUID too.
func FindEvents(ctx context.Context, s Store, orgID uuid.UUID, f EventFilter) (EventPage, error) {
	if f.After == nil && f.ID == nil {
		if id, err := ParseUUID(f.Q); err == nil {
			exact := f
			exact.ID, exact.Q = &id, ""
			page, err := s.ListEvents(ctx, orgID, exact)
			if err != nil || len(page.Events) > 0 {
				page.Next = nil
				return page, err
			}
		}
	}
	return s.ListEvents(ctx, orgID, f)
}

// SearchBudgets are the thresholds at which a store's search for q changes
// strategy. Stores set production values; tests lower them so that small
// datasets take every path.
//
// A store first finds the search terms of q: the distinct values of the
// searched fields that contain q (a small table per organization). Then:
//   - At most Terms terms: it reads each term's events through the index
//     of its field, in keyset order, and merges them. The cost follows
//     the number of terms, not of events. With several terms, it first
//     matches q on as many candidates in keyset order as reading every
//     term's page would read (First at most), where common terms fill
//     their page.
//   - More than Terms terms (a short or very common q): it matches q on
//     the candidates in keyset order, reading on for up to Max of them. A
//     page still not full is Partial ([EventPage.Partial]).
type SearchBudgets struct {
	First, Max, Terms int
}

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

// StorageMeter is a store that can say what its events cost on disk
// (StorageReport): the operator's `gatehouse bench bytes`.
type StorageMeter interface {
	// MeasureStorage measures the events table, its indexes and the side
	// tables, and averages the stored size of each column of events over
	// about sample rows: of the organization's events unless orgID is
	// uuid.Nil (ErrNotFound when it is no organization's).
	MeasureStorage(ctx context.Context, orgID uuid.UUID, sample int) (StorageReport, error)
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

// EventPartitioner is a store whose events are kept in partitions of a
// month (PostgreSQL): every instance makes the months ahead, and the
// retention pass drops the months past every organization's retention
// whole, before it deletes the rest by rows.
type EventPartitioner interface {
	// AddEventPartitions makes the partitions of the month of now and
	// of the months just after it that have none, and returns how many
	// it made. Instances calling it at once wait for each other.
	AddEventPartitions(ctx context.Context, now time.Time) (int, error)
	// DropExpiredPartitions drops every month whose events are all past
	// their organization's retention at now ([RetentionCutoff]), with the
	// month's insight rollups, and returns how many.
	DropExpiredPartitions(ctx context.Context, now time.Time) (int, error)
	// ForgetRecentIDs deletes the ids received before before from the
	// ids a retry is checked against whatever its occurredAt
	// ([RecentIDsKept]), in short transactions, and returns how many.
	ForgetRecentIDs(ctx context.Context, before time.Time) (int, error)
	// CompactPartitions rebuilds packed the indexes of the months that
	// take no more events and have not been rebuilt, and returns how many
	// months it rebuilt. Reads and writes go on meanwhile.
	CompactPartitions(ctx context.Context, now time.Time) (int, error)
}

// RecentIDsKept is how long an event id is a duplicate whatever the
// occurredAt it comes back with, on a store that partitions events by
// time ([EventPartitioner]); after it, an id is a duplicate when it
// comes back with the same occurredAt, as every retry of the SDK and
// every import does.
const RecentIDsKept = 7 * 24 * time.Hour
