package dashboard_test

import (
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/gatehouse/gatehouse"
)

// TestEveryPageSaysTimesInTheChosenZone: a time a page shows is said in
// the zone the user chose (the template funcs at and atT), never as a
// raw ISO instant; the machine-readable datetime attribute keeps that.
func TestEveryPageSaysTimesInTheChosenZone(t *testing.T) {
	pages, err := filepath.Glob("templates/*.html")
	if err != nil || len(pages) == 0 {
		t.Fatalf("no templates: %v", err)
	}
	shown := regexp.MustCompile(`<time datetime="[^"]*">(\{\{[^}]*\}\})`)
	for _, page := range pages {
		body, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range shown.FindAllStringSubmatch(string(body), -1) {
			if !strings.HasPrefix(m[1], "{{at ") && !strings.HasPrefix(m[1], "{{atT ") {
				t.Errorf("%s shows a time as %s, not in the chosen zone", page, m[1])
			}
		}
	}
}

// TestUsersPageTimesFollowTheChosenZone: the Users page says when each
// user was added in the chosen zone, as every other page does.
func TestUsersPageTimesFollowTheChosenZone(t *testing.T) {
	s := newSite(t)
	admin := s.signedIn(s.tenant("Acme"))
	page := admin.do("GET", "/dashboard/events", nil)
	if r := admin.do("POST", "/dashboard/zone", url.Values{"csrf": {csrfOf(t, page.body)}, "zone": {"Asia/Tokyo"},
		"next": {"/dashboard/users"}}); r.status != http.StatusSeeOther {
		t.Fatalf("choosing a zone: %d", r.status)
	}
	users := admin.do("GET", "/dashboard/users", nil)
	if !strings.Contains(users.body, " JST</time>") {
		t.Errorf("the Users page's times are not in the chosen zone: %.3000s", users.body)
	}
}

// TestPlayersLinkTheirProfile: a player in the Event Log and on an
// event's page is a link to their events and to their profile on the
// platform, not a bare number, and shows the display name the game
// server reported with the event.
func TestPlayersLinkTheirProfile(t *testing.T) {
	s := newSite(t)
	acme := s.tenant("Acme")
	named := gatehouse.NewEvent{ID: gatehouse.NewID(), Type: gatehouse.EventAccessGranted, Allowed: ptr(gatehouse.Granted),
		OccurredAt: s.now.Add(-time.Minute), AccessPointID: acme.ap.ID, PlatformUserID: ptr("333"), PlatformUserName: ptr("Nightowl")}
	if _, err := s.store.IngestEvents(t.Context(), acme.org.ID, []gatehouse.NewEvent{named}); err != nil {
		t.Fatal(err)
	}
	b := s.signedIn(acme)
	profile := `href="https://www.roblox.com/users/111/profile"`
	log := b.do("GET", "/dashboard/events", nil)
	if !strings.Contains(log.body, `href="/dashboard/events?platformUserId=111"`) || !strings.Contains(log.body, profile) {
		t.Errorf("the Event Log's player is not a link to their events and profile: %s", firstRow(log.body))
	}
	detail := b.do("GET", "/dashboard/events/"+acme.denied.ID.String(), nil)
	if !strings.Contains(detail.body, profile) {
		t.Error("the event's page does not link the player's profile")
	}
	if !strings.Contains(log.body, `<span class="player-name">Nightowl</span> <a href="/dashboard/events?platformUserId=333"`) {
		t.Errorf("the Event Log does not show the player's display name: %.2000s", log.body)
	}
	if d := b.do("GET", "/dashboard/events/"+named.ID.String(), nil); !strings.Contains(d.body, "Nightowl <a href") {
		t.Error("the event's page does not show the player's display name")
	}
}
