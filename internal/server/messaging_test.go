package server_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/gatehouse/gatehouse"
)

// TestMessagingKeysAPI: a commands:write key sets a universe's Open
// Cloud key, lists it by hint and removes it; the key is never in an
// answer; another organization's key finds nothing; other scopes are
// refused.
func TestMessagingKeysAPI(t *testing.T) {
	e := newEnv(t)
	acme, rival := e.newOrg("Acme"), e.newOrg("Rival")
	key := e.newKey(acme.ID, gatehouse.ScopeCommandsWrite)
	const secret = "oc-key-sent-to-the-api-0123-Zq9x"
	put := func(orgKey, universe, body string, header ...string) response {
		t.Helper()
		return e.do(http.MethodPut, "/api/consumer/v1/messaging/"+universe, orgKey, strings.NewReader(body),
			append([]string{"Content-Type", "application/json"}, header...)...)
	}
	r := put(key, "42", `{"apiKey": "`+secret+`"}`)
	if r.status != http.StatusOK || strings.Contains(string(r.body), secret) {
		t.Fatalf("PUT: %d %s", r.status, r.body)
	}
	type messagingKey struct{ UniverseID, Hint, CreatedAt string }
	var set messagingKey
	r.decode(t, &set)
	if set.UniverseID != "42" || set.Hint != "Zq9x" {
		t.Errorf("PUT answered %+v", set)
	}
	var list struct{ Data []messagingKey }
	e.get("/api/consumer/v1/messaging", key).decode(t, &list)
	if len(list.Data) != 1 || list.Data[0] != set {
		t.Errorf("GET = %+v, want %+v", list.Data, set)
	}
	e.get("/api/consumer/v1/messaging", rival.allKey).decode(t, &list)
	if len(list.Data) != 0 {
		t.Errorf("Rival sees %+v", list.Data)
	}
	if r := e.do(http.MethodDelete, "/api/consumer/v1/messaging/42", rival.allKey, nil); r.status != http.StatusNotFound {
		t.Errorf("Rival deletes Acme's key: %d", r.status)
	}

	for _, tc := range []struct {
		name, universe, body string
		status               int
		field                string
	}{
		{"a short key", "42", `{"apiKey": "short"}`, 400, "apiKey"},
		{"no key", "42", `{}`, 400, "apiKey"},
		{"a bad universe", "0042", `{"apiKey": "` + secret + `"}`, 400, "universeId"},
		{"an unknown field", "42", `{"apiKey": "` + secret + `", "x": 1}`, 400, ""},
		{"not JSON", "42", `apiKey=` + secret, 400, ""},
	} {
		r := put(key, tc.universe, tc.body)
		if r.status != tc.status || strings.Contains(string(r.body), secret) {
			t.Errorf("%s: %d %s", tc.name, r.status, r.body)
			continue
		}
		if a := r.apiError(t); tc.field != "" && len(a.Issues[tc.field]) == 0 {
			t.Errorf("%s: issues %v, want %s", tc.name, a.Issues, tc.field)
		}
	}
	if r := e.do(http.MethodPut, "/api/consumer/v1/messaging/42", key, strings.NewReader(`{"apiKey": "`+secret+`"}`)); r.status != http.StatusUnsupportedMediaType {
		t.Errorf("no Content-Type: %d", r.status)
	}
	if r := e.get("/api/consumer/v1/messaging", acme.readKey); r.status != http.StatusForbidden {
		t.Errorf("an events:read key lists: %d", r.status)
	}
	if r := put(acme.readKey, "42", `{"apiKey": "`+secret+`"}`); r.status != http.StatusForbidden {
		t.Errorf("an events:read key sets: %d", r.status)
	}

	if r := e.do(http.MethodDelete, "/api/consumer/v1/messaging/42", key, nil); r.status != http.StatusNoContent || len(r.body) != 0 {
		t.Fatalf("DELETE: %d %s", r.status, r.body)
	}
	if r := e.do(http.MethodDelete, "/api/consumer/v1/messaging/42", key, nil); r.status != http.StatusNotFound {
		t.Errorf("DELETE again: %d", r.status)
	}
	var audit struct {
		Data []struct {
			Action  string
			Target  struct{ Type, Name string }
			Changes map[string]struct{ From, To string }
		}
	}
	e.get("/api/consumer/v1/audit-log?action=messaging.set", acme.allKey).decode(t, &audit)
	if len(audit.Data) != 1 || audit.Data[0].Target.Type != "messaging" || audit.Data[0].Target.Name != "42" || audit.Data[0].Changes["hint"].To != "Zq9x" {
		t.Errorf("the audit log of messaging.set: %+v", audit.Data)
	}
}
