package server_test

import (
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/gatehouse/gatehouse"
)

// TestCommandRequestsInvalid: every problem of a request comes at once,
// keyed by field.
func TestCommandRequestsInvalid(t *testing.T) {
	e := newEnv(t)
	o := e.newUnlockOrg("Acme")
	ap := o.accessPoints[0].ID
	long := strings.Repeat("n", gatehouse.MaxCommandNote+1)
	job := "/api/consumer/v1/servers/job-1/sync"
	for _, tc := range []struct {
		name, method, path, key, body string
		header                        []string
		fields                        []string
	}{
		{"every field of a command", "POST", "/api/consumer/v1/commands", o.cmdKey,
			`{"type": "LOCK", "accessPointId": "nope", "scope": "EVERYWHERE", "durationSeconds": 4000, "ttlSeconds": 1, "note": "` + long + `", "serverJobId": 5, "color": "red"}`,
			nil, []string{"accessPointId", "color", "durationSeconds", "note", "scope", "serverJobId", "ttlSeconds", "type"}},
		{"a target that does not fit the scope", "POST", "/api/consumer/v1/commands", o.cmdKey,
			fmt.Sprintf(`{"accessPointId": %q, "scope": "SERVER", "platformUserId": "abc"}`, ap),
			nil, []string{"platformUserId", "serverJobId"}},
		{"a field twice, the key twice", "POST", "/api/consumer/v1/commands", o.cmdKey,
			fmt.Sprintf(`{"accessPointId": %q, "scope": "UNIVERSE", "scope": "SERVER"}`, ap),
			[]string{"Idempotency-Key", "a", "Idempotency-Key", "b"}, []string{"Idempotency-Key", "scope"}},
		{"not an object", "POST", "/api/consumer/v1/commands", o.cmdKey, `[]`, nil, []string{""}},
		{"a location without a universe", "POST", "/api/consumer/v1/commands", o.cmdKey,
			fmt.Sprintf(`{"accessPointId": %q, "scope": "UNIVERSE"}`, o.accessPoints[2].ID), nil, []string{"accessPointId"}},
		{"an Idempotency-Key too long", "POST", "/api/consumer/v1/commands", o.cmdKey,
			fmt.Sprintf(`{"accessPointId": %q, "scope": "UNIVERSE"}`, ap), []string{"Idempotency-Key", strings.Repeat("k", 256)}, []string{"Idempotency-Key"}},
		{"every filter", "GET", "/api/consumer/v1/commands?status=DONE&scope=x&limit=0&foo=1&accessPointId=nope&locationId=1&cursor=forged", o.cmdKey,
			"", nil, []string{"accessPointId", "cursor", "foo", "limit", "locationId", "scope", "status"}},
		{"a command id", "GET", "/api/consumer/v1/commands/nope", o.cmdKey, "", nil, []string{"id"}},
		{"a command id to cancel", "POST", "/api/consumer/v1/commands/nope/cancel", o.cmdKey, "", nil, []string{"id"}},
		{"every field of a sync", "POST", job, o.serverKey,
			`{"universeId": "abc", "placeId": "x", "players": ["1", "bad"], "cursor": "-1", "waitSeconds": 31, "color": 1,
			  "acks": [{"commandId": "nope", "result": "MAYBE", "extra": 1}, {"result": "EXECUTED"}, 5]}`,
			nil, []string{"acks[0].commandId", "acks[0].extra", "acks[0].result", "acks[1].commandId", "acks[2]",
				"color", "cursor", "placeId", "players[1]", "universeId", "waitSeconds"}},
		{"a job id too long", "POST", "/api/consumer/v1/servers/" + strings.Repeat("j", 101) + "/sync", o.serverKey,
			`{"universeId": "42"}`, nil, []string{"serverJobId"}},
	} {
		header := tc.header
		if tc.body != "" {
			header = append(slices.Clone(header), "Content-Type", "application/json")
		}
		req, err := http.NewRequest(tc.method, e.url+tc.path, strings.NewReader(tc.body))
		must(t, err)
		req.Header.Set("Authorization", "Bearer "+tc.key)
		for i := 0; i+1 < len(header); i += 2 {
			req.Header.Add(header[i], header[i+1])
		}
		res, err := e.client.Do(req)
		must(t, err)
		var body apiError
		r := response{status: res.StatusCode, header: res.Header}
		r.body = readAll(t, res)
		if r.status != http.StatusBadRequest {
			t.Errorf("%s: %d %s", tc.name, r.status, r.body)
			continue
		}
		body = r.apiError(t)
		if got := sortedKeys(body.Issues); !slices.Equal(got, tc.fields) {
			t.Errorf("%s: issues %q, want %q\n%s", tc.name, got, tc.fields, r.body)
		}
	}
	if l := e.commands(o.cmdKey, ""); len(l.Data) != 0 {
		t.Errorf("invalid requests issued %d commands", len(l.Data))
	}
}

// TestCommandBodiesRefused: a body that is not JSON, not sent as JSON
// or too large is refused before anything is read from it.
func TestCommandBodiesRefused(t *testing.T) {
	e := newEnv(t)
	o := e.newUnlockOrg("Acme")
	for _, path := range []string{"/api/consumer/v1/commands", "/api/consumer/v1/servers/job-1/sync"} {
		key := o.cmdKey
		if strings.Contains(path, "sync") {
			key = o.serverKey
		}
		for _, tc := range []struct {
			body, contentType string
			status            int
			code              string
		}{
			{`{"scope": `, "application/json", 400, "invalid_json"},
			{`{}`, "text/plain", 415, "unsupported_media_type"},
			{`{"note": "` + strings.Repeat("x", 300<<10) + `"}`, "application/json", 413, "request_too_large"},
		} {
			r := e.do(http.MethodPost, path, key, strings.NewReader(tc.body), "Content-Type", tc.contentType)
			if r.status != tc.status || r.apiError(t).Code != tc.code {
				t.Errorf("%s %.20s as %s: %d %s", path, tc.body, tc.contentType, r.status, r.body)
			}
		}
	}
}

// TestCommandRoutesNeedTheirScope: each route answers 403 to a key
// without its scope; a game server's key cannot issue, and a key that
// issues cannot sync.
func TestCommandRoutesNeedTheirScope(t *testing.T) {
	e := newEnv(t)
	o := e.newUnlockOrg("Acme")
	c, _ := e.issue(o.cmdKey, fmt.Sprintf(`{"accessPointId": %q, "scope": "UNIVERSE"}`, o.accessPoints[0].ID))
	issue := fmt.Sprintf(`{"accessPointId": %q, "scope": "UNIVERSE"}`, o.accessPoints[0].ID)
	for _, tc := range []struct {
		method, path, body string
		keys               []string
		scope              gatehouse.Scope
	}{
		{"POST", "/api/consumer/v1/commands", issue, []string{o.serverKey, o.readKey}, gatehouse.ScopeCommandsWrite},
		{"GET", "/api/consumer/v1/commands", "", []string{o.serverKey, o.readKey}, gatehouse.ScopeCommandsWrite},
		{"GET", "/api/consumer/v1/commands/" + c.ID.String(), "", []string{o.serverKey}, gatehouse.ScopeCommandsWrite},
		{"POST", "/api/consumer/v1/commands/" + c.ID.String() + "/cancel", "", []string{o.serverKey}, gatehouse.ScopeCommandsWrite},
		{"POST", "/api/consumer/v1/servers/job-1/sync", `{"universeId": "42", "waitSeconds": 0}`, []string{o.cmdKey, o.readKey}, gatehouse.ScopeGameServer},
	} {
		for _, key := range tc.keys {
			r := e.do(tc.method, tc.path, key, strings.NewReader(tc.body), "Content-Type", "application/json")
			if r.status != http.StatusForbidden || r.apiError(t).Code != "insufficient_scope" ||
				!strings.Contains(r.header.Get("WWW-Authenticate"), fmt.Sprintf("scope=%q", tc.scope)) {
				t.Errorf("%s %s: %d %s", tc.method, tc.path, r.status, r.body)
			}
		}
	}
	// The command is untouched, and no server became live.
	var got gatehouse.Command
	e.get("/api/consumer/v1/commands/"+c.ID.String(), o.cmdKey).decode(t, &got)
	if got.Status != gatehouse.CommandPending || len(got.Deliveries) != 0 {
		t.Errorf("after refused requests: %s, %d deliveries", got.Status, len(got.Deliveries))
	}
}

func readAll(t *testing.T, res *http.Response) []byte {
	t.Helper()
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	must(t, err)
	return b
}
