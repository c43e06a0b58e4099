package sqlite_test

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/gatehouse/gatehouse"
	"github.com/gatehouse/gatehouse/internal/sqlite"
)

// BenchmarkIngest stores decoded events in batches of 5,000, as event
// import does, with nothing else in the way: the ceiling of import on
// SQLite (decoding a line is the rest of BenchmarkImport's cost).
//
//	go test ./internal/sqlite -run '^$' -bench Ingest -benchtime 200000x
func BenchmarkIngest(b *testing.B) {
	ctx := context.Background()
	db, err := sqlite.Open(ctx, filepath.Join(b.TempDir(), "bench.db"))
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	if err := db.Migrate(ctx); err != nil {
		b.Fatal(err)
	}
	org, err := db.CreateOrganization(ctx, gatehouse.SystemEntry(gatehouse.AuditOrganizationCreated), "Bench")
	if err != nil {
		b.Fatal(err)
	}
	loc, _ := db.CreateLocation(ctx, gatehouse.SystemEntry(gatehouse.AuditLocationCreated), org.ID, "HQ")
	ap, err := db.CreateAccessPoint(ctx, gatehouse.SystemEntry(gatehouse.AuditAccessPointCreated), org.ID, loc.ID, "Front door")
	if err != nil {
		b.Fatal(err)
	}
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	events := make([]gatehouse.NewEvent, b.N)
	for i := range events {
		user, job := fmt.Sprint(1000000+i%5000), gatehouse.NewID().String()
		events[i] = gatehouse.NewEvent{ID: gatehouse.NewID(), Type: gatehouse.EventAccessDenied, Allowed: ptr(gatehouse.Denied),
			Reason: ptr("OUTSIDE_SCHEDULE"), OccurredAt: start.Add(time.Duration(i) * time.Second), AccessPointID: ap.ID,
			PlatformUserID: &user, ServerJobID: &job}
	}
	b.ResetTimer()
	for i := 0; i < b.N; i += 5000 {
		if _, err := db.IngestEvents(ctx, org.ID, events[i:min(i+5000, b.N)]); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "events/s")
}

func ptr[T any](v T) *T { return &v }
