package cli

import (
	"bufio"
	"io"
	"log/slog"
	"net"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestSlowClientsAreCutOff holds connections open the slow-loris way —
// headers a byte at a time, a body that never comes — and checks that the
// server drops them while serving everyone else.
func TestSlowClientsAreCutOff(t *testing.T) {
	srv := httpServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if _, err := io.Copy(io.Discard, r.Body); err != nil { // as the ingest handler: a body that fails to arrive is a 400
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		w.Write([]byte("ok"))
	}), slog.New(slog.NewTextHandler(io.Discard, nil)))
	if srv.ReadHeaderTimeout == 0 || srv.ReadHeaderTimeout > 10*time.Second || srv.ReadTimeout == 0 ||
		srv.IdleTimeout == 0 || srv.MaxHeaderBytes == 0 {
		t.Fatalf("unbounded server: %+v", srv)
	}
	// The production limits, shrunk so the test is quick.
	srv.ReadHeaderTimeout, srv.ReadTimeout = 300*time.Millisecond, 600*time.Millisecond
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })

	dripHeaders := dial(t, ln)
	io.WriteString(dripHeaders, "GET /healthz HTTP/1.1\r\nHost: x\r\n")
	noBody := dial(t, ln)
	io.WriteString(noBody, "POST /ingest HTTP/1.1\r\nHost: x\r\nContent-Length: 1000\r\n\r\nonly a little")

	// Everyone else is served meanwhile.
	if res, err := http.Get("http://" + ln.Addr().String() + "/"); err != nil || res.StatusCode != 200 {
		t.Fatalf("a normal client: %v %v", res, err)
	}
	for name, c := range map[string]net.Conn{"headers a byte at a time": dripHeaders, "a body that never comes": noBody} {
		start := time.Now()
		go func() { // keep dripping: the deadline is for the whole header, not per byte
			for range 20 {
				time.Sleep(50 * time.Millisecond)
				if _, err := c.Write([]byte("X")); err != nil {
					return
				}
			}
		}()
		c.SetReadDeadline(time.Now().Add(5 * time.Second))
		resp, err := bufio.NewReader(c).ReadString('\n')
		if took := time.Since(start); took > 3*time.Second {
			t.Errorf("%s: held for %v", name, took)
		}
		if err == nil && !strings.Contains(resp, "400") && !strings.Contains(resp, "408") {
			t.Errorf("%s: answered %q", name, resp)
		}
	}
}

func dial(t *testing.T, ln net.Listener) net.Conn {
	t.Helper()
	c, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// TestDatabaseNameHidesCredentials: the start-up line names the database
// but never a user, a password or the query string.
func TestDatabaseNameHidesCredentials(t *testing.T) {
	abs, _ := filepath.Abs("gatehouse.db")
	for dsn, want := range map[string]string{
		"postgres://gh:s3cret@db.internal:5432/gatehouse?sslmode=verify-full&password=s3cret": "postgres://db.internal:5432/gatehouse",
		"postgresql://gh@10.0.0.7/prod":   "postgres://10.0.0.7/prod",
		"postgres://gh:s3cret@%zz/x":      "postgres (an unparsable URL)",
		"sqlite:/var/lib/gatehouse.db":    "sqlite:/var/lib/gatehouse.db",
		"/var/lib/gatehouse/gatehouse.db": "sqlite:/var/lib/gatehouse/gatehouse.db",
		"gatehouse.db":                    "sqlite:" + abs,
	} {
		got := databaseName(dsn)
		if got != want || strings.Contains(got, "s3cret") || strings.Contains(got, "gh@") {
			t.Errorf("databaseName(%q) = %q, want %q", dsn, got, want)
		}
	}
}
