package dashboard_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/gatehouse/gatehouse"
)

// TestLocationLivePage: the Locations page links each location's live
// view; it shows each door's mode (or that it has none), its id with a
// copy button, and the live game servers of the universe with their job
// ids, players and an Unlock link for that server; a viewer sees it
// without the Unlock links; another organization's location is a 404.
func TestLocationLivePage(t *testing.T) {
	s := newSite(t)
	acme, rival := s.tenant("Acme"), s.tenant("Rival")
	ctx := context.Background()
	if _, err := s.store.SetLocationUniverse(ctx, gatehouse.SystemEntry(gatehouse.AuditLocationUniverseSet), acme.org.ID, acme.loc.ID, "4242"); err != nil {
		t.Fatal(err)
	}
	if err := s.store.Heartbeat(ctx, acme.org.ID, gatehouse.GameServer{JobID: "job-7f3a", UniverseID: "4242", Players: []string{"156", "157"},
		StartedAt: s.now.Add(-time.Hour), SeenAt: s.now.Add(-10 * time.Second)}, gatehouse.OrgServerCaps); err != nil {
		t.Fatal(err)
	}
	if err := s.store.Heartbeat(ctx, acme.org.ID, gatehouse.GameServer{JobID: "job-quiet", UniverseID: "4242",
		StartedAt: s.now.Add(-time.Hour), SeenAt: s.now.Add(-5 * time.Minute)}, gatehouse.OrgServerCaps); err != nil {
		t.Fatal(err)
	}
	admin := s.signedIn(acme)
	live := "/dashboard/locations/" + acme.loc.ID.String() + "/live"
	if list := admin.do("GET", "/dashboard/locations", nil); !strings.Contains(list.body, `href="`+live+`"`) {
		t.Error("the Locations page does not link the live view")
	}
	page := admin.do("GET", live, nil)
	for _, want := range []string{"Acme HQ now", "Acme door", "no policy: fails closed", `data-copy-text="` + acme.ap.ID.String() + `"`,
		`data-copy-text="4242"`, "job-7f3a", `data-copy-text="job-7f3a"`, "<td>2</td>", "1 server of universe",
		"scope=SERVER&amp;serverJobId=job-7f3a"} {
		if !strings.Contains(page.body, want) {
			t.Errorf("the live view lacks %q", want)
		}
	}
	if page.status != http.StatusOK || strings.Contains(page.body, "job-quiet") {
		t.Errorf("the live view: %d, or it lists a server quiet for 5 minutes", page.status)
	}
	// A lockdown of the location, until released.
	if _, err := s.svc.StartLockdown(gatehouse.WithActor(ctx, gatehouse.Actor{Type: gatehouse.ActorSystem}), acme.org.ID, gatehouse.LockdownRequest{Scope: gatehouse.LockdownLocation,
		LocationID: &acme.loc.ID, Reason: "Drill"}); err != nil {
		t.Fatal(err)
	}
	if locked := admin.do("GET", live, nil); !strings.Contains(locked.body, "Locked down</strong> until released") {
		t.Errorf("the live view does not say the door is locked down until released: %.300s", locked.body[strings.Index(locked.body, "Acme door"):])
	}
	viewer := s.member(acme, "viewer@example.test", gatehouse.RoleViewer)
	if v := viewer.do("GET", live, nil); v.status != http.StatusOK || !strings.Contains(v.body, "job-7f3a") || strings.Contains(v.body, "Unlock") {
		t.Errorf("a viewer's live view: %d, with Unlock links or without the server", v.status)
	}
	if r := s.signedIn(rival).do("GET", live, nil); r.status != http.StatusNotFound || strings.Contains(r.body, "job-7f3a") {
		t.Errorf("another organization's location: %d", r.status)
	}
}
