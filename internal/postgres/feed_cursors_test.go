package postgres_test

import (
	"context"
	"testing"

	"github.com/gatehouse/gatehouse"
	"github.com/gatehouse/gatehouse/internal/postgres"
	"github.com/gatehouse/gatehouse/internal/storetest"
	"github.com/gatehouse/gatehouse/internal/testenv"
	"github.com/google/uuid"
)

// TestLegacyFeedCursors: migration 0019 records where the feed stood, and
// the cursors of the first form handed out before it keep reading from
// their position (storetest.CheckLegacyFeedCursors).
func TestLegacyFeedCursors(t *testing.T) {
	ctx := context.Background()
	db := open(t, testenv.PostgresDSN(t))
	if err := db.MigrateThroughForTest(ctx, 18); err != nil {
		t.Fatal(err)
	}
	// Today's feed reads shift positions by organizations.xid_shift
	// (migration 0031), which the schema of 0018 lacks: until the test
	// migrates, the column stands in as it is for every organization
	// never moved, 0, and leaves before the migration that adds it.
	if err := db.ExecForTest(ctx, "ALTER TABLE organizations ADD COLUMN xid_shift bigint NOT NULL DEFAULT 0"); err != nil {
		t.Fatal(err)
	}
	old := &beforePartitions{DB: db}
	storetest.CheckLegacyFeedCursors(t, old, func(ctx context.Context) error {
		old.migrated = true
		if err := db.ExecForTest(ctx, "ALTER TABLE organizations DROP COLUMN xid_shift"); err != nil {
			return err
		}
		return db.Migrate(ctx)
	})
}

// beforePartitions stores events as the releases before the partitions
// of events did until it is migrated.
type beforePartitions struct {
	*postgres.DB
	migrated bool
}

// ReadFeed reads the feed's positions from the row of the schema before
// the migration: today's feed reads the row of migration 0033. The
// positions are the rows', whoever reads them.
func (b *beforePartitions) ReadFeed(ctx context.Context, orgID uuid.UUID, f gatehouse.EventFilter, after gatehouse.FeedPosition) (gatehouse.FeedPage, error) {
	if b.migrated {
		return b.DB.ReadFeed(ctx, orgID, f, after)
	}
	return b.DB.ReadFeedBeforeCompactForTest(ctx, orgID)
}

func (b *beforePartitions) IngestEvents(ctx context.Context, orgID uuid.UUID, events []gatehouse.NewEvent) (gatehouse.IngestResult, error) {
	if b.migrated {
		return b.DB.IngestEvents(ctx, orgID, events)
	}
	return b.DB.IngestBeforePartitionsForTest(ctx, orgID, events)
}
