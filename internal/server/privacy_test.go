package server_test

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gatehouse/gatehouse"
)

// playerEvents ingests n denials of player at o's first door.
func (e *env) playerEvents(o org, player string, n int) []gatehouse.NewEvent {
	e.t.Helper()
	evs := make([]gatehouse.NewEvent, n)
	for i := range evs {
		evs[i] = e.ev(o.accessPoints[i%4], gatehouse.EventAccessDenied, i+1)
		evs[i].PlatformUserID = ptr(player)
	}
	e.ingest(o, evs...)
	return evs
}

// TestEraseAPI: DELETE /platform-users/{id} erases exactly that player
// of the key's organization, the audit log names the player by a keyed
// hash only, and a second erasure finds nothing.
func TestEraseAPI(t *testing.T) {
	e := newEnv(t)
	acme, rival := e.newOrg("Acme"), e.newOrg("Rival")
	key := e.newKey(acme.ID, gatehouse.ScopePrivacyWrite)
	e.playerEvents(acme, "261", 3)
	kept := e.playerEvents(acme, "262", 2)
	theirs := e.playerEvents(rival, "261", 2)
	if r := e.do(http.MethodDelete, "/api/consumer/v1/platform-users/261", acme.readKey, nil); r.status != http.StatusForbidden {
		t.Errorf("an events:read key erases: %d", r.status)
	}
	var er gatehouse.Erasure
	r := e.do(http.MethodDelete, "/api/consumer/v1/platform-users/261", key, nil)
	r.decode(t, &er)
	if r.status != http.StatusOK || er.Events != 3 || er.Commands != 0 {
		t.Fatalf("erase = %d %s", r.status, r.body)
	}
	if got := e.events(acme.readKey, "limit=50").ids(); len(got) != 2 || !containsAll(got, kept[0].ID.String(), kept[1].ID.String()) {
		t.Errorf("Acme's events after the erasure: %v", got)
	}
	if got := e.events(rival.readKey, "platformUserId=261"); len(got.Data) != len(theirs) {
		t.Errorf("Rival's player 261 lost events: %d left", len(got.Data))
	}
	if got := e.feed(acme.readKey, "platformUserId=261"); len(got.Data) != 0 {
		t.Errorf("the feed still shows %d of the erased player's events", len(got.Data))
	}
	log := e.auditLog(t, acme.allKey, "action=platform_user.erased")
	if len(log.Data) != 1 || !strings.HasPrefix(log.Data[0].Target.Name, "hmac-sha256:") || log.Data[0].Changes["events"].To != "3" {
		t.Fatalf("erasure entries %+v", log.Data)
	}
	if raw := e.get("/api/consumer/v1/audit-log?action=platform_user.erased", acme.allKey); strings.Contains(string(raw.body), `"261"`) {
		t.Errorf("the audit log names the erased player: %s", raw.body)
	}
	r = e.do(http.MethodDelete, "/api/consumer/v1/platform-users/261", key, nil)
	r.decode(t, &er)
	if er.Events != 0 || er.Commands != 0 {
		t.Errorf("a second erasure = %+v", er)
	}
	// The request log names the route, not the player.
	if logs := e.logs.String(); strings.Contains(logs, "platform-users/261") || !strings.Contains(logs, "platform-users/{platformUserId}") {
		t.Errorf("the request log names the erased player:\n%s", logs)
	}
}

func containsAll(got []string, want ...string) bool {
	for _, w := range want {
		found := false
		for _, g := range got {
			found = found || g == w
		}
		if !found {
			return false
		}
	}
	return true
}

// TestSettingsAPI: the retention is read and changed through the
// organization's settings, within its bounds, and the change audited.
func TestSettingsAPI(t *testing.T) {
	e := newEnv(t)
	acme := e.newOrg("Acme")
	key := e.newKey(acme.ID, gatehouse.ScopePrivacyWrite)
	var s struct{ RetentionDays int }
	e.getOK("/api/consumer/v1/organization/settings", key, &s)
	if s.RetentionDays != 400 {
		t.Errorf("default retention %d", s.RetentionDays)
	}
	patch := func(body string) response {
		return e.do(http.MethodPatch, "/api/consumer/v1/organization/settings", key, strings.NewReader(body), "Content-Type", "application/json")
	}
	for _, bad := range []string{`{"retentionDays": 366}`, `{"retentionDays": 36501}`, `{"retentionDays": "400"}`} {
		if r := patch(bad); r.status != http.StatusBadRequest || len(r.apiError(t).Issues["retentionDays"]) == 0 {
			t.Errorf("%s: %d %s", bad, r.status, r.body)
		}
	}
	r := patch(`{"retentionDays": 730}`)
	r.decode(t, &s)
	if r.status != http.StatusOK || s.RetentionDays != 730 {
		t.Errorf("PATCH = %d %s", r.status, r.body)
	}
	if log := e.auditLog(t, acme.allKey, "action=organization.retention_changed"); len(log.Data) != 1 {
		t.Errorf("retention entries %+v", log.Data)
	}
}

// signPlatform signs body as the platform's "Webhook notifications"
// documentation says: t=<unix seconds>,v1=<base64 of HMAC-SHA256 keyed
// by the secret over "<t>.<body>">. Written here from the documentation,
// not from the server's code.
func signPlatform(secret string, at time.Time, body string) string {
	ts := strconv.FormatInt(at.Unix(), 10)
	m := hmac.New(sha256.New, []byte(secret))
	m.Write([]byte(ts + "." + body))
	return "t=" + ts + ",v1=" + base64.StdEncoding.EncodeToString(m.Sum(nil))
}

func erasureBody(notification, eventType string, user int) string {
	return fmt.Sprintf(`{"NotificationId":%q,"EventType":%q,"EventTime":"2026-11-20T11:59:58.1234567Z","EventPayload":{"UserId":%d,"GameIds":[4682295139]}}`,
		notification, eventType, user)
}

// TestPlatformErasureWebhook: a correctly signed request erases the
// player; a wrong signature, a stale timestamp, a replay, another
// organization's token and an unknown token each do nothing and answer
// as documented; the platform's test is ignored; every request to a
// known token is recorded.
func TestPlatformErasureWebhook(t *testing.T) {
	e := newEnv(t)
	acme, rival := e.newOrg("Acme"), e.newOrg("Rival")
	ctx := context.Background()
	mine, err := e.svc.SetUpErasureWebhook(ctx, acme.ID)
	must(t, err)
	theirs, err := e.svc.SetUpErasureWebhook(ctx, rival.ID)
	must(t, err)
	send := func(token, signature, body string) response {
		t.Helper()
		h := []string{"Content-Type", "application/json"}
		if signature != "" {
			h = append(h, "roblox-signature", signature)
		}
		return e.do(http.MethodPost, "/api/consumer/v1/integrations/roblox/erasure/"+token, "", strings.NewReader(body), h...)
	}
	count := func(o org) int { return len(e.events(o.readKey, "platformUserId=261&limit=50").Data) }
	e.playerEvents(acme, "261", 3)
	e.playerEvents(rival, "261", 2)
	now := e.clock.Now()
	body := erasureBody("n-1", "RightToErasureRequest", 261)

	for _, tc := range []struct {
		name, token, signature string
		status                 int
	}{
		{"no signature", mine.Token, "", 401},
		{"another secret", mine.Token, signPlatform(theirs.Secret, now, body), 401},
		{"a stale timestamp", mine.Token, signPlatform(mine.Secret, now.Add(-11*time.Minute), body), 401},
		{"another organization's token", theirs.Token, signPlatform(mine.Secret, now, body), 401},
		{"an unknown token", "nope", signPlatform(mine.Secret, now, body), 404},
	} {
		if r := send(tc.token, tc.signature, body); r.status != tc.status {
			t.Errorf("%s: %d %s, want %d", tc.name, r.status, r.body, tc.status)
		}
	}
	if count(acme) != 3 || count(rival) != 2 {
		t.Fatalf("refused requests erased something: %d and %d left", count(acme), count(rival))
	}

	r := send(mine.Token, signPlatform(mine.Secret, now, body), body)
	if r.status != http.StatusOK || !strings.Contains(string(r.body), `"outcome":"erased"`) || !strings.Contains(string(r.body), `"events":3`) {
		t.Fatalf("a signed request: %d %s", r.status, r.body)
	}
	if count(acme) != 0 || count(rival) != 2 {
		t.Errorf("after the erasure: Acme %d, Rival %d", count(acme), count(rival))
	}
	// The player plays again; a replay of the notification (signed anew)
	// erases nothing.
	e.playerEvents(acme, "261", 1)
	e.clock.Advance(time.Minute)
	if r := send(mine.Token, signPlatform(mine.Secret, e.clock.Now(), body), body); r.status != http.StatusOK || !strings.Contains(string(r.body), "duplicate") {
		t.Errorf("a replay: %d %s", r.status, r.body)
	}
	if count(acme) != 1 {
		t.Errorf("a replay erased again: %d left", count(acme))
	}
	sample := erasureBody("n-2", "SampleNotification", 1)
	if r := send(mine.Token, signPlatform(mine.Secret, e.clock.Now(), sample), sample); r.status != http.StatusOK || !strings.Contains(string(r.body), "ignored") {
		t.Errorf("the platform's test: %d %s", r.status, r.body)
	}

	var list struct{ Data []gatehouse.ErasureRequest }
	e.getOK("/api/consumer/v1/privacy/erasure-requests", e.newKey(acme.ID, gatehouse.ScopePrivacyWrite), &list)
	var outcomes []string
	for _, rq := range list.Data {
		outcomes = append(outcomes, string(rq.Outcome))
	}
	// Newest first: the test, the replay, the erasure, and the four
	// refusals at Acme's token (the unknown one has no organization).
	if got := strings.Join(outcomes, ","); got != "ignored,duplicate,erased,refused,refused,refused" {
		t.Errorf("Acme's requests: %s", got)
	}
	if log := e.auditLog(t, acme.allKey, "action=platform_user.erased"); len(log.Data) != 1 || log.Data[0].Actor.Type != "system" {
		t.Errorf("erasure entries %+v", log.Data)
	}
	if strings.Contains(e.logs.String(), mine.Token) {
		t.Error("the request log holds the erasure webhook's token")
	}
	// A flood of requests that do not verify meets the address's budget
	// of failed authentications: 429, and nothing more recorded.
	limited := 0
	for range 30 {
		if r := send(mine.Token, signPlatform(theirs.Secret, e.clock.Now(), body), body); r.status == http.StatusTooManyRequests {
			limited++
		}
	}
	e.clock.Advance(10 * time.Second) // the address's budget refills
	e.getOK("/api/consumer/v1/privacy/erasure-requests?limit=500", e.newKey(acme.ID, gatehouse.ScopePrivacyWrite), &list)
	if limited == 0 || len(list.Data) >= 6+30 {
		t.Errorf("30 refused requests: %d limited, %d recorded in all", limited, len(list.Data))
	}
}
