package dashboard_test

import (
	"context"
	"html"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/gatehouse/gatehouse/internal/app"
	"github.com/gatehouse/gatehouse/internal/service"
)

var alertLink = regexp.MustCompile(`<a href="/dashboard/alerts/([0-9a-f-]{36})">`)

// TestAlertRulePages: an admin makes a rule with the form (its problems
// named by the form's labels), sends a test alert, sees what fired and
// the alert's deliveries, and deletes the rule; a standard-webhooks rule's
// secret shows once.
func TestAlertRulePages(t *testing.T) {
	var (
		mu   sync.Mutex
		sent []string
	)
	s := newSiteWith(t, nil, func(st *app.Settings) {
		st.Alerts = func(a *service.AlertSettings) {
			a.Send = func(_ context.Context, _ string, _ http.Header, body []byte) (int, http.Header, []byte, error) {
				mu.Lock()
				defer mu.Unlock()
				sent = append(sent, string(body))
				return http.StatusNoContent, nil, nil, nil
			}
		}
	})
	acme := s.tenant("Acme")
	b := s.signedIn(acme)
	if nav := b.do("GET", "/dashboard/events", nil).body; !strings.Contains(nav, `href="/dashboard/alerts"`) {
		t.Error("the admin's nav lacks the alerts page")
	}
	page := b.do("GET", "/dashboard/alerts", nil)
	if page.status != http.StatusOK || !strings.Contains(page.body, "No alert rule yet") {
		t.Fatalf("the empty page: %d %.300s", page.status, page.body)
	}
	csrf := csrfOf(t, page.body)
	bad := b.do("POST", "/dashboard/alerts/rules", url.Values{"csrf": {csrf}, "name": {"Probing"}, "kind": {"threshold"},
		"threshold": {"0"}, "windowMinutes": {"5"}, "groupBy": {"platformUserId"}, "format": {"discord"}, "url": {"http://discord.example/x"}, "cooldownMinutes": {"5"}})
	if bad.status != http.StatusBadRequest {
		t.Fatalf("a bad form: %d", bad.status)
	}
	for _, want := range []string{"<strong>Threshold</strong>", "<strong>URL</strong>", `value="Probing"`} {
		if !strings.Contains(bad.body, want) {
			t.Errorf("the refused form lacks %s", want)
		}
	}
	posted := b.do("POST", "/dashboard/alerts/rules", url.Values{"csrf": {csrf}, "name": {"Keys"}, "kind": {"audit"},
		"actions": {"api_key.created", "policy.changed"}, "format": {"standard-webhooks"}, "url": {"https://hooks.example.com/alerts"}, "cooldownMinutes": {"1"}})
	if posted.status != http.StatusSeeOther || strings.Contains(posted.body, "whsec_") {
		t.Fatalf("create: %d %.300s", posted.status, posted.body)
	}
	created := b.do("GET", posted.header.Get("Location"), nil)
	if !webhookSecret.MatchString(html.UnescapeString(created.body)) || !strings.Contains(created.body, "api_key.created") {
		t.Fatalf("the page after creating shows no secret: %.600s", created.body)
	}
	if again := b.do("GET", "/dashboard/alerts", nil); webhookSecret.MatchString(html.UnescapeString(again.body)) {
		t.Error("the secret shows twice")
	}
	rules, err := s.svc.ListAlertRules(context.Background(), acme.org.ID)
	if err != nil || len(rules) != 1 {
		t.Fatalf("rules %+v, %v", rules, err)
	}
	id := rules[0].ID.String()
	if r := b.do("POST", "/dashboard/alerts/rules/"+id+"/test", url.Values{"csrf": {csrf}}); r.status != http.StatusSeeOther {
		t.Fatalf("test: %d", r.status)
	}
	if _, err := s.svc.DeliverAlerts(context.Background(), "test"); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	if len(sent) != 1 || !strings.Contains(sent[0], `"alert.fired"`) {
		t.Errorf("sent %v", sent)
	}
	mu.Unlock()
	list := b.do("GET", "/dashboard/alerts", nil)
	m := alertLink.FindStringSubmatch(list.body)
	if m == nil || !strings.Contains(list.body, "(test)") || !strings.Contains(list.body, "succeeded") {
		t.Fatalf("what fired: %.2000s", list.body)
	}
	detail := b.do("GET", "/dashboard/alerts/"+m[1], nil)
	if detail.status != http.StatusOK || !strings.Contains(detail.body, "<td>204</td>") {
		t.Errorf("the alert's page: %d %.1000s", detail.status, detail.body)
	}
	if r := b.do("POST", "/dashboard/alerts/rules/"+id+"/delete", url.Values{"csrf": {csrf}}); r.status != http.StatusSeeOther {
		t.Fatalf("delete: %d", r.status)
	}
	if r := b.do("GET", "/dashboard/alerts/"+m[1], nil); r.status != http.StatusNotFound {
		t.Errorf("a deleted rule's alert: %d", r.status)
	}
}
