// Command receiver is a webhook receiver to try Gatehouse's webhooks and
// alerts on your machine, with the demo (which, on localhost, delivers to
// this machine). It listens on a free loopback port, prints its URL as its
// first line, then one line per request it receives:
//
//	msg_test_… webhook.test verified {"type":"webhook.test",…}
//
// the webhook-id ("-" for an unsigned alert to Discord or Slack), the
// message's type, whether its signature verified with the secret in
// -secret-file (read again for every request, so that it may be written
// after the receiver starts, or rotated), and the body. It answers 204, or
// 401 when a signature does not verify. It stops after -for.
//
//	go run ./docs/examples/receiver -secret-file webhook.secret
package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/gatehouse/gatehouse/client"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:0", "address to listen on; port 0 picks a free one")
	secretFile := flag.String("secret-file", "", "file holding the endpoint's secret (whsec_…), read for every request")
	lifetime := flag.Duration("for", 10*time.Minute, "how long to run")
	flag.Parse()

	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("http://%s\n", ln.Addr())
	var mu sync.Mutex // one line at a time
	handler := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, 1<<20))
		if err != nil {
			http.Error(w, "body too large", http.StatusRequestEntityTooLarge)
			return
		}
		verdict := verify(*secretFile, r.Header, body)
		var msg struct{ Type string }
		json.Unmarshal(body, &msg)
		var compact bytes.Buffer
		if json.Compact(&compact, body) != nil {
			compact.Reset()
			compact.Write(body)
		}
		id := r.Header.Get("webhook-id")
		if id == "" {
			id = "-"
		}
		if msg.Type == "" {
			msg.Type = "-"
		}
		mu.Lock()
		fmt.Printf("%s %s %s %s\n", id, msg.Type, verdict, strings.ReplaceAll(compact.String(), "\n", " "))
		mu.Unlock()
		if strings.HasPrefix(verdict, "refused") {
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		w.WriteHeader(http.StatusNoContent)
	})
	go func() {
		time.Sleep(*lifetime)
		os.Exit(0)
	}()
	log.Fatal(http.Serve(ln, handler))
}

// verify says whether a signed delivery verifies with the secret in file:
// "verified", "refused: why", or "unsigned" for a request without a
// signature (an alert to Discord or Slack).
func verify(file string, h http.Header, body []byte) string {
	if h.Get("webhook-signature") == "" {
		return "unsigned"
	}
	if file == "" {
		return "unverified (no -secret-file)"
	}
	secret, err := os.ReadFile(file)
	if err != nil {
		return "refused: " + err.Error()
	}
	if err := client.VerifyWebhook(strings.TrimSpace(string(secret)), h, body, time.Now()); err != nil {
		return "refused: " + err.Error()
	}
	return "verified"
}
