package sqlite_test

import (
	"context"
	"strings"
	"testing"

	"github.com/gatehouse/gatehouse"
	"github.com/gatehouse/gatehouse/internal/sqlite"
)

// TestCommandPlans: what a sync takes and what the sweep expires are
// read through the indexes of 0008_commands.sql, never by a scan of the
// commands or their deliveries, which grow with every command issued.
func TestCommandPlans(t *testing.T) {
	ctx := context.Background()
	db := openThrough(t, 0)
	want := map[string][]string{
		"take own":    {"command_deliveries_by_server", "SEARCH c USING PRIMARY KEY"},
		"take joined": {"commands_universe"},
		"sweep":       {"commands_unsettled"},
	}
	for name, q := range sqlite.CommandQueriesForTest {
		plan, err := db.PlanForTest(ctx, q.Query, q.Args...)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		text := strings.Join(plan, "\n")
		t.Logf("%s:\n%s", name, text)
		for _, w := range want[name] {
			if !strings.Contains(text, w) {
				t.Errorf("%s: the plan does not use %s:\n%s", name, w, text)
			}
		}
		for _, line := range plan {
			if strings.HasPrefix(line, "SCAN ") && !strings.Contains(line, "USING") {
				t.Errorf("%s: a full scan: %s", name, line)
			}
		}
	}
}

// TestEventFilterPlans: the filters whose indexes are partial (0011)
// read them, and granted attempts, which they leave out, the time index.
func TestEventFilterPlans(t *testing.T) {
	ctx := context.Background()
	db := openThrough(t, 0)
	denied, reason := gatehouse.Denied, "OUTSIDE_SCHEDULE"
	for _, tc := range []struct {
		name  string
		f     gatehouse.EventFilter
		index string
	}{
		{"type denied", gatehouse.EventFilter{Types: []gatehouse.EventType{gatehouse.EventAccessDenied}}, "events_by_type"},
		{"type unlock", gatehouse.EventFilter{Types: []gatehouse.EventType{gatehouse.EventRemoteUnlock}}, "events_by_type"},
		{"allowed denied", gatehouse.EventFilter{Allowed: &denied}, "events_by_type"},
		{"type granted", gatehouse.EventFilter{Types: []gatehouse.EventType{gatehouse.EventAccessGranted}}, "events_by_time"},
		{"reason", gatehouse.EventFilter{Reason: &reason}, "events_by_reason"},
	} {
		tc.f.Limit = 50
		query, args := sqlite.EventQueryForTest(tc.f)
		plan, err := db.PlanForTest(ctx, query, args...)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if text := strings.Join(plan, "\n"); !strings.Contains(text, tc.index) {
			t.Errorf("%s: the plan does not use %s:\n%s", tc.name, tc.index, text)
		}
	}
}
