package server_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/gatehouse/gatehouse"
	"github.com/gatehouse/gatehouse/internal/app"
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
	e := newEnv(b, func(c *app.Settings) {
		c.Logger = slog.New(slog.NewJSONHandler(io.Discard, nil))
		c.KeyLimit = ratelimit.Limit{Rate: gatehouse.Rate{Count: 1e9, Per: 1e9}, Burst: 1e9}
	})
	ctx := context.Background()
	org, _, err := demo.Seed(ctx, e.store, e.clock.Now(), demo.DefaultEvents)
	if err != nil {
		b.Fatal(err)
	}
	key := e.newKey(org.ID, gatehouse.ScopeEventsRead)
	locs, _, _ := e.store.ListLocations(ctx, org.ID, 2, nil, false, nil)
	// Keys limited to one location, and to two (see Reach).
	one := e.newKeyWith(org.ID, func(k *gatehouse.APIKey) { k.Reach = gatehouse.Reach{locs[0].ID} }, gatehouse.ScopeEventsRead)
	two := e.newKeyWith(org.ID, func(k *gatehouse.APIKey) { k.Reach = gatehouse.Reach{locs[0].ID, locs[1].ID} }, gatehouse.ScopeEventsRead)
	page := e.events(key, "limit=1")
	for _, bc := range []struct{ name, query, key string }{
		{"first_page", "", key},
		{"filtered_page", "allowed=denied&reason=OUTSIDE_SCHEDULE", key},
		{"location_limit_500", "locationId=" + locs[0].ID.String() + "&limit=500", key},
		{"q_common", "q=door", key},
		{"q_rare", "q=roof", key},
		{"q_two_letters", "q=vi", key},
		{"q_exact_id", "q=" + page.Data[0].ID, key},
		{"reach_one_first_page", "", one},
		{"reach_two_first_page", "", two},
		{"reach_two_limit_500", "limit=500", two},
		{"reach_two_q_common", "q=door", two},
	} {
		b.Run(bc.name, func(b *testing.B) {
			req := httptest.NewRequest("GET", "/api/consumer/v1/events?"+bc.query, nil)
			req.Header.Set("Authorization", "Bearer "+bc.key)
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

// BenchmarkDecodeIngest measures reading and checking the largest batch
// POST /events accepts, 1,000 events, without storing it:
//
//	go test ./internal/server -run '^$' -bench DecodeIngest -benchmem
func BenchmarkDecodeIngest(b *testing.B) {
	now := time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)
	events := make([]string, 1000)
	for i := range events {
		events[i] = fmt.Sprintf(`{"id":"%s","type":"REMOTE_UNLOCK","occurredAt":"2026-11-20T11:%02d:00.123Z",`+
			`"accessPointId":"0193a5b2-7c1e-7d3f-9a4b-5c6d7e8f9a0b","scope":"PLAYER","platformUserId":"%d",`+
			`"command":{"id":"%s","status":"EXECUTED"}}`, gatehouse.NewID(), i%60, 1000000+i, gatehouse.NewID())
	}
	body := `{"events":[` + strings.Join(events, ",") + `]}`
	b.SetBytes(int64(len(body)))
	for b.Loop() {
		req := httptest.NewRequest("POST", "/api/consumer/v1/events", strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		if _, err := server.DecodeIngest(req, now); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkDecisions measures POST /decisions through the whole handler
// (authentication, rate limit, strict decoding, the decision's read, the
// answer), without a network, with and without recording, and then with
// a grant in the organization (another player's: each decision reads the
// player's grants, which it skips while the organization holds none):
//
//	go test ./internal/server -run '^$' -bench Decisions -benchmem -cpu 1,32
func BenchmarkDecisions(b *testing.B) {
	e := newEnv(b, func(c *app.Settings) {
		c.Logger = slog.New(slog.NewJSONHandler(io.Discard, nil))
		c.KeyLimit = ratelimit.Limit{Rate: gatehouse.Rate{Count: 1e9, Per: 1e9}, Burst: 1e9}
	})
	o := e.newPolicyOrg("Acme")
	ap := o.accessPoints[0].ID
	e.putPolicy(o.policyKey, ap, officeHours)
	for _, record := range []bool{false, true} {
		b.Run(fmt.Sprintf("record=%t", record), func(b *testing.B) {
			body := fmt.Sprintf(`{"accessPointId": %q, "platformUserId": "123", "serverJobId": "job-1",
 "attributes": {"groups": {"456": 210}, "gamepasses": [], "badges": [], "premium": false}, "record": %t}`, ap, record)
			b.SetParallelism(16) // 32 requests in flight on two cores, as bench decisions drives it
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					req := httptest.NewRequest("POST", "/api/consumer/v1/decisions", strings.NewReader(body))
					req.Header.Set("Authorization", "Bearer "+o.serverKey)
					req.Header.Set("Content-Type", "application/json")
					w := httptest.NewRecorder()
					e.handler.ServeHTTP(w, req)
					if w.Code != http.StatusOK {
						b.Fatalf("%d %s", w.Code, w.Body)
					}
				}
			})
		})
	}
	e.grant(o.policyKey, e.grantBody("999", "accessPointIds", ap, ""), http.StatusCreated)
	b.Run("record=false/grants", func(b *testing.B) {
		body := fmt.Sprintf(`{"accessPointId": %q, "platformUserId": "123", "serverJobId": "job-1", "record": false}`, ap)
		b.SetParallelism(16)
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				req := httptest.NewRequest("POST", "/api/consumer/v1/decisions", strings.NewReader(body))
				req.Header.Set("Authorization", "Bearer "+o.serverKey)
				req.Header.Set("Content-Type", "application/json")
				w := httptest.NewRecorder()
				e.handler.ServeHTTP(w, req)
				if w.Code != http.StatusOK {
					b.Fatalf("%d %s", w.Code, w.Body)
				}
			}
		})
	})
}
