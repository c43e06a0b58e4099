package cli_test

import (
	"net/http"
	"testing"

	"github.com/gatehouse/gatehouse"
)

// TestTrustedProxiesFlag runs serve behind a "load balancer" on loopback:
// with --trusted-proxies naming it, each client of X-Forwarded-For has its
// own failed-authentication budget.
func TestTrustedProxiesFlag(t *testing.T) {
	g := newGH(t)
	in := startServe(t, "--db", g.db, "--trusted-proxies", "127.0.0.0/8,::1")
	bad, _, _ := gatehouse.GenerateKey()
	from := func(client string) int {
		t.Helper()
		req, _ := http.NewRequest("GET", in.base+"/api/consumer/v1/events", nil)
		req.Header.Set("Authorization", "Bearer "+bad)
		req.Header.Set("X-Forwarded-For", client)
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		return res.StatusCode
	}
	// The budget is 20 at once, refilled 10 a second: a client failing
	// faster than that is limited after some 20 tries, however slow the
	// machine.
	limited := false
	for range 200 {
		if from("198.51.100.1") == http.StatusTooManyRequests {
			limited = true
			break
		}
	}
	if !limited {
		t.Fatal("200 failures of one client in a row, none answered 429")
	}
	if got := from("198.51.100.2"); got != http.StatusUnauthorized {
		t.Errorf("another client behind the same proxy: %d, want 401", got)
	}
}
