package server_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/gatehouse/gatehouse"
)

// TestAlertRuleChanges: a rule is read, renamed, deleted, and each change
// is in the audit log; a key without events:read cannot make a threshold
// rule.
func TestAlertRuleChanges(t *testing.T) {
	e := newEnv(t, alertSettings)
	acme := e.newOrg("Acme")
	id, secret := e.createAlertRule(acme.allKey, `{"name": "Denials", "condition": {"kind": "threshold", "threshold": 5,
		"windowSeconds": 60}, "destination": {"format": "slack", "url": "https://hooks.slack.com/services/T/B/X"}}`)
	if secret != "" {
		t.Errorf("a Slack rule got a secret")
	}
	r := e.do(http.MethodPatch, "/api/consumer/v1/alert-rules/"+id, acme.allKey, strings.NewReader(`{"name": "Denied a lot", "cooldownSeconds": 900}`),
		"Content-Type", "application/json")
	if r.status != http.StatusOK || !strings.Contains(string(r.body), `"cooldownSeconds":900`) {
		t.Fatalf("PATCH = %d %s", r.status, r.body)
	}
	r = e.do(http.MethodPatch, "/api/consumer/v1/alert-rules/"+id, acme.allKey,
		strings.NewReader(`{"destination": {"format": "standard-webhooks", "url": "https://hooks.example.com/alerts"}}`), "Content-Type", "application/json")
	if r.status != http.StatusOK || !strings.Contains(string(r.body), `"secret":"whsec_`) {
		t.Errorf("a destination that becomes standard-webhooks: %d %s", r.status, r.body)
	}
	if r := e.get("/api/consumer/v1/alert-rules/"+id, acme.allKey); strings.Contains(string(r.body), "whsec_") {
		t.Errorf("GET shows the secret: %s", r.body)
	}
	if r := e.get("/api/consumer/v1/alert-rules", acme.allKey); !strings.Contains(string(r.body), "Denied a lot") {
		t.Errorf("GET /alert-rules = %s", r.body)
	}
	if r := e.do(http.MethodDelete, "/api/consumer/v1/alert-rules/"+id, acme.allKey, nil); r.status != http.StatusNoContent {
		t.Errorf("DELETE = %d %s", r.status, r.body)
	}
	log := e.get("/api/consumer/v1/audit-log?targetId="+id, acme.allKey)
	for _, action := range []string{"alert_rule.created", "alert_rule.changed", "alert_rule.deleted"} {
		if !strings.Contains(string(log.body), `"`+action+`"`) {
			t.Errorf("the audit log has no %s: %s", action, log.body)
		}
	}
	hooksOnly := e.newKey(acme.ID, gatehouse.ScopeWebhooksWrite)
	if r := e.post("/api/consumer/v1/alert-rules", hooksOnly, `{"name": "x", "condition": {"kind": "threshold", "threshold": 1,
		"windowSeconds": 60}, "destination": {"format": "discord", "url": "https://discord.com/api/webhooks/1/x"}}`); r.status != http.StatusForbidden {
		t.Errorf("a webhooks:write-only key made a threshold rule: %d %s", r.status, r.body)
	}
}

// TestAlertRuleValidation: every problem of a rule is named by its field.
func TestAlertRuleValidation(t *testing.T) {
	e := newEnv(t, alertSettings)
	acme := e.newOrg("Acme")
	for _, tc := range []struct{ body, field string }{
		{`{}`, "name"},
		{`{"name": "x", "destination": {"format": "discord", "url": "https://d.example/x"}}`, "condition"},
		{`{"name": "x", "condition": {"kind": "often"}, "destination": {"format": "discord", "url": "https://d.example/x"}}`, "condition.kind"},
		{`{"name": "x", "condition": {"kind": "threshold", "threshold": 0, "windowSeconds": 60}, "destination": {"format": "discord", "url": "https://d.example/x"}}`, "condition.threshold"},
		{`{"name": "x", "condition": {"kind": "threshold", "threshold": 1, "windowSeconds": 59}, "destination": {"format": "discord", "url": "https://d.example/x"}}`, "condition.windowSeconds"},
		{`{"name": "x", "condition": {"kind": "threshold", "threshold": 1, "windowSeconds": 86401}, "destination": {"format": "discord", "url": "https://d.example/x"}}`, "condition.windowSeconds"},
		{`{"name": "x", "condition": {"kind": "threshold", "threshold": 1, "windowSeconds": 60, "groupBy": "reason"}, "destination": {"format": "discord", "url": "https://d.example/x"}}`, "condition.groupBy"},
		{`{"name": "x", "condition": {"kind": "threshold", "threshold": 1, "windowSeconds": 60, "filters": {"q": "x"}}, "destination": {"format": "discord", "url": "https://d.example/x"}}`, "condition.filters.q"},
		{`{"name": "x", "condition": {"kind": "threshold", "threshold": 1, "windowSeconds": 60, "filters": {"type": "NOPE"}}, "destination": {"format": "discord", "url": "https://d.example/x"}}`, "condition.filters.type"},
		{`{"name": "x", "condition": {"kind": "audit", "actions": ["key.stolen"]}, "destination": {"format": "discord", "url": "https://d.example/x"}}`, "condition.actions[0]"},
		{`{"name": "x", "condition": {"kind": "audit", "actions": []}, "destination": {"format": "discord", "url": "https://d.example/x"}}`, "condition.actions"},
		{`{"name": "x", "condition": {"kind": "audit", "actions": ["policy.changed"], "extra": 1}, "destination": {"format": "discord", "url": "https://d.example/x"}}`, "condition.extra"},
		{`{"name": "x", "condition": {"kind": "audit", "actions": ["policy.changed"]}, "destination": {"format": "teams", "url": "https://d.example/x"}}`, "destination.format"},
		{`{"name": "x", "condition": {"kind": "audit", "actions": ["policy.changed"]}, "destination": {"format": "slack", "url": "ftp://d.example/x"}}`, "destination.url"},
		{`{"name": "x", "condition": {"kind": "audit", "actions": ["policy.changed"]}, "destination": {"format": "slack", "url": "https://d.example/x"}, "cooldownSeconds": -1}`, "cooldownSeconds"},
		{`{"name": "x", "condition": "often", "destination": {"format": "slack", "url": "https://d.example/x"}}`, "condition"},
	} {
		r := e.post("/api/consumer/v1/alert-rules", acme.allKey, tc.body)
		if r.status != http.StatusBadRequest || r.apiError(t).Issues[tc.field] == nil {
			t.Errorf("%s = %d %s; want a 400 naming %s", tc.body, r.status, r.body, tc.field)
		}
	}
}
