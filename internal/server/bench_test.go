package server_test

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/gatehouse/gatehouse"
	"github.com/gatehouse/gatehouse/internal/demo"
	"github.com/gatehouse/gatehouse/internal/ratelimit"
	"github.com/gatehouse/gatehouse/internal/server"
)

// BenchmarkDemoQueries measures whole requests (authentication, rate limit,
// query, JSON encoding) through the handler, without a network, on the
// demo organization's 4,000 events:
//
//	go test ./internal/server -run '^$' -bench DemoQueries -benchmem
func BenchmarkDemoQueries(b *testing.B) {
	e := newEnv(b, func(c *server.Config) {
		c.Logger = slog.New(slog.NewJSONHandler(io.Discard, nil))
		c.KeyLimit = ratelimit.Limit{Rate: gatehouse.Rate{Count: 1e9, Per: 1e9}, Burst: 1e9}
	})
	ctx := context.Background()
	org, _, err := demo.Seed(ctx, e.store, e.clock.Now(), demo.DefaultEvents)
	if err != nil {
		b.Fatal(err)
	}
	key := e.newKey(org.ID, gatehouse.ScopeEventsRead)
	locs, _, _ := e.store.ListLocations(ctx, org.ID, 1, nil)
	page := e.events(key, "limit=1")
	for _, bc := range []struct{ name, query string }{
		{"first_page", ""},
		{"filtered_page", "allowed=denied&reason=OUTSIDE_SCHEDULE"},
		{"location_limit_500", "locationId=" + locs[0].ID.String() + "&limit=500"},
		{"q_common", "q=door"},
		{"q_rare", "q=roof"},
		{"q_two_letters", "q=vi"},
		{"q_exact_id", "q=" + page.Data[0].ID},
	} {
		b.Run(bc.name, func(b *testing.B) {
			req := httptest.NewRequest("GET", "/api/consumer/v1/events?"+bc.query, nil)
			req.Header.Set("Authorization", "Bearer "+key)
			for b.Loop() {
				w := httptest.NewRecorder()
				e.handler.ServeHTTP(w, req)
				if w.Code != http.StatusOK {
					b.Fatalf("%d %s", w.Code, w.Body)
				}
			}
		})
	}
}
