package server_test

import (
	"context"
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gatehouse/gatehouse"
	"github.com/gatehouse/gatehouse/client"
	"github.com/gatehouse/gatehouse/internal/app"
	"github.com/gatehouse/gatehouse/internal/service"
)

// alertSettings admit test receivers on loopback, shorten the webhooks'
// backoff that alerts share, and give the links a public URL.
func alertSettings(s *app.Settings) {
	webhookSettings(s)
	s.PublicURL = "https://gatehouse.example.com"
}

type alertBody struct {
	ID       string `json:"id"`
	RuleID   string `json:"ruleId"`
	RuleName string `json:"ruleName"`
	Kind     string `json:"kind"`
	Test     bool   `json:"test"`
	GroupBy  string `json:"groupBy"`
	Group    string `json:"group"`
	Count    int    `json:"count"`
	Window   int    `json:"windowSeconds"`
	FiredAt  string `json:"firedAt"`
	Link     string `json:"link"`
	Audit    *struct {
		Action string `json:"action"`
	} `json:"audit"`
	Delivery struct {
		Status        string  `json:"status"`
		Attempts      int     `json:"attempts"`
		NextAttemptAt *string `json:"nextAttemptAt"`
	} `json:"delivery"`
	Deliveries []struct {
		Attempt      int    `json:"attempt"`
		At           string `json:"at"`
		Status       string `json:"status"`
		ResponseCode *int   `json:"responseCode"`
		LatencyMS    *int64 `json:"latencyMs"`
	} `json:"deliveries"`
}

func (e *env) createAlertRule(key, body string) (id, secret string) {
	e.t.Helper()
	r := e.post("/api/consumer/v1/alert-rules", key, body)
	if r.status != http.StatusCreated {
		e.t.Fatalf("POST /alert-rules %s = %d %s", body, r.status, r.body)
	}
	var rule struct{ ID, Secret string }
	r.decode(e.t, &rule)
	return rule.ID, rule.Secret
}

func (e *env) alerts(key string) []alertBody {
	e.t.Helper()
	r := e.get("/api/consumer/v1/alerts?limit=100", key)
	if r.status != http.StatusOK {
		e.t.Fatalf("GET /alerts = %d %s", r.status, r.body)
	}
	var list struct{ Data []alertBody }
	r.decode(e.t, &list)
	return list.Data
}

// evaluate runs evaluations on each service at once until none claims a
// rule: the clock moves 2 s (past a rule's idle pause) before each turn.
func (e *env) evaluate(svcs ...*service.Service) {
	e.t.Helper()
	for range 3 {
		e.clock.Advance(2 * time.Second)
		for claimed := true; claimed; {
			var (
				wg  sync.WaitGroup
				mu  sync.Mutex
				any bool
			)
			for i, s := range svcs {
				wg.Go(func() {
					did, err := s.EvaluateAlertRules(context.Background(), "instance-"+string(rune('a'+i)))
					if err != nil {
						e.t.Error(err)
					}
					mu.Lock()
					any = any || did
					mu.Unlock()
				})
			}
			wg.Wait()
			claimed = any
		}
	}
}

// deliverAlerts sends what is due until nothing is, the clock moving
// 10 s before each turn (past any backoff of webhookSettings).
func (e *env) deliverAlerts(turns int) {
	e.t.Helper()
	e.drain(turns, 10*time.Second, e.svc.DeliverAlerts, "deliverer")
}

// TestAlertThresholdOncePerGroupAndCooldown: a threshold rule grouped by
// player fires once for each player who crosses it, however many
// instances evaluate at once, and not again within its cooldown; the
// Discord receiver gets each within Discord's limits, with a link to the
// Event Log filtered to the player and the window.
func TestAlertThresholdOncePerGroupAndCooldown(t *testing.T) {
	e := newEnv(t, alertSettings)
	acme := e.newOrg("Acme")
	other, err := app.New(context.Background(), app.Settings{DB: app.Use(e.store), Now: e.clock.Now, WebhooksAllowPrivate: true})
	if err != nil {
		t.Fatal(err)
	}
	discord := newDiscord(t)
	e.createAlertRule(acme.allKey, `{"name": "Door probing <@everyone>", "condition": {"kind": "threshold",
		"filters": {"type": "ACCESS_DENIED"}, "groupBy": "platformUserId", "threshold": 3, "windowSeconds": 300},
		"destination": {"format": "discord", "url": "`+discord.srv.URL+`"}}`)
	e.playerEvents(acme, "1", 3)
	e.playerEvents(acme, "2", 4)
	e.playerEvents(acme, "3", 2) // below the threshold
	e.settled(acme.readKey, 9)
	e.evaluate(e.svc, other.Service, e.svc)
	e.deliverAlerts(1)

	fired := e.alerts(acme.allKey)
	if len(fired) != 2 {
		t.Fatalf("%d alerts, want one for each of players 1 and 2: %+v", len(fired), fired)
	}
	var groups []string
	for _, a := range fired {
		groups = append(groups, a.Group)
		if a.Kind != "threshold" || a.GroupBy != "platformUserId" || a.Count != 3 || a.Window != 300 || a.Delivery.Status != "succeeded" {
			t.Errorf("alert %+v", a)
		}
		if !strings.HasPrefix(a.Link, "https://gatehouse.example.com/dashboard/events?") || !strings.Contains(a.Link, "platformUserId="+a.Group) ||
			!strings.Contains(a.Link, "type=ACCESS_DENIED") || !strings.Contains(a.Link, "dateFrom=") {
			t.Errorf("link %s", a.Link)
		}
	}
	slices.Sort(groups)
	if !slices.Equal(groups, []string{"1", "2"}) {
		t.Errorf("groups %v", groups)
	}
	if n := len(discord.delivered()); n != 2 {
		t.Errorf("Discord got %d messages, want 2", n)
	}
	for _, m := range discord.delivered() {
		if !strings.Contains(string(m.body), "gatehouse.example.com/dashboard/events") {
			t.Errorf("a message without its link: %s", m.body)
		}
	}

	// Within the cooldown: player 1 crosses again, nothing fires.
	e.playerEvents(acme, "1", 3)
	e.settled(acme.readKey, 12)
	e.evaluate(other.Service, e.svc)
	e.deliverAlerts(1)
	if n := len(e.alerts(acme.allKey)); n != 2 {
		t.Errorf("%d alerts after a crossing within the cooldown, want 2", n)
	}
	// After it, the next crossing fires.
	e.clock.Advance(5 * time.Minute)
	e.playerEvents(acme, "1", 3)
	e.settled(acme.readKey, 15)
	e.evaluate(e.svc, other.Service)
	e.deliverAlerts(1)
	if got := e.alerts(acme.allKey); len(got) != 3 || got[0].Group != "1" {
		t.Errorf("after the cooldown: %+v", got)
	}
	if n := len(discord.delivered()); n != 3 {
		t.Errorf("Discord got %d messages, want 3", n)
	}
	// Keyset pages, the cursor bound to the rule filter.
	var page struct {
		Data       []alertBody
		NextCursor *string
	}
	e.get("/api/consumer/v1/alerts?limit=2", acme.allKey).decode(t, &page)
	if len(page.Data) != 2 || page.NextCursor == nil {
		t.Fatalf("first page: %+v", page)
	}
	cursor := *page.NextCursor
	e.get("/api/consumer/v1/alerts?limit=2&cursor="+cursor, acme.allKey).decode(t, &page)
	if len(page.Data) != 1 || page.NextCursor != nil || page.Data[0].Group != groups[0] && page.Data[0].Group != groups[1] {
		t.Errorf("second page: %+v", page)
	}
	if r := e.get("/api/consumer/v1/alerts?limit=2&ruleId="+page.Data[0].RuleID+"&cursor="+cursor, acme.allKey); r.status != http.StatusBadRequest {
		t.Errorf("a cursor with another rule filter: %d", r.status)
	}
}

// TestAlertAuditToSlack: an audit rule fires on the actions it names (a
// key created, a policy changed), once per action and target within its
// cooldown, and Slack gets each within its limits.
func TestAlertAuditToSlack(t *testing.T) {
	e := newEnv(t, alertSettings)
	acme := e.newOrg("Acme")
	slack := newSlack(t)
	e.createAlertRule(acme.allKey, `{"name": "Changes", "condition": {"kind": "audit",
		"actions": ["api_key.created", "policy.changed", "lockdown.started"]},
		"destination": {"format": "slack", "url": "`+slack.srv.URL+`"}, "cooldownSeconds": 60}`)
	e.newKey(acme.ID, gatehouse.ScopeEventsRead)
	e.newKey(acme.ID, gatehouse.ScopeEventsRead)
	// One policy saved twice within the cooldown.
	e.putPolicy(acme.allKey, acme.accessPoints[0].ID, officeHours)
	e.putPolicy(acme.allKey, acme.accessPoints[0].ID, strings.Replace(officeHours, `"minRank": 200`, `"minRank": 250`, 1))
	e.deliverAlerts(1)
	var actions []string
	for _, a := range e.alerts(acme.allKey) {
		if a.Kind != "audit" || a.Audit == nil || a.Delivery.Status != "succeeded" {
			t.Errorf("alert %+v", a)
			continue
		}
		actions = append(actions, a.Audit.Action)
	}
	slices.Sort(actions)
	// Two keys (two targets), one policy changed twice within a minute.
	if want := []string{"api_key.created", "api_key.created", "policy.changed"}; !slices.Equal(actions, want) {
		t.Errorf("audit alerts %v, want %v", actions, want)
	}
	if n := len(slack.delivered()); n != 3 {
		t.Errorf("Slack got %d messages, want 3", n)
	}
}

// TestAlertTestSendRetries: a test send reaches a Standard Webhooks
// receiver signed with the rule's secret after a 500, a 429 whose
// Retry-After is honoured, an answer that is not HTTP and a slow one; the
// alert shows each attempt.
func TestAlertTestSendRetries(t *testing.T) {
	e := newEnv(t, alertSettings)
	acme := e.newOrg("Acme")
	recv := newChatReceiver(t, func(b []byte) error {
		var m struct {
			Type string          `json:"type"`
			Data json.RawMessage `json:"data"`
		}
		if err := json.Unmarshal(b, &m); err != nil || m.Type != "alert.fired" {
			return err
		}
		return nil
	}, http.StatusOK,
		answer{status: http.StatusInternalServerError},
		answer{status: http.StatusTooManyRequests, retryAfter: "3"},
		answer{malformed: true},
		answer{status: http.StatusOK, delay: 300 * time.Millisecond})
	id, secret := e.createAlertRule(acme.allKey, `{"name": "Denials", "condition": {"kind": "threshold", "threshold": 5,
		"windowSeconds": 60}, "destination": {"format": "standard-webhooks", "url": "`+recv.srv.URL+`"}}`)
	if !strings.HasPrefix(secret, "whsec_") {
		t.Fatalf("secret %q", secret)
	}
	r := e.post("/api/consumer/v1/alert-rules/"+id+"/test", acme.allKey, "")
	if r.status != http.StatusAccepted {
		t.Fatalf("POST test = %d %s", r.status, r.body)
	}
	var queued alertBody
	r.decode(t, &queued)
	if !queued.Test || queued.Delivery.Status != "pending" {
		t.Errorf("queued %+v", queued)
	}
	e.deliverAlerts(2) // the 500, then the 429
	r = e.get("/api/consumer/v1/alerts/"+queued.ID, acme.allKey)
	var after429 alertBody
	r.decode(t, &after429)
	if len(after429.Deliveries) != 2 || after429.Delivery.NextAttemptAt == nil {
		t.Fatalf("after two attempts: %s", r.body)
	}
	at, _ := time.Parse(time.RFC3339, after429.Deliveries[0].At)
	next, _ := time.Parse(time.RFC3339, *after429.Delivery.NextAttemptAt)
	if next.Sub(at) < 3*time.Second {
		t.Errorf("the next attempt %s is sooner than the 429's Retry-After of 3 s after %s", next, at)
	}
	e.deliverAlerts(12)
	r = e.get("/api/consumer/v1/alerts/"+queued.ID, acme.allKey)
	var done alertBody
	r.decode(t, &done)
	var statuses []string
	for _, d := range done.Deliveries {
		statuses = append(statuses, d.Status)
	}
	if done.Delivery.Status != "succeeded" || !slices.Equal(statuses, []string{"succeeded", "failed", "failed", "failed"}) {
		t.Fatalf("attempts %v, delivery %+v", statuses, done.Delivery)
	}
	if d := done.Deliveries[0]; d.ResponseCode == nil || *d.ResponseCode != 200 || d.LatencyMS == nil || *d.LatencyMS < 300 {
		t.Errorf("the successful attempt %+v", d)
	}
	last := recv.delivered()[0]
	if err := client.VerifyWebhook(secret, last.header, last.body, e.clock.Now()); err != nil {
		t.Errorf("the signature does not verify: %v", err)
	}
}

// TestAlertIsolation: an organization sees and changes only its own rules
// and alerts, and another's events never fire its rules.
func TestAlertIsolation(t *testing.T) {
	e := newEnv(t, alertSettings)
	acme, globex := e.newOrg("Acme"), e.newOrg("Globex")
	discord := newDiscord(t)
	id, _ := e.createAlertRule(acme.allKey, `{"name": "Any", "condition": {"kind": "threshold", "threshold": 1,
		"windowSeconds": 60}, "destination": {"format": "discord", "url": "`+discord.srv.URL+`"}}`)
	e.playerEvents(globex, "1", 3)
	e.settled(globex.readKey, 3)
	e.evaluate(e.svc)
	if n := len(e.alerts(acme.allKey)); n != 0 {
		t.Errorf("another organization's events fired %d alerts", n)
	}
	for _, r := range []response{
		e.get("/api/consumer/v1/alert-rules/"+id, globex.allKey),
		e.do(http.MethodPatch, "/api/consumer/v1/alert-rules/"+id, globex.allKey, strings.NewReader(`{"name": "mine"}`), "Content-Type", "application/json"),
		e.post("/api/consumer/v1/alert-rules/"+id+"/test", globex.allKey, ""),
		e.do(http.MethodDelete, "/api/consumer/v1/alert-rules/"+id, globex.allKey, nil),
	} {
		if r.status != http.StatusNotFound {
			t.Errorf("another organization's request = %d %s", r.status, r.body)
		}
	}
	e.playerEvents(acme, "1", 1)
	e.settled(acme.readKey, 1)
	e.evaluate(e.svc)
	fired := e.alerts(acme.allKey)
	if len(fired) != 1 {
		t.Fatalf("acme's alerts: %+v", fired)
	}
	if r := e.get("/api/consumer/v1/alerts/"+fired[0].ID, globex.allKey); r.status != http.StatusNotFound {
		t.Errorf("GET another's alert = %d", r.status)
	}
	if n := len(e.alerts(globex.allKey)); n != 0 {
		t.Errorf("globex lists %d alerts", n)
	}
}
