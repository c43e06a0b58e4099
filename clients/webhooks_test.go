package clients_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gatehouse/gatehouse"
	"github.com/gatehouse/gatehouse/client"
	"github.com/gatehouse/gatehouse/internal/testenv"
)

// standardWebhooks runs webhooks/check.mjs, the Standard Webhooks
// reference library, on one request.
func standardWebhooks(t *testing.T, req map[string]any) (string, error) {
	t.Helper()
	node, err := exec.LookPath("node")
	if err != nil {
		testenv.Missing(t, "node is not installed")
	}
	if _, err := os.Stat(filepath.Join("webhooks", "node_modules", "standardwebhooks")); err != nil {
		testenv.Missing(t, "the npm packages are not installed: npm ci --prefix clients/webhooks")
	}
	in, err := json.Marshal(req)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(node, "check.mjs")
	cmd.Dir = "webhooks"
	cmd.Stdin = bytes.NewReader(in)
	out, err := cmd.CombinedOutput()
	return strings.TrimSpace(string(out)), err
}

// Gatehouse's signatures verify with the specification's own library,
// and the library's signatures with the Go client's verifier; a changed
// byte fails both.
func TestWebhookSignaturesAgreeWithStandardWebhooks(t *testing.T) {
	secret := gatehouse.NewWebhookSecret()
	now := time.Now()
	body := []byte(`{"type":"event.created","data":{"id":"01a1ffff-0000-7000-8000-000000000001","type":"ACCESS_DENIED"}}`)
	h, err := gatehouse.SignWebhook(secret, "msg_01a1ffff", now, body)
	if err != nil {
		t.Fatal(err)
	}
	headers := map[string]string{}
	for k := range h {
		headers[strings.ToLower(k)] = h.Get(k)
	}
	if out, err := standardWebhooks(t, map[string]any{"op": "verify", "secret": secret, "headers": headers, "body": string(body)}); err != nil || out != "ok" {
		t.Errorf("standardwebhooks does not verify Gatehouse's signature: %v: %s", err, out)
	}
	tampered := bytes.Replace(body, []byte("DENIED"), []byte("GRANTED"), 1)
	if _, err := standardWebhooks(t, map[string]any{"op": "verify", "secret": secret, "headers": headers, "body": string(tampered)}); err == nil {
		t.Error("standardwebhooks verifies a changed body")
	}

	sig, err := standardWebhooks(t, map[string]any{"op": "sign", "secret": secret, "id": "msg_2", "timestamp": now.Unix(), "body": string(body)})
	if err != nil {
		t.Fatalf("standardwebhooks sign: %v: %s", err, sig)
	}
	theirs := http.Header{}
	theirs.Set("webhook-id", "msg_2")
	theirs.Set("webhook-timestamp", h.Get("webhook-timestamp"))
	theirs.Set("webhook-signature", sig)
	if err := client.VerifyWebhook(secret, theirs, body, now); err != nil {
		t.Errorf("the Go verifier refuses standardwebhooks' signature %s: %v", sig, err)
	}
	if err := client.VerifyWebhook(secret, theirs, tampered, now); !errors.Is(err, client.ErrWebhookSignature) {
		t.Errorf("the Go verifier on a changed body: %v", err)
	}
}
