package server_test

import (
	"encoding/json"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gatehouse/gatehouse"
	"github.com/gatehouse/gatehouse/client"
)

// TestWebhookEndpointsAPI: endpoints are made (the secret shown once),
// listed, read, changed, deleted; bad input and private targets are
// refused by field; other organizations and scopes see nothing.
func TestWebhookEndpointsAPI(t *testing.T) {
	e := newEnv(t)
	acme, rival := e.newOrg("Acme"), e.newOrg("Rival")
	key := e.newKey(acme.ID, gatehouse.ScopeWebhooksWrite, gatehouse.ScopeEventsRead)
	if r := e.get("/api/consumer/v1/webhooks", acme.readKey); r.status != http.StatusForbidden {
		t.Errorf("an events:read key lists webhooks: %d", r.status)
	}
	for _, tc := range []struct{ name, body, field string }{
		{"no url", `{}`, "url"},
		{"http", `{"url": "http://hooks.example.com/x"}`, "url"},
		{"loopback", `{"url": "https://127.0.0.1/x"}`, "url"},
		{"IPv6 loopback", `{"url": "https://[::1]/x"}`, "url"},
		{"localhost", `{"url": "https://localhost:8443/x"}`, "url"},
		{"private", `{"url": "https://10.1.2.3/x"}`, "url"},
		{"link-local metadata", `{"url": "https://169.254.169.254/latest"}`, "url"},
		{"credentials", `{"url": "https://user:pw@hooks.example.com/x"}`, "url"},
		{"a type", `{"url": "https://hooks.example.com/x", "types": ["event.deleted"]}`, "types[0]"},
		{"a filter", `{"url": "https://hooks.example.com/x", "filters": {"type": "NOPE"}}`, "filters.type"},
		{"a feed parameter", `{"url": "https://hooks.example.com/x", "filters": {"limit": "5"}}`, "filters.limit"},
		{"a long description", `{"url": "https://hooks.example.com/x", "description": "` + strings.Repeat("d", 201) + `"}`, "description"},
	} {
		r := e.post("/api/consumer/v1/webhooks", key, tc.body)
		if r.status != http.StatusBadRequest {
			t.Errorf("%s: %d %s, want 400", tc.name, r.status, r.body)
			continue
		}
		if issues := r.apiError(t).Issues; len(issues[tc.field]) == 0 {
			t.Errorf("%s: issues %v, want one for %s", tc.name, issues, tc.field)
		}
	}

	h := e.createWebhook(key, `{"url": "https://hooks.example.com/x", "description": "SIEM", "filters": {"type": "ACCESS_DENIED"}}`)
	if !strings.HasPrefix(h.Secret, "whsec_") || !h.Enabled || h.Filters["type"] != "ACCESS_DENIED" ||
		!slices.Equal(h.Types, []gatehouse.WebhookType{gatehouse.WebhookEventCreated}) {
		t.Errorf("created %+v", h)
	}
	for _, path := range []string{"/api/consumer/v1/webhooks", "/api/consumer/v1/webhooks/" + h.ID.String()} {
		r := e.get(path, key)
		if r.status != http.StatusOK || strings.Contains(string(r.body), h.Secret) || strings.Contains(string(r.body), "secret") {
			t.Errorf("GET %s = %d %s: want 200 without the secret", path, r.status, r.body)
		}
	}
	var list struct{ Data []gatehouse.Webhook }
	e.getOK("/api/consumer/v1/webhooks", rival.allKey, &list)
	if len(list.Data) != 0 {
		t.Errorf("Rival lists %+v", list.Data)
	}
	for _, r := range []response{
		e.get("/api/consumer/v1/webhooks/"+h.ID.String(), rival.allKey),
		e.do(http.MethodDelete, "/api/consumer/v1/webhooks/"+h.ID.String(), rival.allKey, nil),
		e.post("/api/consumer/v1/webhooks/"+h.ID.String()+"/test", rival.allKey, ""),
		e.get("/api/consumer/v1/webhooks/"+h.ID.String()+"/deliveries", rival.allKey),
	} {
		if r.status != http.StatusNotFound {
			t.Errorf("Rival reaches Acme's endpoint: %d %s", r.status, r.body)
		}
	}

	r := e.do(http.MethodPatch, "/api/consumer/v1/webhooks/"+h.ID.String(), key, strings.NewReader(`{"enabled": false}`), "Content-Type", "application/json")
	var off gatehouse.Webhook
	r.decode(t, &off)
	if r.status != http.StatusOK || off.Enabled || off.DisabledReason != "disabled" {
		t.Errorf("PATCH enabled false = %d %s", r.status, r.body)
	}
	if r := e.post("/api/consumer/v1/webhooks/"+h.ID.String()+"/test", key, ""); r.status != http.StatusConflict {
		t.Errorf("a test to a disabled endpoint: %d %s, want 409", r.status, r.body)
	}
	audit := e.auditLog(t, acme.allKey, "")
	var actions []string
	for _, a := range audit.Data {
		actions = append(actions, a.Action)
	}
	if !slices.Contains(actions, "webhook.created") || !slices.Contains(actions, "webhook.disabled") {
		t.Errorf("audit actions %v, want webhook.created and webhook.disabled", actions)
	}
	if r := e.do(http.MethodDelete, "/api/consumer/v1/webhooks/"+h.ID.String(), key, nil); r.status != http.StatusNoContent {
		t.Errorf("DELETE = %d %s", r.status, r.body)
	}
	if r := e.get("/api/consumer/v1/webhooks/"+h.ID.String(), key); r.status != http.StatusNotFound {
		t.Errorf("GET a deleted endpoint = %d", r.status)
	}
}

// TestWebhookSecretRotation: after a rotation with an overlap, every
// delivery is signed by both secrets, so a receiver verifying with
// either accepts it; once the overlap ends, only the new secret
// verifies. The new secret is shown once; the rotation is audited
// without it.
func TestWebhookSecretRotation(t *testing.T) {
	e := newEnv(t, webhookSettings)
	acme := e.newOrg("Acme")
	key := e.newKey(acme.ID, gatehouse.ScopeWebhooksWrite, gatehouse.ScopeCommandsWrite)
	recv := newReceiver(t)
	h := e.createWebhook(key, `{"url": "`+recv.srv.URL+`", "types": ["command.updated"]}`)
	path := "/api/consumer/v1/webhooks/" + h.ID.String()

	r := e.post(path+"/rotate-secret", key, `{"overlapSeconds": 3600}`)
	var rotated createdHook
	r.decode(t, &rotated)
	if r.status != http.StatusOK || !strings.HasPrefix(rotated.Secret, "whsec_") || rotated.Secret == h.Secret ||
		rotated.PreviousSecretExpiresAt == nil || !time.Time(*rotated.PreviousSecretExpiresAt).Equal(e.clock.Now().Add(time.Hour)) {
		t.Fatalf("rotate-secret = %d %s", r.status, r.body)
	}
	if r := e.get(path, key); strings.Contains(string(r.body), rotated.Secret) || strings.Contains(string(r.body), h.Secret) {
		t.Errorf("GET shows a secret: %s", r.body)
	}
	verifies := func(m message, secret string) bool {
		// The receiver checks the signature against its own clock.
		at, _ := strconv.ParseInt(m.header.Get("webhook-timestamp"), 10, 64)
		return client.VerifyWebhook(secret, m.header, m.body, time.Unix(at, 0)) == nil
	}
	send := func() message {
		t.Helper()
		n := len(recv.messages())
		if r := e.post(path+"/test", key, ""); r.status != http.StatusAccepted {
			t.Fatalf("test = %d %s", r.status, r.body)
		}
		e.roundsUntil("the test sent", func() bool { return len(recv.messages()) > n })
		return recv.messages()[n]
	}
	during := send()
	if !verifies(during, h.Secret) || !verifies(during, rotated.Secret) {
		t.Errorf("during the overlap: old %t, new %t; want both (webhook-signature %q)",
			verifies(during, h.Secret), verifies(during, rotated.Secret), during.header.Get("webhook-signature"))
	}
	e.clock.Advance(time.Hour)
	after := send()
	if verifies(after, h.Secret) || !verifies(after, rotated.Secret) {
		t.Errorf("after the overlap: old %t, new %t; want only the new (webhook-signature %q)",
			verifies(after, h.Secret), verifies(after, rotated.Secret), after.header.Get("webhook-signature"))
	}

	// No overlap: the old secret stops at once.
	r = e.post(path+"/rotate-secret", key, `{"overlapSeconds": 0}`)
	var again createdHook
	r.decode(t, &again)
	if r.status != http.StatusOK || again.PreviousSecretExpiresAt != nil {
		t.Fatalf("rotate-secret without overlap = %d %s", r.status, r.body)
	}
	if m := send(); verifies(m, rotated.Secret) || !verifies(m, again.Secret) {
		t.Errorf("no overlap: the previous secret still verifies")
	}
	for _, body := range []string{`{"overlapSeconds": -1}`, `{"overlapSeconds": 604801}`, `{"overlap": 5}`} {
		if r := e.post(path+"/rotate-secret", key, body); r.status != http.StatusBadRequest {
			t.Errorf("rotate-secret %s = %d %s, want 400", body, r.status, r.body)
		}
	}
	if r := e.post(path+"/rotate-secret", key, ""); r.status != http.StatusOK {
		t.Errorf("rotate-secret without a body (the default overlap) = %d %s", r.status, r.body)
	}
	log := e.auditLog(t, acme.allKey, "action=webhook.secret_rotated")
	if len(log.Data) != 3 {
		t.Errorf("%d webhook.secret_rotated entries, want 3", len(log.Data))
	}
	for _, s := range []string{h.Secret, rotated.Secret, again.Secret} {
		if raw, _ := json.Marshal(log.Data); strings.Contains(string(raw), strings.TrimPrefix(s, "whsec_")) {
			t.Error("the audit log holds a secret")
		}
	}
}
