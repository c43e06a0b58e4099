package server_test

import (
	"fmt"
	"net/url"
	"testing"

	"github.com/gatehouse/gatehouse"
)

// TestManyTermsPartialPages: a q found in more terms than the budget is
// answered page by page, each page a bounded read marked meta.partial
// with a cursor that goes on, never one scan of the log.
func TestManyTermsPartialPages(t *testing.T) {
	e := newEnv(t)
	setter, ok := e.store.(interface{ SetSearchBudgets(gatehouse.SearchBudgets) })
	if !ok {
		t.Skip("the store's search budgets cannot be lowered")
	}
	setter.SetSearchBudgets(gatehouse.SearchBudgets{First: 2, Max: 4, Terms: 1})
	o := e.newOrg("Acme")
	var evs []gatehouse.NewEvent
	for i := range 10 {
		ev := e.ev(o.accessPoints[0], gatehouse.EventAccessGranted, i+1)
		ev.PlatformUserID = ptr(fmt.Sprint("player-", i))
		evs = append(evs, ev)
	}
	e.ingest(o, evs...)
	query, pages, seen := "q=PLAYER&limit=50", 0, map[string]bool{}
	for ; pages < 10; pages++ {
		r := e.get("/api/consumer/v1/events?"+query, o.readKey)
		var body struct {
			Data []struct {
				ID string `json:"id"`
			} `json:"data"`
			NextCursor *string `json:"nextCursor"`
			Meta       struct{ Partial bool }
		}
		r.decode(t, &body)
		if r.status != 200 || len(body.Data) > 4 {
			t.Fatalf("page %d: %d %s", pages, r.status, r.body)
		}
		for _, ev := range body.Data {
			if seen[ev.ID] {
				t.Errorf("page %d repeats %s", pages, ev.ID)
			}
			seen[ev.ID] = true
		}
		if body.NextCursor == nil {
			if body.Meta.Partial {
				t.Errorf("page %d: partial without a cursor", pages)
			}
			break
		}
		if !body.Meta.Partial {
			t.Errorf("page %d: a short page with a cursor is not marked partial: %s", pages, r.body)
		}
		query = "q=PLAYER&limit=50&cursor=" + url.QueryEscape(*body.NextCursor)
	}
	if pages+1 != 3 || len(seen) != 10 { // 10 events, 4 read per page
		t.Errorf("q=PLAYER took %d pages and found %d of 10 events with a budget of 4, want 3 pages", pages+1, len(seen))
	}
}
