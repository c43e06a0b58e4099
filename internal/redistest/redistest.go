// Package redistest gives tests the Redis server named by
// GATEHOUSE_TEST_REDIS, and a proxy to it that a test can cut and restore
// to play an outage. Without the variable tests skip — unless CI=true,
// where they fail.
package redistest

import (
	"io"
	"net"
	"net/url"
	"os"
	"sync"
	"testing"
)

// EnvVar names the server's URL.
const EnvVar = "GATEHOUSE_TEST_REDIS"

// URL returns the server's URL, or skips t (fails it in CI) when unset.
func URL(t testing.TB) string {
	t.Helper()
	u := os.Getenv(EnvVar)
	if u == "" {
		if os.Getenv("CI") == "true" {
			t.Fatalf("%s must be set in CI", EnvVar)
		}
		t.Skipf("%s is not set", EnvVar)
	}
	return u
}

// Proxy forwards a local port to the test Redis until Cut.
type Proxy struct {
	addr, target string
	mu           sync.Mutex
	ln           net.Listener
	conns        []net.Conn
}

// NewProxy starts a proxy to the test Redis and returns it with a Redis
// URL pointing at it. It stops when t ends.
func NewProxy(t testing.TB) (*Proxy, string) {
	t.Helper()
	u, err := url.Parse(URL(t))
	if err != nil {
		t.Fatal(err)
	}
	p := &Proxy{target: u.Host}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p.addr = ln.Addr().String()
	p.serve(ln)
	t.Cleanup(p.Cut)
	u.Host = p.addr
	return p, u.String()
}

// Cut closes the listener and every connection: Redis is gone.
func (p *Proxy) Cut() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.ln != nil {
		p.ln.Close()
		p.ln = nil
	}
	for _, c := range p.conns {
		c.Close()
	}
	p.conns = nil
}

// Restore listens again on the same address: Redis is back.
func (p *Proxy) Restore(t testing.TB) {
	t.Helper()
	ln, err := net.Listen("tcp", p.addr)
	if err != nil {
		t.Fatal(err)
	}
	p.serve(ln)
}

func (p *Proxy) serve(ln net.Listener) {
	p.mu.Lock()
	p.ln = ln
	p.mu.Unlock()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			r, err := net.Dial("tcp", p.target)
			if err != nil {
				c.Close()
				continue
			}
			p.mu.Lock()
			p.conns = append(p.conns, c, r)
			p.mu.Unlock()
			go func() { io.Copy(r, c); r.Close() }()
			go func() { io.Copy(c, r); c.Close() }()
		}
	}()
}
