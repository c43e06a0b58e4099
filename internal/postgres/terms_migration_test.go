package postgres_test

import (
	"context"
	"testing"
	"time"

	"github.com/gatehouse/gatehouse"
	"github.com/gatehouse/gatehouse/internal/storetest"
	"github.com/gatehouse/gatehouse/internal/testenv"
	"github.com/google/uuid"
)

// TestSearchTermsMigration: migration 0011 takes search off the events
// table of a populated database. The terms of the events of before are
// written, folded as their search text was, and q finds those events by
// every field, by the name each one shows of a renamed access point, and
// by the prefix of its id.
func TestSearchTermsMigration(t *testing.T) {
	ctx := context.Background()
	db := open(t, testenv.PostgresDSN(t))
	if err := db.MigrateThroughForTest(ctx, 10); err != nil {
		t.Fatal(err)
	}
	now := time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)
	org, loc, door := gatehouse.NewID(), gatehouse.NewID(), gatehouse.NewID()
	first, second := uuid.MustParse("0193a5b2-7c1e-7d3f-9a4b-5c6d7e8f9a0b"), uuid.MustParse("a1b2c3d4-0000-4000-8000-00000000000b")
	// The search text as the code of before wrote it: the folded fields
	// joined by U+001F.
	text := func(id uuid.UUID, fields ...string) string {
		s := id.String()
		for _, f := range fields {
			s += "\x1f" + f
		}
		return gatehouse.FoldCase(s)
	}
	for _, q := range []struct {
		sql  string
		args []any
	}{
		{"INSERT INTO organizations (id, name, created_at) VALUES ($1, 'Acme', $2)", []any{org, now}},
		{"INSERT INTO locations (id, org, name, created_at) SELECT $1, seq, 'HQ', $2 FROM organizations WHERE id = $3", []any{loc, now, org}},
		{"INSERT INTO access_points (id, org, location_id, name, created_at) SELECT $1, seq, $2, 'Front Door', $3 FROM organizations WHERE id = $4", []any{door, loc, now, org}},
		{`INSERT INTO events (org, id, type, occurred_at, received_at, allowed, platform_user_id, server_job_id,
				location_id, location_name, access_point_id, access_point_name, search)
			SELECT seq, $1, 'ACCESS_GRANTED', $2, $2, 'granted', 'Ünï-42', 'job-1', $3, 'HQ', $4, 'Front Door', $5
			FROM organizations WHERE id = $6`,
			[]any{first, now, loc, door, text(first, "Ünï-42", "Front Door", "HQ", "", "job-1"), org}},
		{`INSERT INTO events (org, id, type, occurred_at, received_at, allowed, reason,
				location_id, location_name, access_point_id, access_point_name, search)
			SELECT seq, $1, 'ACCESS_DENIED', $2, $2, 'denied', 'BANNED', $3, 'HQ', $4, 'Old Door', $5
			FROM organizations WHERE id = $6`,
			[]any{second, now.Add(-time.Minute), loc, door, text(second, "", "Old Door", "HQ", "BANNED", ""), org}},
	} {
		if err := db.ExecForTest(ctx, q.sql, q.args...); err != nil {
			t.Fatal(err)
		}
	}
	if err := db.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	storetest.CheckMigratedSearch(t, db, org, first, second)
}
