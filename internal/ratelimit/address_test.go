package ratelimit_test

import (
	"net"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/gatehouse/gatehouse/internal/ratelimit"
)

func TestClientAddressBelievesOnlyTrustedProxies(t *testing.T) {
	proxies, err := ratelimit.ParseProxies(" 10.0.0.0/8, 192.168.1.1 ,fd00::/8")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name, peer string
		xff        []string
		want       string
	}{
		{"no header", "10.0.0.1:5000", nil, "10.0.0.1"},
		{"untrusted peer's header is ignored", "203.0.113.9:5000", []string{"198.51.100.1"}, "203.0.113.9"},
		{"trusted proxy", "10.0.0.1:5000", []string{"198.51.100.1"}, "198.51.100.1"},
		{"spoofed left part is ignored", "10.0.0.1:5000", []string{"1.1.1.1, 2.2.2.2, 198.51.100.1"}, "198.51.100.1"},
		{"chain of trusted proxies", "10.0.0.1:5000", []string{"198.51.100.1, 192.168.1.1, 10.9.9.9"}, "198.51.100.1"},
		{"header sent twice", "10.0.0.1:5000", []string{"1.1.1.1", "198.51.100.1"}, "198.51.100.1"},
		{"every hop trusted", "10.0.0.1:5000", []string{"10.1.1.1, 10.2.2.2"}, "10.1.1.1"},
		{"garbage stops at the hop that wrote it", "10.0.0.1:5000", []string{"1.1.1.1, not-an-address, 10.2.2.2"}, "10.2.2.2"},
		{"hop with a port", "10.0.0.1:5000", []string{"198.51.100.1:4711"}, "198.51.100.1"},
		{"IPv6 hop", "[fd00::1]:5000", []string{"[2001:db8::7]:4711"}, "2001:db8::7"},
		{"IPv4-mapped peer", "[::ffff:10.0.0.1]:5000", []string{"::ffff:198.51.100.1"}, "198.51.100.1"},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := httptest.NewRequest(http.MethodGet, "/", nil)
			r.RemoteAddr = c.peer
			for _, v := range c.xff {
				r.Header.Add("X-Forwarded-For", v)
			}
			if got := proxies.ClientAddress(r); got != c.want {
				t.Errorf("ClientAddress = %q, want %q", got, c.want)
			}
			peer, _, _ := net.SplitHostPort(c.peer)
			if got := ratelimit.ClientAddress(r); got != peer {
				t.Errorf("with no proxy trusted, ClientAddress = %q, want the peer %q", got, peer)
			}
		})
	}
}

func TestParseProxies(t *testing.T) {
	if p, err := ratelimit.ParseProxies(""); err != nil || len(p) != 0 {
		t.Errorf("empty: %v, %v", p, err)
	}
	for _, bad := range []string{"nonsense", "10.0.0.0/33", "10.0.0.0/8,,x"} {
		if _, err := ratelimit.ParseProxies(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

// TestResolvedAddressReachesHandlers: behind Resolve, ClientAddress gives
// every handler the resolved client, not the proxy.
func TestResolvedAddressReachesHandlers(t *testing.T) {
	proxies, _ := ratelimit.ParseProxies("10.0.0.0/8")
	var got string
	h := proxies.Resolve(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { got = ratelimit.ClientAddress(r) }))
	r := httptest.NewRequest(http.MethodGet, "/", nil)
	r.RemoteAddr = "10.0.0.1:5000"
	r.Header.Set("X-Forwarded-For", "198.51.100.1")
	h.ServeHTTP(httptest.NewRecorder(), r)
	if got != "198.51.100.1" {
		t.Errorf("handler saw %q", got)
	}
}

// TestClientNetworkGroupsIPv6ByItsSlash64: every address of one IPv6 /64
// shares a failure budget; IPv4 addresses keep their own.
func TestClientNetworkGroupsIPv6ByItsSlash64(t *testing.T) {
	for _, c := range []struct{ peer, want string }{
		{"[2001:db8:1:2:aaaa::1]:5000", "2001:db8:1:2::/64"},
		{"[2001:db8:1:2:ffff:ffff:ffff:ffff]:5000", "2001:db8:1:2::/64"},
		{"[2001:db8:1:3::1]:5000", "2001:db8:1:3::/64"},
		{"198.51.100.7:5000", "198.51.100.7"},
		{"[::ffff:198.51.100.7]:5000", "198.51.100.7"},
	} {
		r := httptest.NewRequest(http.MethodGet, "/", nil)
		r.RemoteAddr = c.peer
		if got := ratelimit.ClientNetwork(r); got != c.want {
			t.Errorf("ClientNetwork(%s) = %q, want %q", c.peer, got, c.want)
		}
	}
}

func TestSignInNetworkIsTheSlash24OrTheSlash48(t *testing.T) {
	for _, c := range []struct{ peer, want string }{
		{"198.51.100.7:5000", "198.51.100.0/24"},
		{"198.51.100.254:5000", "198.51.100.0/24"},
		{"[::ffff:198.51.101.7]:5000", "198.51.101.0/24"},
		{"[2001:db8:1:2:aaaa::1]:5000", "2001:db8:1::/48"},
		{"[2001:db8:1:ffff::1]:5000", "2001:db8:1::/48"},
		{"[2001:db8:2::1]:5000", "2001:db8:2::/48"},
	} {
		r := httptest.NewRequest(http.MethodGet, "/", nil)
		r.RemoteAddr = c.peer
		if got := ratelimit.SignInNetwork(r); got != c.want {
			t.Errorf("SignInNetwork(%s) = %q, want %q", c.peer, got, c.want)
		}
	}
}
