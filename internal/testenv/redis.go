package testenv

import (
	"net/url"
	"testing"
)

// redisEnv names the Redis server's URL.
const redisEnv = "GATEHOUSE_TEST_REDIS"

// RedisURL returns the server's URL, or skips t (fails it in CI) when
// unset.
func RedisURL(t testing.TB) string {
	t.Helper()
	return serviceURL(t, redisEnv)
}

// RedisProxy starts a proxy to the test Redis and returns it with a Redis
// URL pointing at it. It stops when t ends.
func RedisProxy(t testing.TB) (*Proxy, string) {
	t.Helper()
	u, err := url.Parse(RedisURL(t))
	if err != nil {
		t.Fatal(err)
	}
	p := NewProxy(t, u.Host)
	u.Host = p.Addr()
	return p, u.String()
}
