package dashboard_test

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"html"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gatehouse/gatehouse"
)

var (
	erasureURLField    = regexp.MustCompile(`id="erasure-url" class="mono" readonly value="([^"]+)"`)
	erasureSecretField = regexp.MustCompile(`id="erasure-secret" class="mono" readonly value="([^"]+)"`)
)

// playerEvents counts the events of player in the organization, as the
// service reads them.
func (s *site) playerEvents(orgID gatehouse.Organization, player string) int {
	s.t.Helper()
	page, err := s.svc.ListEvents(context.Background(), orgID.ID, gatehouse.EventFilter{PlatformUserID: &player, Limit: 100})
	if err != nil {
		s.t.Fatal(err)
	}
	return len(page.Events)
}

// privacyCSRF opens the Privacy page as b and returns its CSRF token.
func privacyCSRF(b *browser) string {
	b.t.Helper()
	page := b.do("GET", "/dashboard/privacy", nil)
	if page.status != http.StatusOK {
		b.t.Fatalf("the privacy page: %d %.300s", page.status, page.body)
	}
	return csrfOf(b.t, page.body)
}

// signErasure signs body as the platform's "Webhook notifications"
// documentation says: t=<unix seconds>,v1=<base64 of HMAC-SHA256 keyed
// by the secret over "<t>.<body>">.
func signErasure(secret string, at time.Time, body string) string {
	ts := strconv.FormatInt(at.Unix(), 10)
	m := hmac.New(sha256.New, []byte(secret))
	m.Write([]byte(ts + "." + body))
	return "t=" + ts + ",v1=" + base64.StdEncoding.EncodeToString(m.Sum(nil))
}

func erasureNotification(id, eventType string, user int) string {
	return fmt.Sprintf(`{"NotificationId":%q,"EventType":%q,"EventTime":"2026-11-20T11:59:58.1234567Z","EventPayload":{"UserId":%d}}`, id, eventType, user)
}

// TestPrivacyRetention: the page shows the retention; a value out of
// bounds or not a number comes back next to the field, as typed, and
// changes nothing; a good one is stored and the page says so.
func TestPrivacyRetention(t *testing.T) {
	s := newSite(t)
	acme := s.tenant("Acme")
	ctx := context.Background()
	admin := s.signedIn(acme)
	if nav := admin.do("GET", "/dashboard/events", nil).body; !strings.Contains(nav, `href="/dashboard/privacy"`) {
		t.Error("the admin's nav lacks the privacy page")
	}
	page := admin.do("GET", "/dashboard/privacy", nil)
	if page.status != http.StatusOK || !strings.Contains(page.body, "<strong>400 days</strong>") || !strings.Contains(page.body, `name="retentionDays" type="number" required min="367" max="36500" step="1" value="400"`) {
		t.Fatalf("the page: %d, or no retention of 400 days: %.2000s", page.status, page.body)
	}
	csrf := csrfOf(t, page.body)
	if r := admin.do("POST", "/dashboard/privacy/retention", url.Values{"retentionDays": {"730"}}); r.status != http.StatusForbidden {
		t.Errorf("a change without the CSRF token: %d", r.status)
	}
	for typed, want := range map[string]string{"366": "must be from 367", "36501": "must be from 367", "a year": "must be a whole number of days"} {
		r := admin.do("POST", "/dashboard/privacy/retention", url.Values{"csrf": {csrf}, "retentionDays": {typed}})
		if r.status != http.StatusBadRequest || !strings.Contains(r.body, want) || !strings.Contains(r.body, `id="retention-days-error"`) ||
			!strings.Contains(r.body, `value="`+typed+`" aria-invalid="true"`) {
			t.Errorf("retention %q: %d, want 400 with %q next to the field and the value typed", typed, r.status, want)
		}
	}
	if org, _ := s.svc.Organization(ctx, acme.org.ID); org.RetentionDays != gatehouse.DefaultRetentionDays {
		t.Fatalf("a refused value changed the retention to %d", org.RetentionDays)
	}
	set := admin.do("POST", "/dashboard/privacy/retention", url.Values{"csrf": {csrf}, "retentionDays": {" 730 "}})
	if set.status != http.StatusSeeOther || set.header.Get("Location") != "/dashboard/privacy?done=retention" {
		t.Fatalf("set: %d to %q", set.status, set.header.Get("Location"))
	}
	if org, _ := s.svc.Organization(ctx, acme.org.ID); org.RetentionDays != 730 {
		t.Errorf("the stored retention: %d, want 730", org.RetentionDays)
	}
	if after := admin.do("GET", "/dashboard/privacy?done=retention", nil); !strings.Contains(after.body, "<strong>730 days</strong>") ||
		!strings.Contains(after.body, "The retention is changed") {
		t.Error("the page after the change shows neither the new retention nor the notice")
	}
}

// TestPrivacyErasePlayer: the erase form leads to a confirmation that
// erases nothing; the confirmed form erases the player's events and
// commands of the organization only, and the page says how many, the id
// in no URL nor cookie; a reload says it no more. An empty or bad id is
// shown next to the field.
func TestPrivacyErasePlayer(t *testing.T) {
	s := newSite(t)
	acme, rival := s.tenant("Acme"), s.tenant("Rival")
	ctx := context.Background()
	admin := s.signedIn(acme)
	givenUniverse(admin, acme, "4242")
	issue(admin, unlockForm(admin, acme, "scope", "PLAYER", "platformUserId", "111"))
	csrf := privacyCSRF(admin)

	if r := admin.do("POST", "/dashboard/privacy/erase", url.Values{"csrf": {csrf}, "platformUserId": {"  "}}); r.status != http.StatusBadRequest ||
		!strings.Contains(r.body, `id="erase-player-error"`) || !strings.Contains(r.body, "is required") {
		t.Errorf("an empty id: %d", r.status)
	}
	long := strings.Repeat("9", gatehouse.MaxExternalID+1)
	if r := admin.do("POST", "/dashboard/privacy/erase", url.Values{"csrf": {csrf}, "platformUserId": {long}, "confirm": {"yes"}}); r.status != http.StatusBadRequest ||
		!strings.Contains(r.body, `id="erase-player-error"`) {
		t.Errorf("a too long id: %d", r.status)
	}

	confirm := admin.do("POST", "/dashboard/privacy/erase", url.Values{"csrf": {csrf}, "platformUserId": {"111"}})
	for _, want := range []string{"Erase every event and command of player <span class=\"mono\">111</span>? This cannot be undone.",
		`name="confirm" value="yes"`, `name="platformUserId" value="111"`, `action="/dashboard/privacy/erase"`} {
		if confirm.status != http.StatusOK || !strings.Contains(confirm.body, want) {
			t.Fatalf("the confirmation: %d, lacks %s", confirm.status, want)
		}
	}
	// The player's denial and the REMOTE_UNLOCK event of their command.
	if n := s.playerEvents(acme.org, "111"); n != 2 {
		t.Fatalf("the confirmation erased: %d events of the player left, want 2", n)
	}

	erased := admin.do("POST", "/dashboard/privacy/erase", url.Values{"csrf": {csrf}, "platformUserId": {"111"}, "confirm": {"yes"}})
	if erased.status != http.StatusSeeOther || erased.header.Get("Location") != "/dashboard/privacy" {
		t.Fatalf("erase: %d to %q", erased.status, erased.header.Get("Location"))
	}
	cookie := erased.header.Get("Set-Cookie")
	for _, want := range []string{"gatehouse_erased=", "HttpOnly", "Max-Age=60", "Path=/dashboard/privacy", "SameSite=Strict"} {
		if !strings.Contains(cookie, want) {
			t.Errorf("the notice's flash cookie lacks %s: %s", want, cookie)
		}
	}
	value, _ := base64.RawURLEncoding.DecodeString(strings.TrimPrefix(strings.Split(cookie, ";")[0], "gatehouse_erased="))
	if strings.Contains(string(value), "111") {
		t.Errorf("the flash cookie carries the player's id: %s", value)
	}
	shown := admin.do("GET", "/dashboard/privacy", nil)
	if !strings.Contains(shown.body, "Erased 2 events and 1 commands") {
		t.Errorf("the page after erasing lacks the counts: %.1500s", shown.body)
	}
	if reloaded := admin.do("GET", "/dashboard/privacy", nil); strings.Contains(reloaded.body, "Erased ") {
		t.Error("a reload shows the notice again")
	}
	for _, link := range regexp.MustCompile(`(?:href|action)="([^"]*)"`).FindAllStringSubmatch(shown.body, -1) {
		if namesPlayer111.MatchString(link[1]) {
			t.Errorf("a link of the page names the player: %s", link[1])
		}
	}

	if n := s.playerEvents(acme.org, "111"); n != 0 {
		t.Errorf("%d events of the erased player are left", n)
	}
	if n := s.playerEvents(acme.org, "222"); n != 1 {
		t.Errorf("another player's events: %d, want 1", n)
	}
	if n := s.playerEvents(rival.org, "111"); n != 1 {
		t.Errorf("another organization's player 111: %d events, want 1", n)
	}
	cmds, err := s.svc.ListCommands(ctx, acme.org.ID, gatehouse.CommandFilter{Limit: 10})
	if err != nil || len(cmds.Commands) != 0 {
		t.Errorf("the player's commands after the erasure: %d, %v", len(cmds.Commands), err)
	}
}

// TestPrivacyErasureWebhook: an admin sets up the webhook and sees its
// URL (this server's address) and secret; the platform's requests to
// that URL, signed with that secret, are listed with their outcomes, a
// player's erasure by hash; replacing changes both and the old URL no
// longer works.
func TestPrivacyErasureWebhook(t *testing.T) {
	s := newSite(t)
	acme := s.tenant("Acme")
	ctx := context.Background()
	admin := s.signedIn(acme)
	page := admin.do("GET", "/dashboard/privacy", nil)
	if !strings.Contains(page.body, "Not set up yet") || strings.Contains(page.body, "erasure-secret") || !strings.Contains(page.body, "No request received yet") {
		t.Fatal("the page before the set-up shows a webhook or requests")
	}
	csrf := csrfOf(t, page.body)
	setUp := func() (string, string) {
		t.Helper()
		r := admin.do("POST", "/dashboard/privacy/erasure-webhook", url.Values{"csrf": {csrf}})
		if r.status != http.StatusSeeOther || r.header.Get("Location") != "/dashboard/privacy?done=webhook" {
			t.Fatalf("set up: %d to %q", r.status, r.header.Get("Location"))
		}
		shown := admin.do("GET", "/dashboard/privacy?done=webhook", nil)
		u, sec := erasureURLField.FindStringSubmatch(shown.body), erasureSecretField.FindStringSubmatch(shown.body)
		if u == nil || sec == nil || !strings.Contains(shown.body, "The erasure webhook is set up") ||
			!strings.Contains(shown.body, `data-copy="erasure-url"`) || !strings.Contains(shown.body, `data-copy="erasure-secret"`) ||
			!strings.Contains(shown.body, "Right to erasure request") || !strings.Contains(shown.body, "the current URL stops working") {
			t.Fatalf("the page after the set-up: %.3000s", shown.body)
		}
		in, err := s.svc.ErasureWebhook(ctx, acme.org.ID)
		if err != nil || html.UnescapeString(u[1]) != s.url+"/api/consumer/v1/integrations/roblox/erasure/"+in.Token || html.UnescapeString(sec[1]) != in.Secret {
			t.Fatalf("the page shows %s and %s, want the service's (%v)", u[1], sec[1], err)
		}
		return html.UnescapeString(u[1]), in.Secret
	}
	oldURL, oldSecret := setUp()
	hookURL, secret := setUp()
	if hookURL == oldURL || secret == oldSecret {
		t.Fatal("replacing kept the URL or the secret")
	}

	post := func(u, signature, body string) int {
		t.Helper()
		req, _ := http.NewRequest("POST", u, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("roblox-signature", signature)
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		return res.StatusCode
	}
	erase := erasureNotification("n-2", "RightToErasureRequest", 111)
	if code := post(oldURL, signErasure(oldSecret, s.now, erase), erase); code != http.StatusNotFound {
		t.Errorf("the replaced URL answers %d, want 404", code)
	}
	token := strings.TrimPrefix(hookURL, s.url+"/api/consumer/v1/integrations/roblox/erasure/")
	test := erasureNotification("n-1", "SampleNotification", 1)
	if r, err := s.svc.ReceiveErasure(ctx, token, signErasure(secret, s.now, test), []byte(test)); err != nil || r.Outcome != gatehouse.ErasureIgnored {
		t.Fatalf("the platform's test: %+v, %v", r, err)
	}
	if code := post(hookURL, signErasure("not the secret", s.now, erase), erase); code != http.StatusUnauthorized {
		t.Errorf("a request signed with another secret: %d", code)
	}
	if code := post(hookURL, signErasure(secret, s.now, erase), erase); code != http.StatusOK {
		t.Fatalf("the erasure at the URL shown: %d", code)
	}
	if n := s.playerEvents(acme.org, "111"); n != 0 {
		t.Errorf("the platform's erasure left %d events", n)
	}

	list := admin.do("GET", "/dashboard/privacy", nil)
	rows := regexp.MustCompile(`(?s)<tbody>(.*)</tbody>`).FindStringSubmatch(list.body)
	if rows == nil {
		t.Fatal("no table of requests")
	}
	got := regexp.MustCompile(`<span class="badge (\w+)">`).FindAllStringSubmatch(rows[1], -1)
	if len(got) != 3 || got[0][1] != "erased" || got[1][1] != "refused" || got[2][1] != "ignored" {
		t.Fatalf("the requests listed: %v, want erased, refused, ignored (newest first)", got)
	}
	for _, want := range []string{"n-1", "n-2", "not a right-to-erasure request: SampleNotification", "the signature does not match the secret",
		"hmac-sha256:", "<td>1</td>"} {
		if !strings.Contains(rows[1], want) {
			t.Errorf("the requests listed lack %s", want)
		}
	}
	if strings.Contains(rows[1], ">111<") {
		t.Error("the requests listed name the player's id")
	}
}

// TestPrivacyIsAdminsOnlyAndPerOrganization: a viewer and an operator
// have no link, and the page and its forms answer them 403 and change
// nothing; another organization's admin sees none of Acme's settings,
// webhook or requests, and their forms change only their own.
func TestPrivacyIsAdminsOnlyAndPerOrganization(t *testing.T) {
	s := newSite(t)
	acme, rival := s.tenant("Acme"), s.tenant("Rival")
	ctx := context.Background()
	admin := s.signedIn(acme)
	csrf := privacyCSRF(admin)
	if r := admin.do("POST", "/dashboard/privacy/retention", url.Values{"csrf": {csrf}, "retentionDays": {"500"}}); r.status != http.StatusSeeOther {
		t.Fatalf("retention: %d", r.status)
	}
	if r := admin.do("POST", "/dashboard/privacy/erasure-webhook", url.Values{"csrf": {csrf}}); r.status != http.StatusSeeOther {
		t.Fatalf("set up: %d", r.status)
	}
	in, err := s.svc.ErasureWebhook(ctx, acme.org.ID)
	if err != nil {
		t.Fatal(err)
	}
	test := erasureNotification("acme-test", "SampleNotification", 1)
	if _, err := s.svc.ReceiveErasure(ctx, in.Token, signErasure(in.Secret, s.now, test), []byte(test)); err != nil {
		t.Fatal(err)
	}
	forms := map[string]url.Values{
		"/dashboard/privacy/retention":       {"retentionDays": {"367"}},
		"/dashboard/privacy/erase":           {"platformUserId": {"111"}},
		"/dashboard/privacy/erase?confirmed": {"platformUserId": {"111"}, "confirm": {"yes"}},
		"/dashboard/privacy/erasure-webhook": {},
	}

	for _, role := range []gatehouse.Role{gatehouse.RoleViewer, gatehouse.RoleOperator} {
		b := s.member(acme, string(role)+"@example.test", role)
		log := b.do("GET", "/dashboard/events", nil)
		if strings.Contains(log.body, `href="/dashboard/privacy"`) {
			t.Errorf("%s: the nav offers the privacy page", role)
		}
		if r := b.do("GET", "/dashboard/privacy", nil, "Accept", "text/html"); r.status != http.StatusForbidden || !strings.Contains(r.body, "Your role does not allow this") ||
			strings.Contains(r.body, in.Secret) || strings.Contains(r.body, "acme-test") {
			t.Errorf("%s: GET the page answers %d", role, r.status)
		}
		for p, form := range forms {
			form.Set("csrf", csrfOf(t, log.body))
			if r := b.do("POST", strings.TrimSuffix(p, "?confirmed"), form); r.status != http.StatusForbidden || !strings.Contains(r.body, `"code":"forbidden"`) ||
				namesPlayer111.MatchString(requestIDField.ReplaceAllString(r.body, "")) {
				t.Errorf("%s: forged POST %s answers %d %.200s, want 403 forbidden", role, p, r.status, r.body)
			}
		}
	}
	if org, _ := s.svc.Organization(ctx, acme.org.ID); org.RetentionDays != 500 {
		t.Errorf("Acme's retention: %d, want 500", org.RetentionDays)
	}
	if now, _ := s.svc.ErasureWebhook(ctx, acme.org.ID); now.Token != in.Token {
		t.Error("a refused form replaced Acme's webhook")
	}
	if n := s.playerEvents(acme.org, "111"); n != 1 {
		t.Errorf("a refused form erased Acme's player: %d events left", n)
	}

	other := s.signedIn(rival)
	page := other.do("GET", "/dashboard/privacy", nil)
	if page.status != http.StatusOK || !strings.Contains(page.body, "<strong>400 days</strong>") || !strings.Contains(page.body, "Not set up yet") ||
		!strings.Contains(page.body, "No request received yet") || strings.Contains(page.body, in.Token) || strings.Contains(page.body, "acme-test") {
		t.Errorf("another organization's page: %d, or it shows Acme's settings, webhook or requests", page.status)
	}
	rcsrf := csrfOf(t, page.body)
	if r := other.do("POST", "/dashboard/privacy/erase", url.Values{"csrf": {rcsrf}, "platformUserId": {"111"}, "confirm": {"yes"}}); r.status != http.StatusSeeOther {
		t.Fatalf("Rival's erasure: %d", r.status)
	}
	if r := other.do("POST", "/dashboard/privacy/erasure-webhook", url.Values{"csrf": {rcsrf}}); r.status != http.StatusSeeOther {
		t.Fatalf("Rival's set-up: %d", r.status)
	}
	if n := s.playerEvents(rival.org, "111"); n != 0 {
		t.Errorf("Rival's player: %d events left", n)
	}
	if n := s.playerEvents(acme.org, "111"); n != 1 {
		t.Errorf("Rival's erasure reached Acme: %d events left", n)
	}
	if now, _ := s.svc.ErasureWebhook(ctx, acme.org.ID); now.Token != in.Token {
		t.Error("Rival's set-up replaced Acme's webhook")
	}
	if body := other.do("GET", "/dashboard/privacy", nil).body; strings.Contains(body, in.Token) || strings.Contains(body, in.Secret) {
		t.Error("Rival's page shows Acme's webhook")
	}
}

// namesPlayer111 finds the player id 111 as a value of its own, not as
// digits inside a random id or hash; requestIDField is the random part of
// an error body.
var (
	namesPlayer111 = regexp.MustCompile(`(^|[^0-9a-f])111($|[^0-9a-f])`)
	requestIDField = regexp.MustCompile(`"requestId":"[^"]*"`)
)
