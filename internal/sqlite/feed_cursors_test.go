package sqlite_test

import (
	"context"
	"testing"

	"github.com/gatehouse/gatehouse/internal/storetest"
)

// TestLegacyFeedCursors: migration 0019 records where the feed stood, and
// the cursors of the first form handed out before it keep reading from
// their position (storetest.CheckLegacyFeedCursors).
func TestLegacyFeedCursors(t *testing.T) {
	db := openThrough(t, 18)
	storetest.CheckLegacyFeedCursors(t, db, func(ctx context.Context) error { return db.Migrate(ctx) })
}
