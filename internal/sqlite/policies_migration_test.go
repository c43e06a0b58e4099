package sqlite_test

import (
	"context"
	"testing"
	"time"

	"github.com/gatehouse/gatehouse"
)

// TestPoliciesMigrationKeepsAccessPointsAndCommands: migration 0009 adds
// policies to a database holding access points and commands. The access
// points of before have no policy, take a first version, and their issued
// unlocks of before count in a decision; a command known only from an
// ingested event does not.
func TestPoliciesMigrationKeepsAccessPointsAndCommands(t *testing.T) {
	ctx := context.Background()
	db := openThrough(t, 8)
	now := time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)
	ms := now.UnixMilli()
	org, loc, door := gatehouse.NewID(), gatehouse.NewID(), gatehouse.NewID()
	issued, ingested := gatehouse.NewID(), gatehouse.NewID()
	for _, q := range []struct {
		sql  string
		args []any
	}{
		{"INSERT INTO organizations (seq, id, name, created_at) VALUES (1, ?, 'Acme', ?)", []any{org[:], ms}},
		{"INSERT INTO locations (id, org, name, created_at, universe_id) VALUES (?, 1, 'HQ', ?, '42')", []any{loc[:], ms}},
		{"INSERT INTO access_points (id, org, location_id, name, created_at) VALUES (?, 1, ?, 'Door', ?)", []any{door[:], loc[:], ms}},
		{`INSERT INTO commands (org, id, access_point_id, scope, status, issued_at, status_at,
				issued, type, universe_id, location_id, duration_s, expires_at)
			VALUES (1, ?, ?, 'UNIVERSE', 'PENDING', ?, ?, 1, 'UNLOCK', '42', ?, 30, ?)`,
			[]any{issued[:], door[:], ms, ms, loc[:], now.Add(time.Minute).UnixMilli()}},
		{`INSERT INTO commands (org, id, access_point_id, scope, status, issued_at, status_at)
			VALUES (1, ?, ?, 'UNIVERSE', 'PENDING', ?, ?)`, []any{ingested[:], door[:], ms, ms}},
	} {
		if err := db.ExecForTest(ctx, q.sql, q.args...); err != nil {
			t.Fatal(err)
		}
	}
	if err := db.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	if p, err := db.FindPolicy(ctx, org, door); err != nil || p != nil {
		t.Fatalf("FindPolicy of an access point of before = %+v, %v; want none", p, err)
	}
	dc, err := db.FindDecisionContext(ctx, org, door, now)
	if err != nil || dc.AccessPoint.Name != "Door" || dc.Location.Name != "HQ" || dc.UniverseID != "42" || dc.Policy != nil ||
		len(dc.Unlocks) != 1 || dc.Unlocks[0].Scope != gatehouse.ScopeUniverse {
		t.Fatalf("FindDecisionContext = %+v, %v; want the issued unlock only", dc, err)
	}
	p, err := gatehouse.Policy{Mode: gatehouse.ModeOpen}.Check()
	if err != nil {
		t.Fatal(err)
	}
	got, err := db.PutPolicy(ctx, gatehouse.SystemEntry(gatehouse.AuditPolicyChanged), org, door, p, new(int64), now)
	if err != nil || got.Version != 1 {
		t.Fatalf("PutPolicy = %+v, %v; want version 1", got, err)
	}
	if set, err := db.PolicySet(ctx, org, "42"); err != nil || len(set) != 1 || set[0].Policy == nil || set[0].Policy.Version != 1 {
		t.Fatalf("PolicySet = %+v, %v", set, err)
	}
}
