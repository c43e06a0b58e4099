package sqlite_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"testing"
	"time"

	"github.com/gatehouse/gatehouse"
	"github.com/gatehouse/gatehouse/internal/sqlite"
	"github.com/google/uuid"
)

// BenchmarkIngest stores decoded events in batches of 5,000, as event
// import does, with nothing else in the way: the ceiling of import on
// SQLite (decoding a line is the rest of BenchmarkImport's cost). The
// events are as clients send them: random version-4 ids, 5,000 players,
// 2,000 server job ids; in time order, and shuffled as a backfill merged
// from several servers arrives.
//
//	go test ./internal/sqlite -run '^$' -bench Ingest -benchtime 1000000x
func BenchmarkIngest(b *testing.B) {
	for _, order := range []string{"time", "shuffled"} {
		b.Run("order="+order, func(b *testing.B) { benchmarkIngest(b, order == "shuffled") })
	}
}

func benchmarkIngest(b *testing.B, shuffled bool) {
	ctx := context.Background()
	db, org, _, ap := oneDoor(b)
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	jobs := make([]string, 2000)
	for i := range jobs {
		jobs[i] = uuid.NewString()
	}
	events := make([]gatehouse.NewEvent, b.N)
	for i := range events {
		user, job := fmt.Sprint(1000000+i%5000), jobs[i*7919%len(jobs)]
		events[i] = gatehouse.NewEvent{ID: uuid.New(), Type: gatehouse.EventAccessDenied, Allowed: ptr(gatehouse.Denied),
			Reason: ptr("OUTSIDE_SCHEDULE"), OccurredAt: start.Add(time.Duration(i) * time.Second), AccessPointID: ap.ID,
			PlatformUserID: &user, ServerJobID: &job}
	}
	if shuffled {
		rand.Shuffle(len(events), func(i, j int) { events[i], events[j] = events[j], events[i] })
	}
	b.ResetTimer()
	for i := 0; i < b.N; i += 5000 {
		if _, err := db.IngestEvents(ctx, org.ID, events[i:min(i+5000, b.N)]); err != nil {
			b.Fatal(err)
		}
	}
	// The player rollup folded behind ingest counts in the rate: the
	// roller does this work while events arrive.
	if err := db.RollInsights(ctx, time.Time{}); err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "events/s")
}

func ptr[T any](v T) *T { return &v }

// BenchmarkDecisionContext reads what a decision needs (POST /decisions'
// one read) for a door with a policy and a running unlock, from 16
// requests at once per CPU (32 on two, the concurrency of the
// POST /decisions benchmark).
//
//	go test ./internal/sqlite -run '^$' -bench DecisionContext -cpu 2
func BenchmarkDecisionContext(b *testing.B) {
	ctx := context.Background()
	now := time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)
	db, org, loc, ap := oneDoor(b)
	p, err := gatehouse.Policy{Mode: gatehouse.ModeRules,
		Schedule: &gatehouse.Schedule{TimeZone: "Europe/Berlin", Windows: []gatehouse.Window{{Days: []string{"MON", "TUE", "WED", "THU", "FRI"}, From: "09:00", To: "17:30"}}},
		Allow:    []gatehouse.AllowRule{{PlatformUserID: "123"}, {GroupID: "456", MinRank: ptr(200)}, {GamepassID: "789"}},
	}.Check()
	if err != nil {
		b.Fatal(err)
	}
	if _, err := db.PutPolicy(ctx, gatehouse.SystemEntry(gatehouse.AuditPolicyChanged), org.ID, ap.ID, p, nil, now); err != nil {
		b.Fatal(err)
	}
	if _, err := db.CreateCommand(ctx, gatehouse.SystemEntry(gatehouse.AuditCommandIssued), gatehouse.IssuedCommand{Command: gatehouse.Command{
		ID: gatehouse.NewID(), OrgID: org.ID, Type: gatehouse.CommandUnlock, Status: gatehouse.CommandPending, Scope: gatehouse.ScopeUniverse,
		AccessPoint: gatehouse.NamedRef{ID: ap.ID, Name: ap.Name}, Location: gatehouse.NamedRef{ID: loc.ID, Name: loc.Name},
		DurationSeconds: 30, IssuedAt: gatehouse.Time(now), ExpiresAt: gatehouse.Time(now.Add(time.Minute)), StatusAt: gatehouse.Time(now),
	}}); err != nil {
		b.Fatal(err)
	}
	b.SetParallelism(16)
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			dc, err := db.FindDecisionContext(ctx, org.ID, ap.ID, now)
			if err != nil || dc.Policy == nil || len(dc.Unlocks) != 1 {
				b.Errorf("FindDecisionContext = %+v, %v", dc, err)
				return
			}
		}
	})
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "reads/s")
}

// BenchmarkInsertCeiling is SQLite's own insert rate for the events table
// of this schema, the ceiling of any import: b.N client-shaped rows
// (random ids, 5,000 players, 2,000 server job ids) are generated in SQL
// into a staging table, then copied into events by one INSERT … SELECT,
// with no Go and no driver per row, in time order and shuffled.
//
//	go test ./internal/sqlite -run '^$' -bench InsertCeiling -benchtime 1000000x
func BenchmarkInsertCeiling(b *testing.B) {
	for _, order := range []string{"time", "shuffled"} {
		b.Run("order="+order, func(b *testing.B) {
			ctx := context.Background()
			db, _, loc, ap := oneDoor(b)
			if err := db.ExecForTest(ctx, `CREATE TABLE src AS
				WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < ?)
				SELECT i, randomblob(16) AS id, 1767225600000 + i * 1000 AS at,
					CAST(1000000 + i % 5000 AS TEXT) AS user, 'job-' || (i * 7919 % 2000) AS job FROM n`, b.N-1); err != nil {
				b.Fatal(err)
			}
			by := "i"
			if order == "shuffled" {
				by = "id"
			}
			b.ResetTimer()
			if err := db.ExecForTest(ctx, `INSERT INTO events (org, id, type, occurred_at, received_at, allowed, reason,
					platform_user_id, server_job_id, location_id, location_name, access_point_id, access_point_name)
				SELECT (SELECT seq FROM organizations), id, 'ACCESS_DENIED', at, at, 'denied', 'OUTSIDE_SCHEDULE',
					user, job, ?, 'HQ', ?, 'Front door' FROM src ORDER BY `+by, loc.ID[:], ap.ID[:]); err != nil {
				b.Fatal(err)
			}
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "events/s")
		})
	}
}

// oneDoor is a fresh database with an organization, a location and an
// access point, closed when the test or benchmark ends.
func oneDoor(b testing.TB) (*sqlite.DB, gatehouse.Organization, gatehouse.Location, gatehouse.AccessPoint) {
	b.Helper()
	ctx := context.Background()
	db, err := sqlite.Open(ctx, filepath.Join(b.TempDir(), "bench.db"))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { db.Close() })
	if err := db.Migrate(ctx); err != nil {
		b.Fatal(err)
	}
	org, err := db.CreateOrganization(ctx, gatehouse.SystemEntry(gatehouse.AuditOrganizationCreated), "Bench")
	if err != nil {
		b.Fatal(err)
	}
	loc, err := db.CreateLocation(ctx, gatehouse.SystemEntry(gatehouse.AuditLocationCreated), org.ID, "HQ")
	if err != nil {
		b.Fatal(err)
	}
	ap, err := db.CreateAccessPoint(ctx, gatehouse.SystemEntry(gatehouse.AuditAccessPointCreated), org.ID, loc.ID, "Front door")
	if err != nil {
		b.Fatal(err)
	}
	return db, org, loc, ap
}
