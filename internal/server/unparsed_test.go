package server_test

import (
	"bufio"
	"encoding/json"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"testing"

	"github.com/gatehouse/gatehouse/internal/server"
	"github.com/gatehouse/gatehouse/internal/testenv"
	"github.com/prometheus/client_golang/prometheus"
)

// TestUnparsableRequestsGetTheJSONEnvelope sends what net/http refuses
// before any handler runs. Served through server.ProtocolErrors, as
// gatehouse serve does, each answer must be the JSON error envelope with
// its request id, and logged, instead of net/http's plain text.
func TestUnparsableRequestsGetTheJSONEnvelope(t *testing.T) {
	e := newEnv(t)
	logs := new(testenv.LogBuffer)
	srv := &http.Server{Handler: e.handler, MaxHeaderBytes: 4 << 10}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go srv.Serve(server.ProtocolErrors(ln, slog.New(slog.NewJSONHandler(logs, nil)), server.NewMetrics(prometheus.NewRegistry())))
	t.Cleanup(func() { srv.Close() })

	for _, tc := range []struct {
		name, request string
		status        int
		code          string
	}{
		{"no Host", "GET /healthz HTTP/1.1\r\n\r\n", 400, "malformed_request"},
		{"not HTTP", "HELLO THERE\r\n\r\n", 400, "malformed_request"},
		{"a bad header line", "GET /healthz HTTP/1.1\r\nHost: x\r\nno colon here\r\n\r\n", 400, "malformed_request"},
		{"headers too large", "GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: " + strings.Repeat("a", 64<<10) + "\r\n\r\n", 431, "headers_too_large"},
		{"unknown transfer coding", "POST /api/consumer/v1/events HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: bogus\r\n\r\n", 501, "unsupported_transfer_encoding"},
		{"HTTP/3.0 on an HTTP/1 port", "GET /healthz HTTP/3.0\r\nHost: x\r\n\r\n", 505, "http_version_not_supported"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := net.Dial("tcp", ln.Addr().String())
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			go io.WriteString(c, tc.request)
			res, err := http.ReadResponse(bufio.NewReader(c), nil)
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(res.Body)
			var env apiError
			if res.StatusCode != tc.status || res.Header.Get("Content-Type") != "application/json" || json.Unmarshal(body, &env) != nil {
				t.Fatalf("%d %s %q, want %d with the JSON envelope", res.StatusCode, res.Header.Get("Content-Type"), body, tc.status)
			}
			if env.Code != tc.code || env.Error == "" || env.RequestID == "" || env.RequestID != res.Header.Get("X-Request-Id") {
				t.Errorf("envelope %+v, X-Request-Id %q; want code %s and the same request id", env, res.Header.Get("X-Request-Id"), tc.code)
			}
			if !strings.Contains(logs.String(), `"requestId":"`+env.RequestID+`"`) {
				t.Errorf("no log line for request %s:\n%s", env.RequestID, logs.String())
			}
		})
	}
	// Everything else passes untouched.
	res, err := http.Get("http://" + ln.Addr().String() + "/healthz")
	if err != nil || res.StatusCode != 200 {
		t.Fatalf("a well-formed request through the listener: %v %v", res, err)
	}
	res.Body.Close()
}
