package dashboard_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/gatehouse/gatehouse"
)

// TestArchiveRestoreDeleteOnLocations: an admin archives an access point
// and a location from the Locations page after a confirmation page with
// one big button; archived records leave the page and the menus unless
// "Show archived", where they show marked with Restore; the Event Log
// still finds their events and keeps an archived filter; the policy form
// of an archived door is refused with the reason. Delete refuses a door
// with events, saying to archive it, and deletes a mistake. Each change
// is audited as the admin.
func TestArchiveRestoreDeleteOnLocations(t *testing.T) {
	s := newSite(t)
	acme, rival := s.tenant("Acme"), s.tenant("Rival")
	ctx := context.Background()
	b := s.signedIn(acme)
	ap, loc := acme.ap.ID.String(), acme.loc.ID.String()

	page := b.do("GET", "/dashboard/locations", nil)
	for _, want := range []string{`href="/dashboard/access-points/` + ap + `/archive"`, `href="/dashboard/access-points/` + ap + `/delete"`,
		`href="/dashboard/locations/` + loc + `/archive"`, `href="/dashboard/locations/` + loc + `/delete"`, `href="/dashboard/locations?archived=1">Show archived`} {
		if !strings.Contains(page.body, want) {
			t.Errorf("the Locations page lacks %s", want)
		}
	}
	confirm := b.do("GET", "/dashboard/access-points/"+ap+"/archive", nil)
	if confirm.status != http.StatusOK || !strings.Contains(confirm.body, `action="/dashboard/access-points/`+ap+`/archive"`) ||
		!strings.Contains(confirm.body, `class="primary big">Archive Acme door</button>`) || !strings.Contains(confirm.body, "still accepted") {
		t.Fatalf("the archive confirmation: %d %.2000s", confirm.status, confirm.body)
	}
	csrf := csrfOf(t, confirm.body)
	if r := b.do("POST", "/dashboard/access-points/"+ap+"/archive", url.Values{"csrf": {csrf}}); r.status != http.StatusSeeOther ||
		r.header.Get("Location") != "/dashboard/locations?done=archived" {
		t.Fatalf("archive: %d %q", r.status, r.header.Get("Location"))
	}
	page = b.do("GET", "/dashboard/locations?done=archived", nil)
	if strings.Contains(page.body, `action="/dashboard/access-points/`+ap+`/rename"`) || !strings.Contains(page.body, "Archived: it is hidden") {
		t.Errorf("the Locations page after the archive: %.3000s", page.body)
	}
	shown := b.do("GET", "/dashboard/locations?archived=1", nil)
	if !strings.Contains(shown.body, `action="/dashboard/access-points/`+ap+`/restore"`) || !strings.Contains(shown.body, `badge archived`) ||
		!strings.Contains(shown.body, "Hide archived") {
		t.Errorf("Show archived: %.3000s", shown.body)
	}

	// The Event Log: its events still found; the menus leave it out
	// unless the filter names it.
	events := b.do("GET", "/dashboard/events", nil)
	if strings.Contains(events.body, `<option value="`+ap+`"`) || !strings.Contains(events.body, acme.denied.ID.String()) {
		t.Errorf("the Event Log's menus offer the archived door, or lost its events")
	}
	filtered := b.do("GET", "/dashboard/events?accessPointId="+ap, nil)
	if !strings.Contains(filtered.body, `<option value="`+ap+`" selected>Acme door (archived)</option>`) || !strings.Contains(filtered.body, acme.denied.ID.String()) {
		t.Errorf("the Event Log filtered by the archived door: %.4000s", filtered.body)
	}
	policy := b.do("GET", "/dashboard/access-points/"+ap+"/policy", nil)
	if policy.status != http.StatusOK || !strings.Contains(policy.body, "This access point is archived") {
		t.Errorf("the archived door's policy page: %d", policy.status)
	}
	refused := b.do("POST", "/dashboard/access-points/"+ap+"/policy", url.Values{"csrf": {csrf}, "ifVersion": {"0"}, "mode": {"OPEN"}},
		"Accept", "text/html")
	if refused.status != http.StatusConflict || !strings.Contains(refused.body, "is archived: restore it first") {
		t.Errorf("a policy saved for the archived door: %d %.1500s", refused.status, refused.body)
	}
	if r := b.do("POST", "/dashboard/access-points/"+ap+"/restore", url.Values{"csrf": {csrf}}); r.status != http.StatusSeeOther ||
		r.header.Get("Location") != "/dashboard/locations?done=restored" {
		t.Errorf("restore: %d %q", r.status, r.header.Get("Location"))
	}
	if page := b.do("GET", "/dashboard/locations", nil); !strings.Contains(page.body, `action="/dashboard/access-points/`+ap+`/rename"`) {
		t.Error("the restored door is not on the Locations page")
	}

	// A location archived leaves with its doors; restored, it is back.
	if r := b.do("POST", "/dashboard/locations/"+loc+"/archive", url.Values{"csrf": {csrf}}); r.status != http.StatusSeeOther {
		t.Errorf("archive the location: %d", r.status)
	}
	if page := b.do("GET", "/dashboard/locations", nil); strings.Contains(page.body, "Acme HQ") || !strings.Contains(page.body, "No locations in use.") {
		t.Errorf("the Locations page with the location archived: %.2000s", page.body)
	}
	if r := b.do("POST", "/dashboard/locations/"+loc+"/restore", url.Values{"csrf": {csrf}}); r.status != http.StatusSeeOther {
		t.Errorf("restore the location: %d", r.status)
	}

	// Delete: refused for a door with events, with the way out; done for a mistake.
	refusedDelete := b.do("POST", "/dashboard/access-points/"+ap+"/delete", url.Values{"csrf": {csrf}}, "Accept", "text/html")
	if refusedDelete.status != http.StatusConflict || !strings.Contains(refusedDelete.body, `access point &#34;Acme door&#34; has 2 events: archive it instead`) ||
		!strings.Contains(refusedDelete.body, `href="/dashboard/access-points/`+ap+`/archive"`) {
		t.Errorf("delete of a door with events: %d %.2000s", refusedDelete.status, refusedDelete.body)
	}
	// Archived already, it is not offered archiving again.
	b.do("POST", "/dashboard/access-points/"+ap+"/archive", url.Values{"csrf": {csrf}})
	refusedDelete = b.do("POST", "/dashboard/access-points/"+ap+"/delete", url.Values{"csrf": {csrf}}, "Accept", "text/html")
	if refusedDelete.status != http.StatusConflict || strings.Contains(refusedDelete.body, "Archive it instead") {
		t.Errorf("delete of an archived door with events: %d %.2000s", refusedDelete.status, refusedDelete.body)
	}
	b.do("POST", "/dashboard/access-points/"+ap+"/restore", url.Values{"csrf": {csrf}})
	mistake, err := s.store.CreateAccessPoint(ctx, gatehouse.SystemEntry(gatehouse.AuditAccessPointCreated), acme.org.ID, acme.loc.ID, "Mistake")
	if err != nil {
		t.Fatal(err)
	}
	del := b.do("GET", "/dashboard/access-points/"+mistake.ID.String()+"/delete", nil)
	if !strings.Contains(del.body, `class="danger big">Delete Mistake</button>`) {
		t.Errorf("the delete confirmation: %.2000s", del.body)
	}
	if r := b.do("POST", "/dashboard/access-points/"+mistake.ID.String()+"/delete", url.Values{"csrf": {csrf}}); r.status != http.StatusSeeOther ||
		r.header.Get("Location") != "/dashboard/locations?done=deleted" {
		t.Errorf("delete of a mistake: %d %q", r.status, r.header.Get("Location"))
	}
	if _, err := s.store.FindAccessPoint(ctx, acme.org.ID, mistake.ID); err == nil {
		t.Error("the mistake was not deleted")
	}

	// Another organization's: not found, unchanged.
	for _, path := range []string{"/dashboard/access-points/" + rival.ap.ID.String() + "/archive", "/dashboard/locations/" + rival.loc.ID.String() + "/delete"} {
		if r := b.do("POST", path, url.Values{"csrf": {csrf}}); r.status != http.StatusNotFound {
			t.Errorf("POST %s: %d, want 404", path, r.status)
		}
		if r := b.do("GET", path, nil); r.status != http.StatusNotFound {
			t.Errorf("GET %s: %d, want 404", path, r.status)
		}
	}
	if found, err := s.store.FindAccessPoint(ctx, rival.org.ID, rival.ap.ID); err != nil || found.ArchivedAt != nil {
		t.Errorf("the rival's door: %+v %v", found, err)
	}

	log, err := s.store.ListAuditEntries(ctx, acme.org.ID, gatehouse.AuditFilter{Limit: 50})
	if err != nil {
		t.Fatal(err)
	}
	var actions []string
	for _, e := range log.Entries {
		switch e.Action {
		case gatehouse.AuditAccessPointArchived, gatehouse.AuditAccessPointRestored, gatehouse.AuditAccessPointDeleted,
			gatehouse.AuditLocationArchived, gatehouse.AuditLocationRestored:
			actions = append(actions, string(e.Action))
			if e.Actor.Type != gatehouse.ActorUser || e.Actor.Label != acme.email {
				t.Errorf("%s by %+v, want the admin", e.Action, e.Actor)
			}
		}
	}
	if got, want := strings.Join(actions, ","), "access_point.deleted,access_point.restored,access_point.archived,location.restored,location.archived,access_point.restored,access_point.archived"; got != want {
		t.Errorf("audit = %s, want %s", got, want)
	}
}

// TestOnlyAdminsRetire: an operator sees no Archive or Delete, is refused
// the confirmation pages, and a forged post changes nothing.
func TestOnlyAdminsRetire(t *testing.T) {
	s := newSite(t)
	acme := s.tenant("Acme")
	op := s.member(acme, "op@example.test", gatehouse.RoleOperator)
	ap := acme.ap.ID.String()
	page := op.do("GET", "/dashboard/locations", nil)
	if strings.Contains(page.body, "/archive") || strings.Contains(page.body, "/delete") {
		t.Error("an operator is offered Archive or Delete")
	}
	if r := op.do("GET", "/dashboard/access-points/"+ap+"/archive", nil); r.status != http.StatusForbidden {
		t.Errorf("an operator's archive confirmation: %d", r.status)
	}
	csrf := csrfOf(t, op.do("GET", "/dashboard/events", nil).body)
	for _, path := range []string{"/dashboard/access-points/" + ap + "/archive", "/dashboard/access-points/" + ap + "/delete",
		"/dashboard/locations/" + acme.loc.ID.String() + "/archive"} {
		if r := op.do("POST", path, url.Values{"csrf": {csrf}}); r.status != http.StatusForbidden {
			t.Errorf("an operator's POST %s: %d", path, r.status)
		}
	}
	if found, err := s.store.FindAccessPoint(context.Background(), acme.org.ID, acme.ap.ID); err != nil || found.ArchivedAt != nil {
		t.Errorf("the door after the operator's posts: %+v %v", found, err)
	}
}
