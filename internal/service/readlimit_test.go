package service_test

import (
	"context"
	"errors"
	"path/filepath"
	"testing"
	"time"

	"github.com/gatehouse/gatehouse"
	"github.com/gatehouse/gatehouse/internal/service"
	"github.com/gatehouse/gatehouse/internal/sqlite"
)

// TestLimitReadsBoundsEachOrganization: an organization whose reads hold
// every one of its slots gets [gatehouse.ErrBusy] (an
// [gatehouse.ErrUnavailable]), while another organization reads on; a freed
// slot serves the waiting read.
func TestLimitReadsBoundsEachOrganization(t *testing.T) {
	ctx := context.Background()
	db, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "g.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	if err := db.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	a, _ := db.CreateOrganization(ctx, gatehouse.SystemEntry(gatehouse.AuditOrganizationCreated), "Busy")
	b, _ := db.CreateOrganization(ctx, gatehouse.SystemEntry(gatehouse.AuditOrganizationCreated), "Quiet")
	slots := service.NewReadSlots(2, 0)
	store := service.LimitReads(db, slots, time.Minute)
	var held []func()
	for range 2 { // two slow searches of a in flight
		release, err := slots.Acquire(ctx, a.ID)
		if err != nil {
			t.Fatal(err)
		}
		held = append(held, release)
	}
	f := gatehouse.EventFilter{Limit: 50}
	if _, err := store.ListEvents(ctx, a.ID, f); !errors.Is(err, gatehouse.ErrBusy) || !errors.Is(err, gatehouse.ErrUnavailable) {
		t.Errorf("a third read of the busy organization: %v, want ErrBusy", err)
	}
	from, to := time.Now().Add(-time.Hour), time.Now()
	if _, err := store.CountEvents(ctx, a.ID, gatehouse.EventFilter{From: &from, To: &to}, time.Minute); !errors.Is(err, gatehouse.ErrBusy) {
		t.Errorf("a count of the busy organization: %v, want ErrBusy", err)
	}
	// A universe's policy set is megabytes read and encoded: it takes a
	// slot too (issue 28's GET /policies attack).
	if _, err := store.PolicySet(ctx, a.ID, "1"); !errors.Is(err, gatehouse.ErrBusy) {
		t.Errorf("a policy set of the busy organization: %v, want ErrBusy", err)
	}
	if _, err := store.ListEvents(ctx, b.ID, f); err != nil {
		t.Errorf("another organization's read: %v", err)
	}
	if _, err := store.PolicySet(ctx, b.ID, "1"); err != nil {
		t.Errorf("another organization's policy set: %v", err)
	}

	one := service.NewReadSlots(1, time.Hour)
	waiting := service.LimitReads(db, one, time.Minute)
	hold, _ := one.Acquire(ctx, a.ID)
	done := make(chan error)
	go func() { _, err := waiting.ListEvents(ctx, a.ID, f); done <- err }()
	hold()
	if err := <-done; err != nil {
		t.Errorf("a read that waited for a freed slot: %v", err)
	}
	for _, release := range held {
		release()
	}

	// Every read has a deadline, whichever door calls it.
	expired := service.LimitReads(db, service.NewReadSlots(2, 0), time.Nanosecond)
	if _, err := expired.ListEvents(ctx, b.ID, f); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("ListEvents past its deadline: %v, want DeadlineExceeded", err)
	}
	if _, err := expired.CountEvents(ctx, b.ID, gatehouse.EventFilter{From: &from, To: &to}, time.Minute); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("CountEvents past its deadline: %v, want DeadlineExceeded", err)
	}
}
