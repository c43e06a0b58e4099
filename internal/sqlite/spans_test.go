package sqlite_test

import (
	"context"
	"testing"
	"time"

	"github.com/gatehouse/gatehouse"
	"github.com/google/uuid"
)

// TestBulkIngestJobSpans: an import's batches widen a server job's span
// within their one transaction, so that its events are all found on the
// first page once it commits; spans written by an import rolled back are
// not taken for stored, so the job's next events write theirs again.
func TestBulkIngestJobSpans(t *testing.T) {
	ctx := context.Background()
	db := openThrough(t, 0)
	db.SetSearchBudgets(gatehouse.SearchBudgets{First: 3, Max: 10, Terms: 5})
	e := gatehouse.SystemEntry(gatehouse.AuditOrganizationCreated)
	org, err := db.CreateOrganization(ctx, e, "Acme")
	must(t, err)
	loc, err := db.CreateLocation(ctx, e, org.ID, "HQ")
	must(t, err)
	door, err := db.CreateAccessPoint(ctx, e, org.ID, loc.ID, "Door")
	must(t, err)
	now := time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)
	at := func(hoursAgo int, job string) gatehouse.NewEvent {
		return gatehouse.NewEvent{ID: gatehouse.NewID(), Type: gatehouse.EventAccessGranted, AccessPointID: door.ID,
			OccurredAt: now.Add(-time.Duration(hoursAgo) * time.Hour), ServerJobID: &job}
	}
	var others []gatehouse.NewEvent
	for h := range 30 {
		others = append(others, at(h, "other"))
	}
	if _, err := db.IngestEvents(ctx, org.ID, others); err != nil {
		t.Fatal(err)
	}
	found := func(job string) []uuid.UUID {
		t.Helper()
		page, err := db.ListEvents(ctx, org.ID, gatehouse.EventFilter{Q: job, Limit: 50})
		must(t, err)
		if page.Partial {
			t.Errorf("q=%s: a partial page", job)
		}
		var got []uuid.UUID
		for _, ev := range page.Events {
			got = append(got, ev.ID)
		}
		return got
	}

	bulk, err := db.BeginBulkIngest(ctx, org.ID)
	must(t, err)
	batches := [][]gatehouse.NewEvent{{at(24, "job-a")}, {at(20, "job-a")}, {at(22, "job-a")}}
	for _, b := range batches {
		if _, err := bulk.IngestEvents(ctx, b); err != nil {
			t.Fatal(err)
		}
	}
	must(t, bulk.Commit())
	if got := found("job-a"); len(got) != 3 {
		t.Errorf("q=job-a found %v, want the 3 events of the import", got)
	}

	bulk, err = db.BeginBulkIngest(ctx, org.ID)
	must(t, err)
	if _, err := bulk.IngestEvents(ctx, []gatehouse.NewEvent{at(10, "job-b")}); err != nil {
		t.Fatal(err)
	}
	bulk.Rollback()
	later := at(10, "job-b")
	if _, err := db.IngestEvents(ctx, org.ID, []gatehouse.NewEvent{later}); err != nil {
		t.Fatal(err)
	}
	if got := found("job-b"); len(got) != 1 || got[0] != later.ID {
		t.Errorf("q=job-b found %v, want the event stored after the rolled-back import", got)
	}
}
