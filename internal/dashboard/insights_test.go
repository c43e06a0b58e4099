package dashboard_test

import (
	"html"
	"net/http"
	"regexp"
	"strings"
	"testing"
)

// TestInsightsPage: the nav links Insights; the page counts the
// organization's doors, reasons and denied players, draws the week's
// denials, links each player into the Event Log filtered to them, and
// shows nothing of another organization.
func TestInsightsPage(t *testing.T) {
	s := newSite(t)
	acme, beta := s.tenant("Acme"), s.tenant("Beta")
	b := s.signedIn(acme)
	if nav := b.do("GET", "/dashboard/events", nil).body; !strings.Contains(nav, `href="/dashboard/insights"`) {
		t.Error("the nav lacks Insights")
	}
	page := b.do("GET", "/dashboard/insights?days=7", nil)
	if page.status != http.StatusOK {
		t.Fatalf("insights: %d %s", page.status, page.body)
	}
	for _, want := range []string{"Top doors", "Acme door", "OUTSIDE_SCHEDULE", "Players denied most", ">111</a>",
		"Denials by hour of the week", `<option value="7" selected>`, ": 1 denied"} {
		if !strings.Contains(page.body, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
	if strings.Contains(page.body, "Beta door") || strings.Contains(page.body, beta.ap.ID.String()) || strings.Contains(page.body, ">222</a>") {
		t.Errorf("the page shows what it should not (Beta's door, or a granted player)")
	}
	link := regexp.MustCompile(`href="(/dashboard/events\?[^"]*platformUserId=111[^"]*)"`).FindStringSubmatch(page.body)
	if link == nil {
		t.Fatalf("no Event Log link for player 111")
	}
	events := b.do("GET", html.UnescapeString(link[1]), nil)
	if events.status != http.StatusOK || !strings.Contains(events.body, acme.denied.ID.String()) || strings.Contains(events.body, acme.granted.ID.String()) {
		t.Errorf("the player's link: %d, does not show exactly the denial", events.status)
	}
}
