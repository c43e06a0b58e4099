package postgres_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/gatehouse/gatehouse"
	"github.com/gatehouse/gatehouse/internal/sqlstore"
	"github.com/google/uuid"
)

// TestEventPagesReadTheirIndexInOrder: a page of events, with each
// filter that has an index and after a cursor, is read from that index
// newest first, sorting at most the events of one instant by id (an
// incremental sort), never the filter's whole range: the indexes end with
// the time alone (0032_narrow_event_indexes.sql).
func TestEventPagesReadTheirIndexInOrder(t *testing.T) {
	now := time.Date(2026, 3, 15, 12, 0, 0, 0, time.UTC)
	p := newPartitioned(t, now)
	ctx := context.Background()
	p.ingest(t, p.org, p.door, uuid.Must(uuid.NewV7()), now.Add(-time.Hour))
	player, reason := "12345", "OUTSIDE_SCHEDULE"
	scope := gatehouse.ScopePlayer
	from := now.AddDate(0, -2, 0)
	after := &gatehouse.EventKey{OccurredAt: now, ID: uuid.Must(uuid.NewV7())}
	for _, c := range []struct {
		name  string
		f     gatehouse.EventFilter
		index string
	}{
		{"every event", gatehouse.EventFilter{}, "_org_occurred_at_idx"},
		{"an access point", gatehouse.EventFilter{AccessPointID: &p.door.ID}, "_org_access_point_occurred_at_idx"},
		{"a location", gatehouse.EventFilter{LocationID: &p.door.LocationID}, "_org_location_occurred_at_idx"},
		// A reach of one location, or holding the location filtered, is
		// read as a location filter is (sqlstore.EventsWithin).
		{"a reach of one location", gatehouse.EventFilter{Within: gatehouse.Reach{p.door.LocationID}}, "_org_location_occurred_at_idx"},
		{"a location within a reach", gatehouse.EventFilter{LocationID: &p.door.LocationID, Within: gatehouse.Reach{uuid.New(), p.door.LocationID}},
			"_org_location_occurred_at_idx"},
		{"a player", gatehouse.EventFilter{PlatformUserID: &player}, "_org_platform_user_id_occurred_at_idx"},
		{"denied", gatehouse.EventFilter{Types: []gatehouse.EventType{gatehouse.EventAccessDenied}}, "_org_type_occurred_at_idx"},
		{"two types, a window", gatehouse.EventFilter{Types: []gatehouse.EventType{gatehouse.EventAccessDenied, gatehouse.EventRemoteUnlock},
			From: &from, To: &now}, "_org_occurred_at_idx"},
		{"a reason", gatehouse.EventFilter{Reason: &reason}, "_org_reason_occurred_at_idx"},
		{"a scope", gatehouse.EventFilter{Scope: &scope}, "_org_scope_occurred_at_idx"},
	} {
		f := c.f
		f.Limit, f.After = 50, after
		plan, err := p.db.ExplainEventPageForTest(ctx, p.org.ID, f)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if !strings.Contains(plan, c.index) || !strings.Contains(plan, `"Scan Direction": "Backward"`) {
			t.Errorf("%s: not read backwards through %s:\n%s", c.name, c.index, plan)
		}
		if strings.Contains(plan, `"Node Type": "Sort"`) {
			t.Errorf("%s: sorts its range:\n%s", c.name, plan)
		}
	}
	// A page of the feed reads its index in (xid, seq >> 5) order and
	// sorts each run of 32 by seq (0035), never the whole range.
	plan, err := p.db.ExplainFeedPageForTest(ctx, p.org.ID, gatehouse.EventFilter{Limit: 100}, gatehouse.FeedPosition{Txn: 1000, Seq: 70})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(plan, "_org_xid_expr_idx") || !strings.Contains(plan, `"Presorted Key": ["e.xid", "((e.seq >> 5))"]`) ||
		!strings.Contains(plan, "(ROW(xid, (seq >> 5)) >= ROW(") || strings.Contains(plan, `"Node Type": "Sort"`) {
		t.Errorf("a page of the feed: not read in order from its position through the feed's index:\n%s", plan)
	}
	// So do the rollup's reads of the feed: its batch, the last position,
	// and the check for organizations with nothing new, a probe for each
	// (at 15 M events, an anti-join read all of them: players.go).
	plans, err := p.db.ExplainFeedReadersForTest(ctx, p.org.ID)
	if err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string][]string{
		"fold": {`"Presorted Key": ["events.xid", "((events.seq >> 5))"]`, "(ROW(xid, (seq >> 5)) >= ROW("},
		"last": {`"Presorted Key": ["e.xid", "((e.seq >> 5))"]`, `"Scan Direction": "Backward"`},
		"idle": {`"Subplan Name": "SubPlan 1"`, "(ROW(xid, (seq >> 5)) >= ROW(c.txn, (c.seq >> 5)))"},
	} {
		for _, w := range want {
			if !strings.Contains(plans[name], "_org_xid_expr_idx") || !strings.Contains(plans[name], w) || strings.Contains(plans[name], "Anti Join") {
				t.Errorf("%s: not read through the feed's index (want %s):\n%s", name, w, plans[name])
			}
		}
	}
	// A search for a server job id reads the job's events through their
	// index (0034), not every event in the job's span.
	job := sqlstore.Term{Field: sqlstore.TermServerJob, Value: "job-7"}
	plan, err = p.db.ExplainTermSearchForTest(ctx, p.org.ID, gatehouse.EventFilter{Q: "job-7", Limit: 50, After: after}, []sqlstore.Term{job})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(plan, "_org_server_job_id_occurred_at_idx") || !strings.Contains(plan, `"Scan Direction": "Backward"`) {
		t.Errorf("a server job's search: not read backwards through the index of jobs:\n%s", plan)
	}
}
