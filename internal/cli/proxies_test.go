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
	for range 20 {
		from("198.51.100.1")
	}
	if got := from("198.51.100.1"); got != http.StatusTooManyRequests {
		t.Fatalf("21st failure of one client: %d, want 429", got)
	}
	if got := from("198.51.100.2"); got != http.StatusUnauthorized {
		t.Errorf("another client behind the same proxy: %d, want 401", got)
	}
}
