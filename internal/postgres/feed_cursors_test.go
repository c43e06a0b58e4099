package postgres_test

import (
	"context"
	"testing"

	"github.com/gatehouse/gatehouse/internal/storetest"
	"github.com/gatehouse/gatehouse/internal/testenv"
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
	storetest.CheckLegacyFeedCursors(t, db, func(ctx context.Context) error { return db.Migrate(ctx) })
}
