package dashboard_test

import (
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/gatehouse/gatehouse"
)

// TestTimesFollowTheChosenZone: with Europe/Berlin chosen, the table's
// times, the day a date filter names and the chart's hours are Berlin's,
// and each says its zone. The tenant's events are at 10:00Z (granted)
// and 11:00Z (denied): 11:00 and 12:00 in Berlin.
func TestTimesFollowTheChosenZone(t *testing.T) {
	s := newSite(t)
	acme := s.tenant("Acme")
	b := s.signedIn(acme)
	utc := b.do("GET", "/dashboard/events", nil)
	if !strings.Contains(utc.body, "2026-11-20 11:00:00 UTC") {
		t.Errorf("without a choice, times are not said in UTC: %s", firstRow(utc.body))
	}
	page := b.do("GET", "/dashboard/events", nil)
	r := b.do("POST", "/dashboard/zone", url.Values{"csrf": {csrfOf(t, page.body)}, "zone": {"Europe/Berlin"},
		"next": {"/dashboard/events?allowed=denied"}})
	if r.status != http.StatusSeeOther || r.header.Get("Location") != "/dashboard/events?allowed=denied" {
		t.Fatalf("choosing a zone: %d to %q", r.status, r.header.Get("Location"))
	}
	log := b.do("GET", "/dashboard/events?allowed=denied", nil)
	if !strings.Contains(log.body, "2026-11-20 12:00:00 CET") || !strings.Contains(log.body, "Time (Europe/Berlin)") {
		t.Errorf("the table is not in Berlin's time: %s", firstRow(log.body))
	}
	// The choice is the user's: another browser of the same user has it.
	if other := s.signedIn(acme).do("GET", "/dashboard/events", nil); !strings.Contains(other.body, "Time (Europe/Berlin)") {
		t.Error("the zone is not remembered for the user")
	}
	// 2026-11-20 in Berlin starts at 2026-11-19T23:00Z: an event at
	// 23:30Z the day before is on the 20th there, not in UTC.
	late := gatehouse.NewEvent{ID: gatehouse.NewID(), Type: gatehouse.EventAccessDenied, Allowed: new(gatehouse.Denied),
		OccurredAt: time.Date(2026, 11, 19, 23, 30, 0, 0, time.UTC), AccessPointID: acme.ap.ID}
	if _, err := s.store.IngestEvents(t.Context(), acme.org.ID, []gatehouse.NewEvent{late}); err != nil {
		t.Fatal(err)
	}
	day := b.do("GET", "/dashboard/events?dateFrom=2026-11-20&dateTo=2026-11-21", nil)
	if !strings.Contains(day.body, "2026-11-20 00:30:00 CET") || !strings.Contains(day.body, "3 events match") {
		t.Errorf("the date filter is not Berlin's day: %s", firstRow(day.body))
	}
	chart := b.do("GET", "/dashboard/events/chart.svg?dateFrom=2026-11-20&dateTo=2026-11-21", nil)
	for _, want := range []string{"(Europe/Berlin)", "from 2026-11-20T00:00:00.000+01:00", "2026-11-20 00:00: 0 granted, 1 denied",
		"2026-11-20 12:00: 0 granted, 1 denied", "2026-11-20 11:00: 1 granted, 0 denied"} {
		if !strings.Contains(chart.body, want) {
			t.Errorf("the chart lacks %q: %.400s", want, chart.body)
		}
	}
	for _, bad := range []string{"Mars/Olympus", "Local", ""} {
		if r := b.do("POST", "/dashboard/zone", url.Values{"csrf": {csrfOf(t, page.body)}, "zone": {bad}}); r.status != http.StatusBadRequest {
			t.Errorf("zone %q: %d, want 400", bad, r.status)
		}
	}
	if r := b.do("GET", "/dashboard/events", nil); !strings.Contains(r.body, "Time (Europe/Berlin)") {
		t.Error("a refused zone changed the user's")
	}
}

// TestBrowserZoneIsTheOneItReports: "this browser's zone" uses the zone
// the page's script reports in its cookie.
func TestBrowserZoneIsTheOneItReports(t *testing.T) {
	s := newSite(t)
	acme := s.tenant("Acme")
	b := s.signedIn(acme)
	u, _ := url.Parse(s.url + "/dashboard/")
	b.client.Jar.SetCookies(u, []*http.Cookie{{Name: "gatehouse_browser_zone", Value: "Asia/Tokyo", Path: "/dashboard"}})
	log := b.do("GET", "/dashboard/events", nil)
	if !strings.Contains(log.body, "2026-11-20 20:00:00 JST") || !strings.Contains(log.body, `data-zone="Asia/Tokyo"`) {
		t.Errorf("the browser's zone is not used: %s", firstRow(log.body))
	}
}

func firstRow(body string) string {
	if i := strings.Index(body, "<tbody>"); i >= 0 {
		return body[i:min(len(body), i+600)]
	}
	return body[:min(len(body), 600)]
}

// TestEventLogCountsAndLeadsBack: the count is exact up to the bound and
// "more than" past it; an event opened from a filtered page leads back
// to it; dates are date pickers; a bad date is told in words.
func TestEventLogCountsAndLeadsBack(t *testing.T) {
	s := newSite(t)
	acme := s.tenant("Acme")
	b := s.signedIn(acme)
	if r := b.do("GET", "/dashboard/events?limit=25", nil); !strings.Contains(r.body, "2 events match") {
		t.Errorf("no count of two events")
	}
	s.manyEvents(acme, 60)
	if r := b.do("GET", "/dashboard/events?limit=25", nil); !strings.Contains(r.body, "62 events match") {
		t.Errorf("no exact count past one page")
	}
	s.manyEvents(acme, 1000)
	if r := b.do("GET", "/dashboard/events?limit=25", nil); !strings.Contains(r.body, "More than 1000 events match") {
		t.Errorf("no bounded count")
	}

	log := b.do("GET", "/dashboard/events?allowed=granted&limit=25", nil)
	if !strings.Contains(log.body, `id="dateFrom" name="dateFrom" type="date"`) {
		t.Error("From is not a date picker")
	}
	link := regexp.MustCompile(`href="(/dashboard/events/[0-9a-f-]{36}[^"]*)"`).FindStringSubmatch(log.body)
	if link == nil {
		t.Fatal("no event link")
	}
	detail := b.do("GET", strings.ReplaceAll(link[1], "&amp;", "&"), nil)
	if !strings.Contains(detail.body, `href="/dashboard/events?allowed=granted&amp;limit=25">‹ Back to the Event Log`) {
		t.Errorf("the way back loses the filter: %s", link[1])
	}
	if forged := b.do("GET", "/dashboard/events/"+acme.granted.ID.String()+"?back=//evil.test", nil); strings.Contains(forged.body, `href="//evil.test`) {
		t.Error("the way back leaves the dashboard")
	}

	bad := b.do("GET", "/dashboard/events?dateFrom=20.11.2026", nil)
	if bad.status != http.StatusBadRequest || strings.Contains(bad.body, "RFC 3339") ||
		!strings.Contains(bad.body, "<strong>From</strong> is not a date") {
		t.Errorf("a bad date: %d, not in words", bad.status)
	}
}

// TestKeyFormOffersTheGameServerPreset: the preset checks server and
// events:write, and a key with them can be made.
func TestKeyFormOffersTheGameServerPreset(t *testing.T) {
	s := newSite(t)
	acme := s.tenant("Acme")
	b := s.signedIn(acme)
	page := b.do("GET", "/dashboard/keys", nil)
	if !strings.Contains(page.body, `href="/dashboard/keys?preset=game-server">Game server`) {
		t.Fatal("no Game server preset")
	}
	preset := b.do("GET", "/dashboard/keys?preset=game-server", nil)
	for _, sc := range []string{"server", "events:write"} {
		if !strings.Contains(preset.body, `value="`+sc+`" checked`) {
			t.Errorf("the preset does not check %s", sc)
		}
	}
	if strings.Contains(preset.body, `value="events:read" checked`) {
		t.Error("the preset checks events:read")
	}
	r := b.do("POST", "/dashboard/keys", url.Values{"csrf": {csrfOf(t, page.body)}, "name": {"game"},
		"scope": {"server", "events:write"}, "expires": {""}})
	if r.status != http.StatusSeeOther {
		t.Fatalf("a game server's key: %d", r.status)
	}
	if list := b.do("GET", "/dashboard/keys", nil); !strings.Contains(list.body, "events:write, server") && !strings.Contains(list.body, "server, events:write") {
		t.Error("the key does not carry server,events:write")
	}
}

// TestRootLeadsToTheDashboard: the bare address is the dashboard's.
func TestRootLeadsToTheDashboard(t *testing.T) {
	s := newSite(t)
	r := s.browser().do("GET", "/", nil)
	if r.status != http.StatusSeeOther || r.header.Get("Location") != "/dashboard/" {
		t.Errorf("GET /: %d to %q", r.status, r.header.Get("Location"))
	}
}
