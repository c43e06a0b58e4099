package dashboard_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/gatehouse/gatehouse"
)

// TestAccessPointsRenameAndMove: an admin renames an access point and
// moves it to another location of the organization from the Locations
// page, each change audited once as the admin; another organization's
// access point or location is not found and nothing of theirs changes.
func TestAccessPointsRenameAndMove(t *testing.T) {
	s := newSite(t)
	acme, rival := s.tenant("Acme"), s.tenant("Rival")
	ctx := context.Background()
	annex, err := s.store.CreateLocation(ctx, gatehouse.SystemEntry(gatehouse.AuditLocationCreated), acme.org.ID, "Acme annex")
	if err != nil {
		t.Fatal(err)
	}
	b := s.signedIn(acme)
	page := b.do("GET", "/dashboard/locations", nil)
	ap := acme.ap.ID.String()
	for _, want := range []string{
		`action="/dashboard/access-points/` + ap + `/rename"`,
		`action="/dashboard/access-points/` + ap + `/move"`,
		`<option value="` + annex.ID.String() + `">Acme annex</option>`,
	} {
		if !strings.Contains(page.body, want) {
			t.Errorf("the Locations page lacks %s", want)
		}
	}
	if strings.Contains(page.body, `<option value="`+acme.loc.ID.String()+`"`) {
		t.Error("the move select offers the location the access point is in")
	}
	csrf := csrfOf(t, page.body)
	if r := b.do("POST", "/dashboard/access-points/"+ap+"/rename", url.Values{"csrf": {csrf}, "name": {"Main door"}}); r.status != http.StatusSeeOther {
		t.Errorf("rename: %d %.300s", r.status, r.body)
	}
	if r := b.do("POST", "/dashboard/access-points/"+ap+"/rename", url.Values{"csrf": {csrf}, "name": {" "}}); r.status != http.StatusBadRequest {
		t.Errorf("an empty name: %d", r.status)
	}
	if r := b.do("POST", "/dashboard/access-points/"+ap+"/move", url.Values{"csrf": {csrf}, "locationId": {annex.ID.String()}}); r.status != http.StatusSeeOther {
		t.Errorf("move: %d %.300s", r.status, r.body)
	}
	moved, err := s.store.FindLocation(ctx, acme.org.ID, annex.ID)
	if err != nil || len(moved.AccessPoints) != 1 || moved.AccessPoints[0].ID != acme.ap.ID || moved.AccessPoints[0].Name != "Main door" {
		t.Errorf("the annex after the move: %+v %v", moved.AccessPoints, err)
	}

	// Another organization's access point, or a move to its location.
	for _, post := range []struct {
		path string
		form url.Values
	}{
		{"/dashboard/access-points/" + rival.ap.ID.String() + "/rename", url.Values{"name": {"Taken"}}},
		{"/dashboard/access-points/" + rival.ap.ID.String() + "/move", url.Values{"locationId": {annex.ID.String()}}},
		{"/dashboard/access-points/" + ap + "/move", url.Values{"locationId": {rival.loc.ID.String()}}},
		{"/dashboard/access-points/" + ap + "/move", url.Values{"locationId": {"not-a-uuid"}}},
	} {
		post.form.Set("csrf", csrf)
		if r := b.do("POST", post.path, post.form); r.status != http.StatusNotFound {
			t.Errorf("POST %s %v: %d, want 404", post.path, post.form, r.status)
		}
	}
	locs, _, _ := s.store.ListLocations(ctx, rival.org.ID, 10, nil, false, nil)
	if len(locs) != 1 || len(locs[0].AccessPoints) != 1 || locs[0].AccessPoints[0].Name != "Rival door" {
		t.Errorf("another organization's locations changed: %+v", locs)
	}
	if l, _ := s.store.FindLocation(ctx, acme.org.ID, annex.ID); len(l.AccessPoints) != 1 {
		t.Errorf("the access point left the annex: %+v", l)
	}

	log, err := s.store.ListAuditEntries(ctx, acme.org.ID, gatehouse.AuditFilter{TargetID: &acme.ap.ID, Limit: 10})
	if err != nil {
		t.Fatal(err)
	}
	var actions []string
	for _, e := range log.Entries {
		actions = append(actions, string(e.Action))
		if e.Action != gatehouse.AuditAccessPointCreated && (e.Actor.Type != gatehouse.ActorUser || e.Actor.Label != acme.email) {
			t.Errorf("%s by %+v, want %s", e.Action, e.Actor, acme.email)
		}
	}
	if got, want := strings.Join(actions, ","), "access_point.moved,access_point.renamed,access_point.created"; got != want {
		t.Errorf("audit log of the access point: %s, want %s", got, want)
	}
}
