package cli_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestDemoDeliversWebhooksToThisMachine: the demo, on a loopback address
// as the quick start runs it, lets a webhook endpoint be an http receiver
// on the same machine and delivers to it, so that the webhook and alert
// guides can be tried against it. --webhooks-allow-private=false, or a
// demo listening on every interface, refuses such an endpoint as serve
// does.
func TestDemoDeliversWebhooksToThisMachine(t *testing.T) {
	received := make(chan string, 10)
	receiver := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		received <- string(b)
	}))
	defer receiver.Close()

	for _, c := range []struct {
		args []string
		want int
	}{
		{nil, http.StatusCreated},
		{[]string{"--webhooks-allow-private=false"}, http.StatusBadRequest},
		{[]string{"--addr", "0.0.0.0:0"}, http.StatusBadRequest},
	} {
		db := filepath.Join(t.TempDir(), "demo.db")
		run := startDemoRun(t, db, append([]string{"--json"}, c.args...)...)
		var out demoJSON
		if err := json.Unmarshal([]byte(run.stdout), &out); err != nil {
			t.Fatalf("demo --json printed %q: %v", run.stdout, err)
		}
		g := &gh{t: t, db: db, env: map[string]string{}}
		var key record
		g.json(&key, "key", "create", "--org", out.Organization.ID, "--name", "hooks", "--scopes", "webhooks:write,events:read")
		api := out.Variables["API"]
		status, body := post(t, api+"/webhooks", key.Key, `{"url": "`+receiver.URL+`/hook", "types": ["event.created"]}`)
		if status != c.want {
			t.Fatalf("demo %v: an endpoint on this machine answered %d %s, want %d", c.args, status, body, c.want)
		}
		if status != http.StatusCreated {
			run.stop()
			continue
		}
		var hook struct{ ID string }
		json.Unmarshal([]byte(body), &hook)
		if status, body := post(t, api+"/webhooks/"+hook.ID+"/test", key.Key, ""); status != http.StatusAccepted {
			t.Fatalf("test message: %d %s", status, body)
		}
		select {
		case msg := <-received:
			if !strings.Contains(msg, `"webhook.test"`) {
				t.Errorf("the receiver got %s, want the test message", msg)
			}
		case <-time.After(30 * time.Second):
			t.Fatal("the demo delivered nothing to the receiver on this machine")
		}
		run.stop()
	}
}

// post sends body (JSON, or nothing) with key and returns the answer.
func post(t *testing.T, url, key, body string) (int, string) {
	t.Helper()
	req, _ := http.NewRequest("POST", url, strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+key)
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res.StatusCode, string(b)
}
