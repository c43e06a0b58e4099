package dashboard_test

import (
	"context"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/gatehouse/gatehouse"
	"github.com/google/uuid"
)

// gameServer syncs as the game server job of universe, without waiting,
// acknowledging acks, as a server's loop would: it is live afterwards
// and has taken what was due to it.
func (s *site) gameServer(tn tenant, job, universe string, acks ...gatehouse.Ack) gatehouse.SyncResult {
	s.t.Helper()
	ctx := gatehouse.WithActor(context.Background(), gatehouse.Actor{Type: gatehouse.ActorKey, ID: uuid.New(), OrgID: tn.org.ID})
	zero := 0
	res, err := s.svc.Sync(ctx, tn.org.ID, gatehouse.SyncRequest{ServerJobID: job, UniverseID: universe, Players: []string{"777"},
		Acks: acks, WaitSeconds: &zero})
	if err != nil {
		s.t.Fatalf("sync of %s: %v", job, err)
	}
	return res
}

var idemField = regexp.MustCompile(`name="idem" value="([^"]+)"`)

// unlockForm is the Unlock form's fields for the tenant's door.
func unlockForm(b *browser, tn tenant, fields ...string) url.Values {
	b.t.Helper()
	page := b.do("GET", "/dashboard/commands/unlock?accessPointId="+tn.ap.ID.String(), nil)
	if page.status != http.StatusOK {
		b.t.Fatalf("the Unlock form answers %d", page.status)
	}
	form := url.Values{"csrf": {csrfOf(b.t, page.body)}, "accessPointId": {tn.ap.ID.String()}}
	for i := 0; i+1 < len(fields); i += 2 {
		form.Set(fields[i], fields[i+1])
	}
	return form
}

// issue submits the Unlock form and its confirmation and returns the
// command's page's path.
func issue(b *browser, form url.Values) string {
	b.t.Helper()
	confirm := b.do("POST", "/dashboard/commands/unlock", form)
	m := idemField.FindStringSubmatch(confirm.body)
	if confirm.status != http.StatusOK || m == nil {
		b.t.Fatalf("the confirmation answers %d: %.600s", confirm.status, confirm.body)
	}
	form.Set("confirm", "yes")
	form.Set("idem", m[1])
	issued := b.do("POST", "/dashboard/commands/unlock", form)
	if issued.status != http.StatusSeeOther || !strings.HasPrefix(issued.header.Get("Location"), "/dashboard/commands/") {
		b.t.Fatalf("issuing answers %d %s: %.600s", issued.status, issued.header.Get("Location"), issued.body)
	}
	return issued.header.Get("Location")
}

// setUniverse submits the admin's universe form of the tenant's location.
func setUniverse(b *browser, tn tenant, universe string) answer {
	b.t.Helper()
	locs := b.do("GET", "/dashboard/locations", nil)
	return b.do("POST", "/dashboard/locations/"+tn.loc.ID.String()+"/universe", url.Values{"csrf": {csrfOf(b.t, locs.body)}, "universeId": {universe}})
}

// givenUniverse sets the universe of tn's location as b does, and stops
// the test when it is refused: the setup of the unlock tests.
func givenUniverse(b *browser, tn tenant, universe string) {
	b.t.Helper()
	if r := setUniverse(b, tn, universe); r.status != http.StatusSeeOther {
		b.t.Fatalf("setting the universe: %d %.300s", r.status, r.body)
	}
}

// TestLocationsShowAndSetTheirUniverse: an admin sets (and is told off
// for a malformed) universe; others see it and have no form.
func TestLocationsShowAndSetTheirUniverse(t *testing.T) {
	s := newSite(t)
	acme := s.tenant("Acme")
	admin := s.signedIn(acme)
	if r := setUniverse(admin, acme, "12x"); r.status != http.StatusBadRequest || !strings.Contains(r.body, "must be a positive integer") {
		t.Errorf("a malformed universe: %d", r.status)
	}
	givenUniverse(admin, acme, "4242")
	if locs := admin.do("GET", "/dashboard/locations", nil); !strings.Contains(locs.body, `value="4242"`) {
		t.Error("the admin's form does not show the universe")
	}
	operator := s.member(acme, "op@example.test", gatehouse.RoleOperator)
	locs := operator.do("GET", "/dashboard/locations", nil)
	if !strings.Contains(locs.body, "4242") || strings.Contains(locs.body, "/universe") {
		t.Error("an operator does not see the universe, or is offered its form")
	}
	csrf := csrfOf(t, locs.body)
	if r := operator.do("POST", "/dashboard/locations/"+acme.loc.ID.String()+"/universe", url.Values{"csrf": {csrf}, "universeId": {"1"}}); r.status != http.StatusForbidden {
		t.Errorf("an operator's universe post: %d", r.status)
	}
	if r := setUniverse(admin, acme, ""); r.status != http.StatusSeeOther {
		t.Errorf("clearing the universe: %d", r.status)
	}
	if locs := operator.do("GET", "/dashboard/locations", nil); strings.Contains(locs.body, "4242") {
		t.Error("the cleared universe is still shown")
	}
}

// TestAViewerCannotUnlock: no Unlock link or button, and the form, its
// confirmation, the issue and Cancel all answer 403.
func TestAViewerCannotUnlock(t *testing.T) {
	s := newSite(t)
	acme := s.tenant("Acme")
	givenUniverse(s.signedIn(acme), acme, "123")
	operator := s.member(acme, "op@example.test", gatehouse.RoleOperator)
	s.gameServer(acme, "job-a", "123")
	cmd := issue(operator, unlockForm(operator, acme, "scope", "UNIVERSE"))

	viewer := s.member(acme, "viewer@example.test", gatehouse.RoleViewer)
	for _, path := range []string{"/dashboard/locations", "/dashboard/commands", cmd} {
		r := viewer.do("GET", path, nil)
		if r.status != http.StatusOK || strings.Contains(r.body, "/dashboard/commands/unlock") || strings.Contains(r.body, "/cancel") {
			t.Errorf("%s: %d, or the viewer is offered Unlock or Cancel", path, r.status)
		}
	}
	csrf := csrfOf(t, viewer.do("GET", "/dashboard/commands", nil).body)
	form := url.Values{"csrf": {csrf}, "accessPointId": {acme.ap.ID.String()}, "scope": {"UNIVERSE"}, "durationSeconds": {"10"}}
	for _, step := range []string{"", "yes"} {
		form.Set("confirm", step)
		if r := viewer.do("POST", "/dashboard/commands/unlock", form); r.status != http.StatusForbidden {
			t.Errorf("a viewer's unlock (confirm=%q): %d", step, r.status)
		}
	}
	if r := viewer.do("GET", "/dashboard/commands/unlock", nil, "Accept", "text/html"); r.status != http.StatusForbidden || !strings.Contains(r.body, "Your role does not allow this") {
		t.Errorf("a viewer's Unlock form: %d", r.status)
	}
	if r := viewer.do("GET", cmd+"/cancel", nil); r.status != http.StatusForbidden {
		t.Errorf("a viewer's cancel confirmation: %d", r.status)
	}
	if r := viewer.do("POST", cmd+"/cancel", url.Values{"csrf": {csrf}}); r.status != http.StatusForbidden {
		t.Errorf("a viewer's cancel: %d", r.status)
	}
	page, err := s.svc.ListCommands(gatehouse.WithActor(context.Background(), gatehouse.Actor{Type: gatehouse.ActorUser, ID: uuid.New(), OrgID: acme.org.ID, Role: gatehouse.RoleViewer}),
		acme.org.ID, gatehouse.CommandFilter{Limit: 10})
	if err != nil || len(page.Commands) != 1 || page.Commands[0].Status != gatehouse.CommandPending {
		t.Errorf("the viewer's posts changed the commands: %v %+v", err, page.Commands)
	}
}

// TestUnlockFormSaysWhatIsWrongAndWhatWillHappen: problems next to their
// fields, the target field of another scope ignored, a location without
// universe refused before the confirmation, which says what will happen.
func TestUnlockFormSaysWhatIsWrongAndWhatWillHappen(t *testing.T) {
	s := newSite(t)
	acme := s.tenant("Acme")
	operator := s.member(acme, "op@example.test", gatehouse.RoleOperator)

	if r := operator.do("GET", "/dashboard/commands/unlock?accessPointId="+acme.ap.ID.String(), nil); !strings.Contains(r.body, "names no universe yet") {
		t.Error("the form does not say that the access point's location names no universe")
	}
	noUniverse := operator.do("POST", "/dashboard/commands/unlock", unlockForm(operator, acme, "scope", "UNIVERSE"))
	if noUniverse.status != http.StatusBadRequest || !strings.Contains(noUniverse.body, `id="accessPointId-error"`) || !strings.Contains(noUniverse.body, "names no universe") {
		t.Errorf("a location without universe: %d %.400s", noUniverse.status, noUniverse.body)
	}
	givenUniverse(s.signedIn(acme), acme, "123")
	bad := operator.do("POST", "/dashboard/commands/unlock", unlockForm(operator, acme, "scope", "SERVER", "durationSeconds", "99999", "platformUserId", "5"))
	for _, want := range []string{`id="serverJobId-error"`, "is required when scope is SERVER", `id="durationSeconds-error"`, "must be between 1 and 3600",
		`value="99999"`, `aria-invalid="true"`} {
		if !strings.Contains(bad.body, want) {
			t.Errorf("the refused form lacks %s", want)
		}
	}
	if bad.status != http.StatusBadRequest || strings.Contains(bad.body, `id="platformUserId-error"`) || strings.Contains(bad.body, `name="idem"`) {
		t.Errorf("refused form: %d, or the other scope's field is checked, or it confirms", bad.status)
	}
	notNumber := operator.do("POST", "/dashboard/commands/unlock", unlockForm(operator, acme, "scope", "PLAYER", "platformUserId", "abc", "durationSeconds", "ten"))
	if !strings.Contains(notNumber.body, "must be a whole number of seconds") || !strings.Contains(notNumber.body, `id="platformUserId-error"`) {
		t.Errorf("a duration or player that is not a number: %.500s", notNumber.body)
	}

	for scope, want := range map[string]string{
		"UNIVERSE": "Unlock Acme door at Acme HQ for every server of universe 123 for 30 s?",
		"SERVER":   "Unlock Acme door at Acme HQ on the server job-9 of universe 123 for 30 s?",
		"PLAYER":   "Unlock Acme door at Acme HQ for player 555, on the server of universe 123 that hosts them, for 30 s?",
	} {
		r := operator.do("POST", "/dashboard/commands/unlock", unlockForm(operator, acme, "scope", scope, "durationSeconds", "30",
			"serverJobId", "job-9", "platformUserId", "555", "note", "VIP"))
		if r.status != http.StatusOK || !strings.Contains(r.body, want) || !strings.Contains(r.body, "VIP") {
			t.Errorf("%s confirmation: %d, lacks %q", scope, r.status, want)
		}
	}
	page, err := s.svc.ListCommands(gatehouse.WithActor(context.Background(), gatehouse.Actor{Type: gatehouse.ActorUser, ID: uuid.New(), OrgID: acme.org.ID, Role: gatehouse.RoleViewer}),
		acme.org.ID, gatehouse.CommandFilter{Limit: 10})
	if err != nil || len(page.Commands) != 0 {
		t.Errorf("the form or its confirmation issued a command: %v %d", err, len(page.Commands))
	}
}

// TestOperatorUnlocksAndWatchesTheDeliveries is the operator's round: a
// UNIVERSE unlock of two live servers, issued once even if confirmed
// twice, its page following the servers' syncs (k of N, deliveries, the
// page reloading until it settles), the list with its filters, the Event
// Log's link, and Cancel.
func TestOperatorUnlocksAndWatchesTheDeliveries(t *testing.T) {
	s := newSite(t)
	acme, rival := s.tenant("Acme"), s.tenant("Rival")
	givenUniverse(s.signedIn(acme), acme, "123")
	s.gameServer(acme, "job-a", "123")
	s.gameServer(acme, "job-b", "123")
	operator := s.member(acme, "op@example.test", gatehouse.RoleOperator)
	if locs := operator.do("GET", "/dashboard/locations", nil); !strings.Contains(locs.body, `href="/dashboard/commands/unlock?accessPointId=`+acme.ap.ID.String()+`"`) {
		t.Error("the operator's locations offer no Unlock")
	}

	if r := operator.do("GET", "/dashboard/commands/unlock?accessPointId="+acme.ap.ID.String(), nil); strings.Contains(r.body, "names no universe") {
		t.Error("the form says a location with a universe has none")
	}
	form := unlockForm(operator, acme, "scope", "UNIVERSE", "durationSeconds", "30", "note", "VIP arrival")
	path := issue(operator, form)
	id := strings.TrimPrefix(path, "/dashboard/commands/")
	if again := operator.do("POST", "/dashboard/commands/unlock", form); again.header.Get("Location") != path {
		t.Errorf("confirming twice issued another command: %s", again.header.Get("Location"))
	}

	pending := operator.do("GET", path, nil)
	for _, want := range []string{"PENDING", "0 of 2 servers executed", "job-a", "job-b", "not yet", "VIP arrival", "op@example.test",
		"every server of universe 123", `http-equiv="refresh"`, path + "/cancel"} {
		if !strings.Contains(pending.body, want) {
			t.Errorf("the pending command's page lacks %s", want)
		}
	}

	// job-a takes it and applies it; job-b takes it.
	res := s.gameServer(acme, "job-a", "123")
	if len(res.Commands) != 1 || res.Commands[0].ID.String() != id {
		t.Fatalf("job-a's sync: %+v", res.Commands)
	}
	s.gameServer(acme, "job-a", "123", gatehouse.Ack{CommandID: res.Commands[0].ID, Result: gatehouse.AckExecuted})
	s.gameServer(acme, "job-b", "123")
	delivered := operator.do("GET", path, nil)
	for _, want := range []string{"DELIVERED", "1 of 2 servers executed", `<span class="badge EXECUTED">EXECUTED</span>`, `http-equiv="refresh"`} {
		if !strings.Contains(delivered.body, want) {
			t.Errorf("the delivered command's page lacks %s", want)
		}
	}
	if strings.Contains(delivered.body, "not yet") {
		t.Error("a delivery taken by its server is shown as not delivered")
	}

	list := operator.do("GET", "/dashboard/commands", nil)
	for _, want := range []string{`href="` + path + `"`, "1 of 2 servers executed", "DELIVERED", "UNIVERSE", acme.ap.Name, "op@example.test", `http-equiv="refresh"`} {
		if !strings.Contains(list.body, want) {
			t.Errorf("the Commands list lacks %s", want)
		}
	}
	if r := operator.do("GET", "/dashboard/commands?status=EXECUTED", nil); strings.Contains(r.body, path) {
		t.Error("the status filter does not filter")
	}
	if r := operator.do("GET", "/dashboard/commands?scope=UNIVERSE&accessPointId="+acme.ap.ID.String()+"&locationId="+acme.loc.ID.String(), nil); !strings.Contains(r.body, path) {
		t.Error("the scope, access point and location filters hide a matching command")
	}
	if r := operator.do("GET", "/dashboard/commands?locationId="+rival.loc.ID.String(), nil); strings.Contains(r.body, path) {
		t.Error("the location filter does not filter")
	}
	if r := operator.do("GET", "/dashboard/commands?status=DONE&cursor=zz", nil); r.status != http.StatusBadRequest || !strings.Contains(r.body, "Status") || !strings.Contains(r.body, "Page") {
		t.Errorf("bad filters: %d", r.status)
	}

	events := operator.do("GET", "/dashboard/events?type=REMOTE_UNLOCK", nil)
	if !strings.Contains(events.body, `href="`+path+`"`) {
		t.Error("the Event Log does not link the REMOTE_UNLOCK event to its command")
	}

	// Another organization's user does not see it.
	if r := s.signedIn(rival).do("GET", path, nil); r.status != http.StatusNotFound {
		t.Errorf("another organization's command: %d", r.status)
	}

	confirm := operator.do("GET", path+"/cancel", nil)
	if confirm.status != http.StatusOK || !strings.Contains(confirm.body, "Cancel the unlock of Acme door?") {
		t.Fatalf("the cancel confirmation: %d", confirm.status)
	}
	csrf := csrfOf(t, confirm.body)
	if r := operator.do("POST", path+"/cancel", url.Values{"csrf": {csrf}}); r.status != http.StatusSeeOther || r.header.Get("Location") != path {
		t.Fatalf("cancel: %d %s", r.status, r.header.Get("Location"))
	}
	cancelled := operator.do("GET", path, nil)
	if !strings.Contains(cancelled.body, "CANCELLED") || strings.Contains(cancelled.body, path+"/cancel") || strings.Contains(cancelled.body, `http-equiv="refresh"`) {
		t.Error("the cancelled command still offers Cancel, reloads, or is not CANCELLED")
	}
	if r := operator.do("POST", path+"/cancel", url.Values{"csrf": {csrf}}); r.status != http.StatusConflict || !strings.Contains(r.body, "Nothing was cancelled") {
		t.Errorf("cancelling a settled command: %d", r.status)
	}
	if r := operator.do("GET", path+"/cancel", nil); r.status != http.StatusSeeOther {
		t.Errorf("the cancel confirmation of a settled command: %d", r.status)
	}
	if r := operator.do("GET", "/dashboard/commands", nil); strings.Contains(r.body, `http-equiv="refresh"`) {
		t.Error("the list reloads with every command settled")
	}
}

// TestCommandsPageOlderAndNewer: the list pages as the Event Log does.
func TestCommandsPageOlderAndNewer(t *testing.T) {
	s := newSite(t)
	acme := s.tenant("Acme")
	givenUniverse(s.signedIn(acme), acme, "123")
	operator := s.member(acme, "op@example.test", gatehouse.RoleOperator)
	var paths []string
	for range 3 {
		paths = append(paths, issue(operator, unlockForm(operator, acme, "scope", "SERVER", "serverJobId", "gone")))
		s.now = s.now.Add(time.Second)
	}
	first := operator.do("GET", "/dashboard/commands?limit=2", nil)
	if !strings.Contains(first.body, paths[2]) || !strings.Contains(first.body, paths[1]) || strings.Contains(first.body, `href="`+paths[0]+`"`) {
		t.Fatal("the first page is not the two newest")
	}
	if !strings.Contains(first.body, "SERVER_NOT_LIVE") && !strings.Contains(first.body, "FAILED") {
		t.Error("a command to a server that is not live is not shown FAILED")
	}
	if strings.Contains(first.body, `http-equiv="refresh"`) {
		t.Error("a page of settled commands reloads")
	}
	older := regexp.MustCompile(`href="(/dashboard/commands\?[^"]*cursor=[^"]+)" rel="next"`).FindStringSubmatch(first.body)
	if older == nil {
		t.Fatal("no Older link")
	}
	second := operator.do("GET", strings.ReplaceAll(older[1], "&amp;", "&"), nil)
	if !strings.Contains(second.body, paths[0]) || strings.Contains(second.body, `href="`+paths[1]+`"`) || strings.Contains(second.body, `rel="next"`) {
		t.Fatalf("the older page: %.400s", second.body)
	}
	newer := regexp.MustCompile(`href="([^"]+)" rel="prev"`).FindStringSubmatch(second.body)
	if newer == nil {
		t.Fatal("no Newer link")
	}
	if back := operator.do("GET", strings.ReplaceAll(newer[1], "&amp;", "&"), nil); !strings.Contains(back.body, paths[2]) {
		t.Error("Newer does not come back to the first page")
	}
}
