package dashboard_test

import (
	"context"
	"encoding/csv"
	"encoding/json"
	"html"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/gatehouse/gatehouse"
	"github.com/gatehouse/gatehouse/internal/app"
	"github.com/gatehouse/gatehouse/internal/service"
)

func TestExportStreamsTheFilter(t *testing.T) {
	s := newSite(t)
	acme := s.tenant("Acme")
	ctx := context.Background()
	// More than one page of 500, and a name a spreadsheet would run.
	ap, _ := s.store.CreateAccessPoint(ctx, gatehouse.SystemEntry(gatehouse.AuditAccessPointCreated), acme.org.ID, acme.loc.ID, "=HYPERLINK(\"http://evil\")")
	var events []gatehouse.NewEvent
	for i := range 1200 {
		denied := gatehouse.Denied
		events = append(events, gatehouse.NewEvent{ID: gatehouse.NewID(), Type: gatehouse.EventAccessDenied, Allowed: &denied,
			OccurredAt: s.now.Add(-time.Duration(i) * time.Second), AccessPointID: ap.ID})
	}
	if _, err := s.store.IngestEvents(ctx, acme.org.ID, events); err != nil {
		t.Fatal(err)
	}
	b := s.signedIn(acme)
	log := b.do("GET", "/dashboard/events?allowed=denied&limit=25", nil)
	link := regexp.MustCompile(`href="(/dashboard/events/export\.csv\?[^"]+)"`).FindStringSubmatch(log.body)
	if link == nil {
		t.Fatal("no CSV link")
	}
	r := b.do("GET", strings.ReplaceAll(link[1], "&amp;", "&"), nil)
	rows, err := csv.NewReader(strings.NewReader(r.body)).ReadAll()
	if r.status != 200 || err != nil || !strings.HasPrefix(r.header.Get("Content-Disposition"), "attachment") {
		t.Fatalf("csv: %d %v %v", r.status, err, r.header)
	}
	if len(rows) != 1+1201 { // the header, the 1,200 events and the tenant's own denied event
		t.Fatalf("%d rows, want 1,202", len(rows))
	}
	if rows[1][8] != `'=HYPERLINK("http://evil")` {
		t.Errorf("a formula-like name is exported as %q", rows[1][8])
	}
	nd := b.do("GET", "/dashboard/events/export.ndjson?allowed=granted", nil)
	lines := strings.Split(strings.TrimSpace(nd.body), "\n")
	if len(lines) != 1 || !strings.Contains(lines[0], acme.granted.ID.String()) {
		t.Errorf("ndjson: %q", nd.body)
	}
}

func TestChartCountsTheFilter(t *testing.T) {
	s := newSite(t)
	acme := s.tenant("Acme") // one denied an hour ago, one granted two hours ago
	b := s.signedIn(acme)
	log := b.do("GET", "/dashboard/events?allowed=denied", nil)
	src := regexp.MustCompile(`<img src="(/dashboard/events/chart\.svg\?[^"]*)"`).FindStringSubmatch(log.body)
	if src == nil {
		t.Fatal("no chart on the Event Log")
	}
	r := b.do("GET", strings.ReplaceAll(src[1], "&amp;", "&"), nil)
	if r.status != 200 || r.header.Get("Content-Type") != "image/svg+xml" {
		t.Fatalf("chart: %d %s", r.status, r.header.Get("Content-Type"))
	}
	// Without dateFrom the chart, as the table, starts at the first
	// matching event's day: the denied one an hour ago, so hours of today.
	if !strings.Contains(r.body, "0 granted, 1 denied in all") || !strings.Contains(r.body, "per hour") ||
		!strings.Contains(r.body, "from 2026-11-20T00:00:00.000Z") {
		t.Errorf("the chart does not count the filter over the table's window: %.300s", r.body)
	}
	day := b.do("GET", "/dashboard/events/chart.svg?dateFrom=2026-11-20&dateTo=2026-11-21", nil)
	if !strings.Contains(day.body, "per hour") || !strings.Contains(day.body, "1 granted, 1 denied in all") ||
		!strings.Contains(day.body, "2026-11-20 11:00: 0 granted, 1 denied") {
		t.Errorf("an hourly chart: %.400s", day.body)
	}
}

// TestPagingOlderAndNewer walks seven pages older and all the way back.
func TestPagingOlderAndNewer(t *testing.T) {
	s := newSite(t)
	acme := s.tenant("Acme")
	var events []gatehouse.NewEvent
	for i := range 19 {
		granted := gatehouse.Granted
		events = append(events, gatehouse.NewEvent{ID: gatehouse.NewID(), Type: gatehouse.EventAccessGranted, Allowed: &granted,
			OccurredAt: s.now.Add(-time.Duration(i/2) * time.Minute), AccessPointID: acme.ap.ID})
	}
	if _, err := s.store.IngestEvents(context.Background(), acme.org.ID, events); err != nil {
		t.Fatal(err)
	}
	b := s.signedIn(acme)
	link := func(body, rel string) string {
		m := regexp.MustCompile(`href="([^"]+)" rel="` + rel + `"`).FindStringSubmatch(body)
		if m == nil {
			return ""
		}
		return html.UnescapeString(m[1])
	}
	ids := regexp.MustCompile(`/dashboard/events/([0-9a-f-]{36})"`)
	var pages [][]string
	body := b.do("GET", "/dashboard/events?allowed=granted&limit=3", nil).body
	for {
		var page []string
		for _, m := range ids.FindAllStringSubmatch(body, -1) {
			page = append(page, m[1])
		}
		pages = append(pages, page)
		next := link(body, "next")
		if next == "" {
			break
		}
		body = b.do("GET", next, nil).body
	}
	if len(pages) != 7 { // 20 granted events, 3 a page
		t.Fatalf("%d pages", len(pages))
	}
	for i := len(pages) - 2; i >= 0; i-- {
		newer := link(body, "prev")
		if newer == "" {
			t.Fatalf("no Newer link on page %d", i+2)
		}
		body = b.do("GET", newer, nil).body
		var page []string
		for _, m := range ids.FindAllStringSubmatch(body, -1) {
			page = append(page, m[1])
		}
		if strings.Join(page, ",") != strings.Join(pages[i], ",") {
			t.Fatalf("Newer from page %d shows %v, want page %d's %v", i+2, page, i+1, pages[i])
		}
	}
	if link(body, "prev") != "" {
		t.Error("the first page has a Newer link")
	}
}

// TestChartWindowIsBounded asks for a chart from the year 1 with no end:
// the window must stop at 366 days before now, as the API's date range
// does, so the image stays a few hundred bars, and it must say so.
func TestChartWindowIsBounded(t *testing.T) {
	s := newSite(t)
	acme := s.tenant("Acme")
	b := s.signedIn(acme)
	r := b.do("GET", "/dashboard/events/chart.svg?dateFrom=0001-01-01", nil)
	if r.status != 200 {
		t.Fatalf("chart: %d", r.status)
	}
	t.Logf("chart.svg?dateFrom=0001-01-01: %d bars, %d bytes", strings.Count(r.body, "<g>"), len(r.body))
	if bars := strings.Count(r.body, "<g>"); bars > 367 {
		t.Errorf("%d bars (%d bytes) for dateFrom=0001-01-01, want at most 367", bars, len(r.body))
	}
	if !strings.Contains(r.body, "from 2025-11-19T00:00:00.000Z to 2026-11-20T12:00:00.000Z") {
		t.Errorf("the chart does not name the window it shows: %.300s", r.body)
	}
	if !strings.Contains(r.body, "1 granted, 1 denied in all") {
		t.Errorf("the bounded window lost the recent events: %.300s", r.body)
	}
}

// TestBusyOrganizationIsAnsweredAsTheAPIDoes: the dashboard answers a
// failed operation from the API's one error table. While the
// organization's reads are all in use, the Event Log is a 429 with
// Retry-After, as GET /events is, not a 503 "the database does not
// answer" (the database answers; the organization is busy).
func TestBusyOrganizationIsAnsweredAsTheAPIDoes(t *testing.T) {
	slots := service.NewReadSlots(1, 0)
	s := newSiteWith(t, nil, func(st *app.Settings) { st.ReadSlots = slots })
	acme := s.tenant("Acme")
	b := s.signedIn(acme)
	release, err := slots.Acquire(context.Background(), acme.org.ID)
	if err != nil {
		t.Fatal(err)
	}
	defer release()
	r := b.do("GET", "/dashboard/events", nil)
	var body struct{ Code, RequestID string }
	if r.status != http.StatusTooManyRequests || r.header.Get("Retry-After") != "1" ||
		json.Unmarshal([]byte(r.body), &body) != nil || body.Code != "rate_limited" || body.RequestID == "" {
		t.Errorf("busy organization, JSON: %d, Retry-After %q, %s", r.status, r.header.Get("Retry-After"), r.body)
	}
	page := b.do("GET", "/dashboard/events", nil, "Accept", "text/html")
	if page.status != http.StatusTooManyRequests || page.header.Get("Retry-After") != "1" || !strings.Contains(page.body, "try again in a moment") {
		t.Errorf("busy organization, page: %d, Retry-After %q", page.status, page.header.Get("Retry-After"))
	}
}

// TestPagesAreBoundedByTheQueryTimeout: every page's work runs under the
// query timeout, as the API's does: with a timeout already spent, the
// Locations page is a 503, not an answer that waited as long as the
// database took.
func TestPagesAreBoundedByTheQueryTimeout(t *testing.T) {
	s := newSiteWith(t, nil, func(st *app.Settings) { st.QueryTimeout = time.Nanosecond })
	acme := s.tenant("Acme")
	b := s.signedIn(acme)
	if r := b.do("GET", "/dashboard/locations", nil); r.status != http.StatusServiceUnavailable {
		t.Errorf("locations page with its time spent: %d, want 503", r.status)
	}
}

// TestDashboardAnswersAsTheServiceDoes: the dashboard sits behind the API's
// middleware, so every answer carries X-Request-Id, and an error is the
// service's JSON error for a client that does not ask for HTML.
func TestDashboardAnswersAsTheServiceDoes(t *testing.T) {
	s := newSite(t)
	acme := s.tenant("Acme")
	b := s.signedIn(acme)
	for _, path := range []string{"/dashboard/login", "/dashboard/events", "/dashboard/assets/style.css", "/dashboard/nowhere"} {
		if r := b.do("GET", path, nil); r.header.Get("X-Request-Id") == "" {
			t.Errorf("%s: no X-Request-Id", path)
		}
	}
	r := b.do("GET", "/dashboard/events/"+gatehouse.NewID().String(), nil)
	var body struct{ Error, Code, RequestID string }
	if r.status != 404 || json.Unmarshal([]byte(r.body), &body) != nil || body.Code != "not_found" || body.RequestID != r.header.Get("X-Request-Id") {
		t.Errorf("an unknown event for a non-browser client: %d %s", r.status, r.body)
	}
	page := b.do("GET", "/dashboard/events/"+gatehouse.NewID().String(), nil, "Accept", "text/html")
	if page.status != 404 || !strings.Contains(page.body, "There is no such event.") || !strings.Contains(page.body, page.header.Get("X-Request-Id")) {
		t.Errorf("an unknown event for a browser: %d", page.status)
	}
	if r := b.do("POST", "/dashboard/logout", url.Values{}, "Sec-Fetch-Site", "cross-site", "Accept", "text/html"); r.status != 403 || !strings.Contains(r.body, "another site") {
		t.Errorf("a cross-site post: %d %.200s", r.status, r.body)
	}
}
