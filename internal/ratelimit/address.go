package ratelimit

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"strings"
)

// Proxies are the networks whose X-Forwarded-For is believed: the load
// balancers in front of Gatehouse. From any other peer the header is
// ignored, since anyone can send it.
type Proxies []netip.Prefix

// ParseProxies reads a comma-separated list of CIDRs; a bare address
// stands for itself alone. An empty list trusts no proxy. Any entry that
// is neither is an error naming it.
func ParseProxies(list string) (Proxies, error) {
	var p Proxies
	for _, s := range strings.Split(list, ",") {
		s = strings.TrimSpace(s)
		if s == "" {
			continue
		}
		prefix, err := netip.ParsePrefix(s)
		if err != nil {
			addr, aerr := netip.ParseAddr(s)
			if aerr != nil {
				return nil, fmt.Errorf("%q is not a CIDR such as 10.0.0.0/8 or an address", s)
			}
			prefix = netip.PrefixFrom(addr.Unmap(), addr.Unmap().BitLen())
		}
		p = append(p, prefix.Masked())
	}
	return p, nil
}

func (p Proxies) trusts(addr netip.Addr) bool {
	for _, prefix := range p {
		if prefix.Contains(addr) {
			return true
		}
	}
	return false
}

// ClientAddress is the address of the client that sent r: the
// connection's peer, or, when the peer is a trusted proxy, the right-most
// address of X-Forwarded-For that is not a trusted proxy. Everything to
// the left of that one was written by the client itself and proves
// nothing. When every hop is trusted the left-most is the client; an
// entry that is not an address stops the walk at the hop that wrote it.
func (p Proxies) ClientAddress(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		host = r.RemoteAddr
	}
	client, err := netip.ParseAddr(host)
	if err != nil || !p.trusts(client.Unmap()) {
		return host
	}
	hops := strings.Split(strings.Join(r.Header.Values("X-Forwarded-For"), ","), ",")
	for i := len(hops) - 1; i >= 0; i-- {
		hop, ok := parseHop(hops[i])
		if !ok {
			break
		}
		client = hop
		if !p.trusts(hop) {
			break
		}
	}
	return client.Unmap().WithZone("").String()
}

// parseHop reads one entry of X-Forwarded-For: an address, with or
// without a port (some proxies add one).
func parseHop(s string) (netip.Addr, bool) {
	s = strings.TrimSpace(s)
	if ap, err := netip.ParseAddrPort(s); err == nil {
		return ap.Addr().Unmap(), true
	}
	a, err := netip.ParseAddr(strings.Trim(s, "[]"))
	return a.Unmap(), err == nil
}

type clientKey struct{}

// Resolve returns next with each request's client address worked out once
// through p, for ClientAddress to read; the API mounts it in front of
// every route, the dashboard's included.
func (p Proxies) Resolve(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ctx := context.WithValue(r.Context(), clientKey{}, p.ClientAddress(r))
		next.ServeHTTP(w, r.WithContext(ctx))
	})
}

// ClientAddress is the address per-address limits key on and logs show:
// the one Resolve worked out for r, or, for a request that did not pass
// through Resolve, the host of the connection's peer.
func ClientAddress(r *http.Request) string {
	if addr, ok := r.Context().Value(clientKey{}).(string); ok {
		return addr
	}
	return Proxies(nil).ClientAddress(r)
}

// ClientNetwork is what per-address limits key on: the client's address
// for IPv4, its /64 for IPv6. One IPv6 host is routinely given a whole
// /64, so keying on the full address would hand an attacker 2^64 failure
// budgets.
func ClientNetwork(r *http.Request) string {
	addr, err := netip.ParseAddr(ClientAddress(r))
	if err != nil {
		return ClientAddress(r)
	}
	if addr = addr.Unmap().WithZone(""); !addr.Is6() {
		return addr.String()
	}
	return netip.PrefixFrom(addr, 64).Masked().String()
}

// SignInNetwork is what the dashboard's sign-in limits key on: the
// client's /24 for IPv4 and its /48 for IPv6, the blocks a network is
// handed out in (an IPv6 site routinely holds a /48, and cloud hosts rent
// neighbouring IPv4 addresses), so that one guesser does not multiply its
// budget by the addresses of its block. Anything that is not an address
// stands for itself.
func SignInNetwork(r *http.Request) string {
	addr, err := netip.ParseAddr(ClientAddress(r))
	if err != nil {
		return ClientAddress(r)
	}
	bits := 24
	if addr = addr.Unmap().WithZone(""); addr.Is6() {
		bits = 48
	}
	return netip.PrefixFrom(addr, bits).Masked().String()
}
