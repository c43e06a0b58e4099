package cli_test

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/gatehouse/gatehouse"
	"github.com/gatehouse/gatehouse/internal/demo"
	"github.com/gatehouse/gatehouse/internal/sqlite"
)

func TestDemoSeedIsReused(t *testing.T) {
	ctx := context.Background()
	db, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "demo.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if err := db.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	now := time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)
	org, created, err := demo.Seed(ctx, db, now, 1500)
	if err != nil || !created {
		t.Fatalf("first seed: %v %v", created, err)
	}
	again, created, err := demo.Seed(ctx, db, now, 1500)
	if err != nil || created || again.ID != org.ID {
		t.Fatalf("second seed: %v %v %v", again.ID, created, err)
	}
	orgs, _ := db.ListOrganizations(ctx)
	if len(orgs) != 1 {
		t.Errorf("%d organizations after two seeds", len(orgs))
	}
	// Count by walking all pages, and check the mix the demo promises.
	counts := map[string]int{}
	var f = gatehouse.EventFilter{Limit: 500}
	for {
		page, err := db.ListEvents(ctx, org.ID, f)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range page.Events {
			counts[string(e.Type)]++
			if e.Scope != nil {
				counts[string(*e.Scope)]++
			}
			if e.Command != nil {
				counts["command "+string(e.Command.Status)]++
			}
			if e.Reason != nil {
				counts[*e.Reason]++
			}
			if time.Time(e.OccurredAt).Before(now.AddDate(0, 0, -90)) || time.Time(e.OccurredAt).After(now) {
				t.Fatalf("event outside the last 90 days: %v", time.Time(e.OccurredAt))
			}
		}
		if page.Next == nil {
			break
		}
		f.After = page.Next
	}
	total := counts["ACCESS_GRANTED"] + counts["ACCESS_DENIED"] + counts["REMOTE_UNLOCK"]
	if total != 1500 || counts["ACCESS_DENIED"] < 150 || counts["REMOTE_UNLOCK"] < 10 {
		t.Errorf("event mix %v", counts)
	}
	for _, want := range []string{"UNIVERSE", "SERVER", "PLAYER", "OUTSIDE_SCHEDULE", "NOT_ON_ALLOWLIST", "ACCESS_POINT_DISABLED", "command EXECUTED"} {
		if counts[want] == 0 {
			t.Errorf("the demo has no %s: %v", want, counts)
		}
	}
}
