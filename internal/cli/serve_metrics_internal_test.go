package cli

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gatehouse/gatehouse/internal/testenv"
)

// TestMetricsOnTheirOwnListener serves with GATEHOUSE_METRICS_ADDR set:
// /metrics answers there, and is a JSON 404 on the API's address, so the
// API's port can face the internet while the metrics stay private.
func TestMetricsOnTheirOwnListener(t *testing.T) {
	db := filepath.Join(t.TempDir(), "gatehouse.db")
	env := map[string]string{"GATEHOUSE_METRICS_ADDR": "127.0.0.1:0"}
	ctx, stop := context.WithCancel(context.Background())
	logs := new(testenv.LogBuffer)
	done := make(chan error, 1)
	go func() {
		done <- Run(ctx, []string{"serve", "--db", db, "--addr", "127.0.0.1:0"}, func(k string) string { return env[k] },
			strings.NewReader(""), io.Discard, logs)
	}()
	t.Cleanup(func() { stop(); <-done })
	api := "http://" + waitForLog(t, logs, "listening")["addr"].(string)
	private := "http://" + waitForLog(t, logs, "serving metrics")["addr"].(string)

	get := func(url string) (int, string, string) {
		t.Helper()
		res, err := http.Get(url)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		body, _ := io.ReadAll(res.Body)
		return res.StatusCode, res.Header.Get("Content-Type"), string(body)
	}
	if _, _, body := get(api + "/healthz"); !strings.Contains(body, "ok") {
		t.Errorf("the API's address: %q", body)
	}
	if status, _, body := get(private + "/metrics"); status != 200 || !strings.Contains(body, "gatehouse_http_requests_total") {
		t.Errorf("metrics on their own listener: %d %.200s", status, body)
	}
	status, ctype, body := get(api + "/metrics")
	var e struct{ Code string }
	if status != 404 || !strings.HasPrefix(ctype, "application/json") || json.Unmarshal([]byte(body), &e) != nil || e.Code != "not_found" {
		t.Errorf("/metrics on the API's address with a metrics listener: %d %s %.200s", status, ctype, body)
	}
	if status, _, _ := get(private + "/api/consumer/v1/events"); status != 404 {
		t.Errorf("the metrics listener serves more than /metrics: %d", status)
	}
}
