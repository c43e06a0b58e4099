package postgres_test

import (
	"context"
	"strings"
	"testing"

	"github.com/gatehouse/gatehouse/internal/testenv"
)

// TestRollersOfTheReleaseBeforeCannotFold: a roller of the release
// before migration 0026 writes no levels of players' totals, and one that
// folded during a rolling upgrade would leave rankings that read them
// short; its insert into the player rollup, which names no fold, fails.
func TestRollersOfTheReleaseBeforeCannotFold(t *testing.T) {
	db := open(t, testenv.PostgresDSN(t))
	ctx := context.Background()
	if err := db.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	// The player rollup's insert as the release before wrote it.
	err := db.ExecForTest(ctx, `INSERT INTO insight_player_months AS r (org, month, platform_user_id, type, reason, scope, n, last_added)
		VALUES (1, '2026-11-01T00:00:00Z', '156', 'ACCESS_DENIED', 'BANNED', '', 1, 1)
		ON CONFLICT (org, month, platform_user_id, type, reason, scope) DO UPDATE SET n = r.n + excluded.n, last_added = excluded.n`)
	if err == nil || !strings.Contains(err.Error(), "fold") {
		t.Fatalf("an old roller's insert: %v, want it refused for want of fold", err)
	}
}
