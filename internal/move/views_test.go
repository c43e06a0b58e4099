package move_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gatehouse/gatehouse"
	"github.com/gatehouse/gatehouse/internal/apitest"
	"github.com/gatehouse/gatehouse/internal/app"
	"github.com/gatehouse/gatehouse/internal/postgres"
)

// get answers a GET of the API with key: its status and decoded body.
func (s *served) get(t *testing.T, key, path string) (int, map[string]any) {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, s.url+path, nil)
	must(t, err)
	req.Header.Set("Authorization", "Bearer "+key)
	resp, err := s.srv.Client().Do(req)
	must(t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	must(t, err)
	var body map[string]any
	if err := json.Unmarshal(b, &body); err != nil {
		t.Fatalf("GET %s: %d %s", path, resp.StatusCode, b)
	}
	return resp.StatusCode, body
}

// view is what an organization's key reads of the API: each path's
// answers, every page of those that page, without what says when it was
// read (completeThrough) and, when cursors signs nothing, the cursors.
type view map[string][]any

// viewPaths are the reads a view makes, for records r at now.
func viewPaths(r orgRecords, now time.Time) []string {
	from := url.QueryEscape(now.AddDate(0, 0, -100).Format(time.RFC3339))
	paths := []string{
		"/api/consumer/v1/events?limit=200", "/api/consumer/v1/events?limit=100&q=Player_100",
		"/api/consumer/v1/events?limit=100&q=job-1", "/api/consumer/v1/events?limit=100&platformUserId=1003&type=ACCESS_DENIED",
		"/api/consumer/v1/locations?limit=100", "/api/consumer/v1/audit-log?limit=200", "/api/consumer/v1/commands?limit=100",
		"/api/consumer/v1/webhooks", "/api/consumer/v1/webhooks/" + r.webhook.String() + "/deliveries",
		"/api/consumer/v1/alert-rules", "/api/consumer/v1/alerts?limit=100", "/api/consumer/v1/grants?limit=100",
		"/api/consumer/v1/lockdowns?limit=100", "/api/consumer/v1/messaging", "/api/consumer/v1/organization/settings",
		"/api/consumer/v1/privacy/erasure-requests", "/api/consumer/v1/access-points/" + r.door.ID.String() + "/policy",
		"/api/consumer/v1/policies?universeId=" + r.universe, "/api/consumer/v1/keys",
	}
	for _, g := range []string{"accessPointId", "locationId", "reason", "type", "platformUserId", "hour", "day", "hourOfWeek"} {
		paths = append(paths, "/api/consumer/v1/insights?groupBy="+g+"&dateFrom="+from+"&timeZone=Europe/Berlin&limit=50")
	}
	return append(paths, "/api/consumer/v1/insights?groupBy=platformUserId&type=ACCESS_DENIED&dateFrom="+from)
}

// read reads the view of r's organization.
func (s *served) read(t *testing.T, r orgRecords, now time.Time, cursors bool) view {
	t.Helper()
	v := view{}
	for _, p := range viewPaths(r, now) {
		next := p
		for next != "" {
			status, body := s.get(t, r.key, next)
			if status != http.StatusOK {
				t.Fatalf("GET %s: %d %v", next, status, body)
			}
			cursor, _ := body["nextCursor"].(string)
			strip(body, cursors)
			v[p] = append(v[p], body)
			next = ""
			if cursor != "" {
				next = p + "&cursor=" + url.QueryEscape(cursor)
			}
		}
	}
	return v
}

// strip removes what differs between two databases that hold the same
// records: when reads happened (completeThrough, a key's lastUsedAt),
// and the cursors when cursors is false.
func strip(v any, cursors bool) {
	switch v := v.(type) {
	case map[string]any:
		delete(v, "completeThrough")
		delete(v, "lastUsedAt")
		if !cursors {
			delete(v, "nextCursor")
			delete(v, "cursor")
		}
		for _, e := range v {
			strip(e, cursors)
		}
	case []any:
		for _, e := range v {
			strip(e, cursors)
		}
	}
}

// feedPage is one page of the feed: the cursor read after, what it gave.
type feedPage struct {
	after string
	body  map[string]any
}

// feed reads r's organization's feed to its end, 50 events a page.
func (s *served) feed(t *testing.T, r orgRecords, after string) []feedPage {
	t.Helper()
	var pages []feedPage
	for {
		status, body := s.get(t, r.key, "/api/consumer/v1/events/feed?limit=50&after="+url.QueryEscape(after))
		if status != http.StatusOK {
			t.Fatalf("feed after %q: %d %v", after, status, body)
		}
		next, _ := body["nextCursor"].(string)
		strip(body, true)
		pages = append(pages, feedPage{after: after, body: body})
		if len(body["data"].([]any)) < 50 {
			return pages
		}
		after = next
	}
}

// openTarget serves the PostgreSQL database at dsn on clock, migrated.
func openTarget(t *testing.T, dsn string, clock *apitest.Clock) (*postgres.DB, *served, *sends) {
	t.Helper()
	db, err := postgres.Open(context.Background(), dsn)
	must(t, err)
	t.Cleanup(func() { db.Close() })
	db.Now = clock.Now
	must(t, db.Migrate(context.Background()))
	sent := &sends{}
	return db, serve(t, app.Use(db), clock, sent), sent
}

// post posts body to the API with key, and answers the status and body.
func (s *served) post(t *testing.T, key, path, body string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, s.url+path, strings.NewReader(body))
	must(t, err)
	req.Header.Set("Authorization", "Bearer "+key)
	req.Header.Set("Content-Type", "application/json")
	resp, err := s.srv.Client().Do(req)
	must(t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	must(t, err)
	return resp.StatusCode, string(b)
}

// newEvents ingests n events at r's door through the API, now.
func (s *served) newEvents(t *testing.T, r orgRecords, clock *apitest.Clock, n int) {
	t.Helper()
	var b strings.Builder
	b.WriteString(`{"events":[`)
	for i := range n {
		if i > 0 {
			b.WriteString(",")
		}
		b.WriteString(`{"id":"` + gatehouse.NewID().String() + `","type":"ACCESS_GRANTED","allowed":"granted","occurredAt":"` +
			clock.Now().Format(time.RFC3339Nano) + `","accessPointId":"` + r.door.ID.String() + `","platformUserId":"` + strconv.Itoa(2000+i) + `"}`)
	}
	b.WriteString("]}")
	if status, body := s.post(t, r.key, "/api/consumer/v1/events", b.String()); status != http.StatusOK {
		t.Fatalf("POST /events: %d %s", status, body)
	}
}
