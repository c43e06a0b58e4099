package dashboard_test

import (
	"context"
	"html"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gatehouse/gatehouse"
	"github.com/gatehouse/gatehouse/internal/app"
	"github.com/gatehouse/gatehouse/internal/service"
	"github.com/google/uuid"
)

var (
	webhookSecret = regexp.MustCompile(`whsec_[A-Za-z0-9+/]{43}=`)
	webhookLink   = regexp.MustCompile(`<a href="/dashboard/webhooks/([0-9a-f-]{36})">The endpoint's page</a>`)
)

// receiver stands for the endpoints' servers: it answers every delivery
// with status and keeps the last request.
type receiver struct {
	mu     sync.Mutex
	status int
	header http.Header
	body   []byte
}

func (rc *receiver) send(_ context.Context, _ string, header http.Header, body []byte) (int, []byte, error) {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	rc.header, rc.body = header, body
	return rc.status, nil, nil
}

func (rc *receiver) answer(status int) { rc.mu.Lock(); rc.status = status; rc.mu.Unlock() }

// newWebhookSite is a site whose deliveries go to the returned receiver,
// sent when the test calls deliver.
func newWebhookSite(t *testing.T) (*site, *receiver) {
	rc := &receiver{status: http.StatusOK}
	s := newSiteWith(t, nil, func(st *app.Settings) {
		st.Webhooks = func(w *service.WebhookSettings) { w.Send = rc.send }
	})
	return s, rc
}

// deliver runs the delivery rounds of every endpoint due.
func (s *site) deliver() {
	s.t.Helper()
	for range 10 {
		claimed, err := s.svc.DeliverWebhooks(context.Background(), "test")
		if err != nil {
			s.t.Fatal(err)
		}
		if !claimed {
			return
		}
	}
}

// createWebhook submits the create form with fields and returns the new
// endpoint's id and its secret, from the page the form's redirect leads to.
func createWebhook(b *browser, fields url.Values) (id, secret string) {
	b.t.Helper()
	fields.Set("csrf", csrfOf(b.t, b.do("GET", "/dashboard/webhooks", nil).body))
	posted := b.do("POST", "/dashboard/webhooks", fields)
	if posted.status != http.StatusSeeOther || posted.header.Get("Location") != "/dashboard/webhooks" {
		b.t.Fatalf("create: %d to %q: %.600s", posted.status, posted.header.Get("Location"), posted.body)
	}
	page := b.do("GET", "/dashboard/webhooks", nil)
	secret = webhookSecret.FindString(html.UnescapeString(page.body))
	m := webhookLink.FindStringSubmatch(page.body)
	if secret == "" || m == nil {
		b.t.Fatalf("the page after creating shows no secret or no link: %.600s", page.body)
	}
	return m[1], secret
}

// TestWebhookCreateShowsTheSecretOnce: the form's problems come back by
// field with the values typed and create nothing; a good form redirects
// (the secret in neither the URL nor the body) to the list, which shows
// the secret once, in a warning; the list shows the endpoint and its
// filters (empty ones omitted); deliveries are signed with that secret.
func TestWebhookCreateShowsTheSecretOnce(t *testing.T) {
	s, rc := newWebhookSite(t)
	acme := s.tenant("Acme")
	ctx := context.Background()
	b := s.signedIn(acme)
	if nav := b.do("GET", "/dashboard/events", nil).body; !strings.Contains(nav, `href="/dashboard/webhooks"`) {
		t.Error("the admin's nav lacks the webhooks page")
	}
	page := b.do("GET", "/dashboard/webhooks", nil)
	if page.status != http.StatusOK || !strings.Contains(page.body, "No webhook endpoint yet") {
		t.Fatalf("the empty page: %d", page.status)
	}
	csrf := csrfOf(t, page.body)
	if r := b.do("POST", "/dashboard/webhooks", url.Values{"url": {"https://hooks.example.com/x"}}); r.status != http.StatusForbidden {
		t.Errorf("a create without the CSRF token: %d", r.status)
	}
	bad := b.do("POST", "/dashboard/webhooks", url.Values{"csrf": {csrf}, "url": {"http://hooks.example.com/x"},
		"description": {"Typed description"}, "types": {"webhook.test"}, "reason": {"not a code"}, "allowed": {"denied"}})
	if bad.status != http.StatusBadRequest {
		t.Fatalf("a bad form: %d", bad.status)
	}
	for _, want := range []string{"must use https", "<strong>Types</strong>", "<strong>Filter Reason</strong>", "must be a reason code",
		`value="http://hooks.example.com/x"`, `value="Typed description"`, `value="not a code"`, `<option selected>denied</option>`,
		`aria-invalid="true"`} {
		if !strings.Contains(bad.body, want) {
			t.Errorf("the refused form lacks %s", want)
		}
	}
	if hooks, _ := s.svc.ListWebhooks(ctx, acme.org.ID); len(hooks) != 0 || strings.Contains(bad.body, "whsec_") {
		t.Fatalf("a refused form created %d endpoints or shows a secret", len(hooks))
	}

	form := url.Values{"csrf": {csrf}, "url": {"https://hooks.example.com/x"}, "description": {"Door alerts"},
		"types": {"event.created", "command.updated"}, "type": {"ACCESS_DENIED"}, "allowed": {"denied"},
		"locationId": {acme.loc.ID.String()}, "accessPointId": {""}, "platformUserId": {" "}, "reason": {""}, "scope": {""}}
	posted := b.do("POST", "/dashboard/webhooks", form)
	if posted.status != http.StatusSeeOther || posted.header.Get("Location") != "/dashboard/webhooks" || strings.Contains(posted.body, "whsec_") {
		t.Fatalf("create: %d to %q, want 303 to the list and no secret in the answer", posted.status, posted.header.Get("Location"))
	}
	cookie := posted.header.Get("Set-Cookie")
	for _, want := range []string{"gatehouse_new_webhook=", "HttpOnly", "Max-Age=60", "Path=/dashboard/webhooks", "SameSite=Strict"} {
		if !strings.Contains(cookie, want) {
			t.Errorf("the secret's flash cookie lacks %s: %s", want, cookie)
		}
	}
	created := b.do("GET", "/dashboard/webhooks", nil)
	secret := webhookSecret.FindString(html.UnescapeString(created.body))
	if created.status != http.StatusOK || secret == "" || !strings.Contains(created.body, "it is never shown again") {
		t.Fatalf("the page after creating: %d, secret %q", created.status, secret)
	}
	reloaded := b.do("GET", "/dashboard/webhooks", nil)
	if strings.Contains(html.UnescapeString(reloaded.body), secret) || strings.Contains(reloaded.body, "never shown again") {
		t.Error("a reload shows the secret again")
	}
	for _, want := range []string{"https://hooks.example.com/x", "Door alerts", "event.created, command.updated",
		"allowed=denied", "type=ACCESS_DENIED", "locationId=" + acme.loc.ID.String(), "enabled"} {
		if !strings.Contains(reloaded.body, want) {
			t.Errorf("the list lacks %s", want)
		}
	}
	hooks, err := s.svc.ListWebhooks(ctx, acme.org.ID)
	if err != nil || len(hooks) != 1 {
		t.Fatalf("endpoints: %d, %v", len(hooks), err)
	}
	want := map[string]string{"allowed": "denied", "type": "ACCESS_DENIED", "locationId": acme.loc.ID.String()}
	if got := hooks[0].Filters; len(got) != len(want) || got["allowed"] != "denied" || got["type"] != "ACCESS_DENIED" || got["locationId"] != want["locationId"] {
		t.Errorf("the stored filters: %v, want %v (empty fields omitted)", got, want)
	}
	shown := 0
	for _, body := range b.seen {
		shown += strings.Count(html.UnescapeString(body), secret)
	}
	if shown != 1 {
		t.Errorf("the secret appears %d times across the session's responses, want exactly once", shown)
	}

	// The secret shown is the one deliveries are signed with.
	if r := b.do("POST", "/dashboard/webhooks/"+hooks[0].ID.String()+"/test", url.Values{"csrf": {csrf}}); r.status != http.StatusSeeOther {
		t.Fatalf("test: %d", r.status)
	}
	s.deliver()
	ts, _ := strconv.ParseInt(rc.header.Get("webhook-timestamp"), 10, 64)
	signed, err := gatehouse.SignWebhook(secret, rc.header.Get("webhook-id"), time.Unix(ts, 0), rc.body)
	if err != nil || rc.header.Get("webhook-signature") == "" || signed.Get("webhook-signature") != rc.header.Get("webhook-signature") {
		t.Errorf("the delivery is not signed with the secret shown (%v)", err)
	}

	// A rotation shows the new secret on its answer, once; the next
	// delivery carries both signatures.
	r := b.do("POST", "/dashboard/webhooks/"+hooks[0].ID.String()+"/rotate-secret", url.Values{"csrf": {csrf}, "overlapHours": {"24"}})
	shownNow := html.UnescapeString(r.body)
	i := strings.Index(shownNow, "whsec_")
	if r.status != http.StatusOK || i < 0 || strings.Contains(shownNow, secret) {
		t.Fatalf("rotate-secret: %d, a new secret shown: %t", r.status, i >= 0)
	}
	fresh := shownNow[i : i+len(secret)]
	if r := b.do("POST", "/dashboard/webhooks/"+hooks[0].ID.String()+"/test", url.Values{"csrf": {csrf}}); r.status != http.StatusSeeOther {
		t.Fatalf("test: %d", r.status)
	}
	s.deliver()
	ts, _ = strconv.ParseInt(rc.header.Get("webhook-timestamp"), 10, 64)
	both, err := gatehouse.SignWebhook(fresh+" "+secret, rc.header.Get("webhook-id"), time.Unix(ts, 0), rc.body)
	if err != nil || both.Get("webhook-signature") != rc.header.Get("webhook-signature") {
		t.Errorf("after a rotation the delivery is not signed by the new and the previous secret: %q", rc.header.Get("webhook-signature"))
	}
}

// TestWebhooksAreAdminsOnlyAndPerOrganization: a viewer and an operator
// have no link, and the pages and forms answer them 403; another
// organization's admin sees none of the endpoints and reaches none of
// them (404); nothing changes.
func TestWebhooksAreAdminsOnlyAndPerOrganization(t *testing.T) {
	s, _ := newWebhookSite(t)
	acme, rival := s.tenant("Acme"), s.tenant("Rival")
	ctx := context.Background()
	admin := s.signedIn(acme)
	id, _ := createWebhook(admin, url.Values{"url": {"https://hooks.example.com/acme"}, "description": {"Acme only"}})
	path := "/dashboard/webhooks/" + id
	if r := admin.do("POST", path+"/test", url.Values{"csrf": {csrfOf(t, admin.do("GET", path, nil).body)}}); r.status != http.StatusSeeOther {
		t.Fatalf("test: %d", r.status)
	}
	ds, _ := s.svc.ListWebhookDeliveries(ctx, acme.org.ID, uuid.MustParse(id), 10)
	forms := func(delivery string) map[string]url.Values {
		return map[string]url.Values{
			"/dashboard/webhooks": {"url": {"https://hooks.example.com/forged"}},
			path + "/enabled":     {"enabled": {"false"}},
			path + "/test":        {},
			path + "/replay":      {"from": {"start"}, "confirm": {"yes"}},
			path + "/delete":      {},
			path + "/deliveries/" + delivery + "/redeliver": {},
		}
	}

	for _, role := range []gatehouse.Role{gatehouse.RoleViewer, gatehouse.RoleOperator} {
		b := s.member(acme, string(role)+"@example.test", role)
		log := b.do("GET", "/dashboard/events", nil)
		if strings.Contains(log.body, `href="/dashboard/webhooks"`) {
			t.Errorf("%s: the nav offers the webhooks page", role)
		}
		for _, p := range []string{"/dashboard/webhooks", path, path + "/delete"} {
			if r := b.do("GET", p, nil, "Accept", "text/html"); r.status != http.StatusForbidden || !strings.Contains(r.body, "Your role does not allow this") ||
				strings.Contains(r.body, "hooks.example.com") {
				t.Errorf("%s: GET %s answers %d", role, p, r.status)
			}
		}
		csrf := csrfOf(t, log.body)
		for p, form := range forms(ds[0].ID.String()) {
			form.Set("csrf", csrf)
			if r := b.do("POST", p, form); r.status != http.StatusForbidden || !strings.Contains(r.body, `"code":"forbidden"`) {
				t.Errorf("%s: forged POST %s answers %d %.200s, want 403 forbidden", role, p, r.status, r.body)
			}
		}
	}

	other := s.signedIn(rival)
	list := other.do("GET", "/dashboard/webhooks", nil)
	if list.status != http.StatusOK || strings.Contains(list.body, "hooks.example.com/acme") || strings.Contains(list.body, "Acme only") {
		t.Errorf("another organization's list: %d, or it shows Acme's endpoint", list.status)
	}
	for _, p := range []string{path, path + "/delete"} {
		if r := other.do("GET", p, nil, "Accept", "text/html"); r.status != http.StatusNotFound || strings.Contains(r.body, "hooks.example.com") {
			t.Errorf("another organization: GET %s answers %d", p, r.status)
		}
	}
	csrf := csrfOf(t, list.body)
	for p, form := range forms(ds[0].ID.String()) {
		if p == "/dashboard/webhooks" {
			continue
		}
		form.Set("csrf", csrf)
		if r := other.do("POST", p, form, "Accept", "text/html"); r.status != http.StatusNotFound {
			t.Errorf("another organization: POST %s answers %d, want 404", p, r.status)
		}
	}
	// Its own endpoint does not reach Acme's deliveries either.
	own, _ := createWebhook(other, url.Values{"url": {"https://hooks.example.com/rival"}})
	if r := other.do("POST", "/dashboard/webhooks/"+own+"/deliveries/"+ds[0].ID.String()+"/redeliver", url.Values{"csrf": {csrf}}); r.status != http.StatusNotFound {
		t.Errorf("redelivering Acme's delivery to Rival's endpoint: %d", r.status)
	}

	h, err := s.svc.FindWebhook(ctx, acme.org.ID, uuid.MustParse(id))
	if err != nil || !h.Enabled || h.Cursor == "" {
		t.Fatalf("Acme's endpoint changed: %+v, %v", h, err)
	}
	if after, _ := s.svc.ListWebhookDeliveries(ctx, acme.org.ID, h.ID, 10); len(after) != 1 {
		t.Errorf("Acme's endpoint has %d deliveries, want its one test", len(after))
	}
	if hooks, _ := s.svc.ListWebhooks(ctx, acme.org.ID); len(hooks) != 1 {
		t.Errorf("Acme has %d endpoints, want 1", len(hooks))
	}
}
