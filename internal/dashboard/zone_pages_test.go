package dashboard_test

import (
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
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
