package cli

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gatehouse/gatehouse/internal/testenv"
)

// TestShutdownCutsLongRequestsAndExitsCleanly stops serve (as SIGTERM
// does) while a client is still sending an ingest body. When the drain's
// timeout passes, the request must be cut and logged as cut with its
// request id, then "stopped" logged, and serve must return nil (exit 0):
// the shutdown went as designed.
func TestShutdownCutsLongRequestsAndExitsCleanly(t *testing.T) {
	defer func(d time.Duration) { drainTimeout = d }(drainTimeout)
	drainTimeout = 100 * time.Millisecond
	db := filepath.Join(t.TempDir(), "gatehouse.db")
	getenv := func(string) string { return "" }
	run := func(v any, args ...string) {
		t.Helper()
		var out, errOut bytes.Buffer
		if err := Run(context.Background(), append(args, "--db", db, "--json"), getenv, strings.NewReader(""), &out, &errOut); err != nil {
			t.Fatalf("%s: %v\n%s", args, err, errOut.String())
		}
		if err := json.Unmarshal(out.Bytes(), v); err != nil {
			t.Fatalf("%s: %v\n%s", args, err, out.String())
		}
	}
	var org, key struct{ ID, Key string }
	run(&org, "org", "create", "--name", "Acme")
	run(&key, "key", "create", "--org", org.ID, "--name", "writer", "--scopes", "events:write")

	ctx, sigterm := context.WithCancel(context.Background())
	defer sigterm()
	logs := new(testenv.LogBuffer)
	done := make(chan error, 1)
	go func() {
		done <- Run(ctx, []string{"serve", "--db", db, "--addr", "127.0.0.1:0"}, getenv, strings.NewReader(""), io.Discard, logs)
	}()
	addr := waitForLog(t, logs, "listening")["addr"].(string)

	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	// Expect: 100-continue makes the server say when the handler starts
	// reading the body, so the request is surely in flight.
	io.WriteString(c, "POST /api/consumer/v1/events HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer "+key.Key+
		"\r\nContent-Type: application/json\r\nContent-Length: 1000\r\nExpect: 100-continue\r\nX-Request-Id: slow-upload-1\r\n\r\n")
	if line, err := bufio.NewReader(c).ReadString('\n'); err != nil || !strings.Contains(line, "100") {
		t.Fatalf("no 100 Continue: %q %v", line, err)
	}
	io.WriteString(c, `{"events": [`) // and no more

	sigterm()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("serve returned %v after a shutdown that cut a request; want nil (exit 0)", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("serve did not stop")
	}
	cut := waitForLog(t, logs, "request")
	if cut["requestId"] != "slow-upload-1" || cut["cut"] != "shutdown" || cut["level"] != "WARN" {
		t.Errorf("the cut request's line: %v", cut)
	}
	text := logs.String()
	if strings.Index(text, `"msg":"stopped"`) < strings.Index(text, `"requestId":"slow-upload-1"`) {
		t.Errorf("no stopped line after the cut request's:\n%s", text)
	}
}

// waitForLog returns the first log line with message msg, waiting for it
// a few seconds at most.
func waitForLog(t *testing.T, logs *testenv.LogBuffer, msg string) map[string]any {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		for line := range strings.Lines(logs.String()) {
			var v map[string]any
			if json.Unmarshal([]byte(line), &v) == nil && v["msg"] == msg {
				return v
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("no %q in the log:\n%s", msg, logs.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
}
