package server_test

import (
	"encoding/json"
	"net/url"
	"testing"

	"github.com/gatehouse/gatehouse"
)

// TestShortQPartialPages: a q too short for the search index that matches
// nothing is answered page by page, each page a bounded read marked
// meta.partial with a cursor that goes on, never one scan of the log.
func TestShortQPartialPages(t *testing.T) {
	e := newEnv(t)
	setter, ok := e.store.(interface{ SetSearchBudgets(gatehouse.SearchBudgets) })
	if !ok {
		t.Skip("the store's search budgets cannot be lowered")
	}
	setter.SetSearchBudgets(gatehouse.SearchBudgets{First: 2, Max: 4})
	o := e.newOrg("Acme")
	var evs []gatehouse.NewEvent
	for i := range 10 {
		evs = append(evs, e.ev(o.accessPoints[0], gatehouse.EventAccessGranted, i+1))
	}
	e.ingest(o, evs...)
	query, pages := "q=%25&limit=50", 0
	for ; pages < 10; pages++ {
		r := e.get("/api/consumer/v1/events?"+query, o.readKey)
		var body struct {
			Data       []json.RawMessage `json:"data"`
			NextCursor *string           `json:"nextCursor"`
			Meta       struct{ Partial bool }
		}
		r.decode(t, &body)
		if r.status != 200 || len(body.Data) != 0 {
			t.Fatalf("page %d: %d %s", pages, r.status, r.body)
		}
		if body.NextCursor == nil {
			if body.Meta.Partial {
				t.Errorf("page %d: partial without a cursor", pages)
			}
			break
		}
		if !body.Meta.Partial {
			t.Errorf("page %d: an empty page with a cursor is not marked partial: %s", pages, r.body)
		}
		query = "q=%25&limit=50&cursor=" + url.QueryEscape(*body.NextCursor)
	}
	if pages < 2 || pages > 4 { // 10 events, 4 read per page
		t.Errorf("q=%% took %d pages over 10 events with a budget of 4, want 3", pages+1)
	}
}
