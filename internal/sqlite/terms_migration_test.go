package sqlite_test

import (
	"context"
	"testing"
	"time"

	"github.com/gatehouse/gatehouse"
	"github.com/gatehouse/gatehouse/internal/storetest"
	"github.com/google/uuid"
)

// TestSearchTermsMigration: migration 0011 takes search off the events
// table of a populated database. The terms of the events of before are
// written, folded, and q finds those events by every field, by the name
// each one shows of a renamed access point, and by the prefix of its id.
func TestSearchTermsMigration(t *testing.T) {
	ctx := context.Background()
	db := openThrough(t, 10)
	ms := time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC).UnixMilli()
	org, loc, door := gatehouse.NewID(), gatehouse.NewID(), gatehouse.NewID()
	first, second := uuid.MustParse("0193a5b2-7c1e-7d3f-9a4b-5c6d7e8f9a0b"), uuid.MustParse("a1b2c3d4-0000-4000-8000-00000000000b")
	for _, q := range []struct {
		sql  string
		args []any
	}{
		{"INSERT INTO organizations (seq, id, name, created_at) VALUES (1, ?, 'Acme', ?)", []any{org[:], ms}},
		{"INSERT INTO locations (id, org, name, created_at) VALUES (?, 1, 'HQ', ?)", []any{loc[:], ms}},
		{"INSERT INTO access_points (id, org, location_id, name, created_at) VALUES (?, 1, ?, 'Front Door', ?)", []any{door[:], loc[:], ms}},
		{`INSERT INTO events (org, id, type, occurred_at, received_at, allowed, platform_user_id, server_job_id,
				location_id, location_name, access_point_id, access_point_name)
			VALUES (1, ?, 'ACCESS_GRANTED', ?, ?, 'granted', 'Ünï-42', 'job-1', ?, 'HQ', ?, 'Front Door')`,
			[]any{first[:], ms, ms, loc[:], door[:]}},
		{`INSERT INTO events (org, id, type, occurred_at, received_at, allowed, reason,
				location_id, location_name, access_point_id, access_point_name)
			VALUES (1, ?, 'ACCESS_DENIED', ?, ?, 'denied', 'BANNED', ?, 'HQ', ?, 'Old Door')`,
			[]any{second[:], ms - 60_000, ms, loc[:], door[:]}},
	} {
		if err := db.ExecForTest(ctx, q.sql, q.args...); err != nil {
			t.Fatal(err)
		}
	}
	if err := db.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	if n, err := db.CountForTest(ctx, "search_terms"); err != nil || n != 6 {
		t.Errorf("%d search terms, %v; want 6: a user, two names of the door, the location, a reason, a job", n, err)
	}
	storetest.CheckMigratedSearch(t, db, org, first, second)
}
