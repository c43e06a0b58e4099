// Package redistest gives tests the Redis server named by
// GATEHOUSE_TEST_REDIS, and a proxy to it that a test can cut and restore
// to play an outage. Without the variable tests skip — unless CI=true,
// where they fail.
package redistest

import (
	"github.com/gatehouse/gatehouse/internal/servicetest"

	"net/url"
	"testing"

	"github.com/gatehouse/gatehouse/internal/proxytest"
)

// EnvVar names the server's URL.
const EnvVar = "GATEHOUSE_TEST_REDIS"

// URL returns the server's URL, or skips t (fails it in CI) when unset.
func URL(t testing.TB) string {
	t.Helper()
	return servicetest.URL(t, EnvVar)
}

// NewProxy starts a proxy to the test Redis and returns it with a Redis
// URL pointing at it. It stops when t ends.
func NewProxy(t testing.TB) (*proxytest.Proxy, string) {
	t.Helper()
	u, err := url.Parse(URL(t))
	if err != nil {
		t.Fatal(err)
	}
	p := proxytest.New(t, u.Host)
	u.Host = p.Addr()
	return p, u.String()
}
