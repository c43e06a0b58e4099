package gatehouse

import "net/netip"

// nonPublic are the ranges netip's predicates leave out.
var nonPublic = []netip.Prefix{
	netip.MustParsePrefix("0.0.0.0/8"),     // "this network"
	netip.MustParsePrefix("100.64.0.0/10"), // carrier-grade NAT, shared address space
	netip.MustParsePrefix("192.0.0.0/24"),  // IETF protocol assignments
	netip.MustParsePrefix("198.18.0.0/15"), // benchmarking
	netip.MustParsePrefix("240.0.0.0/4"),   // reserved, and the broadcast address
	netip.MustParsePrefix("64:ff9b::/96"),  // NAT64: an IPv4 address behind it, whichever
	netip.MustParsePrefix("64:ff9b:1::/48"),
	netip.MustParsePrefix("fec0::/10"),       // site-local, deprecated but routed by some
	netip.MustParsePrefix("::/96"),           // IPv4-compatible (deprecated): an IPv4 address inside
	netip.MustParsePrefix("::ffff:0:0:0/96"), // IPv4-translated (SIIT)
	netip.MustParsePrefix("2002::/16"),       // 6to4: an IPv4 address inside, whichever
	netip.MustParsePrefix("2001::/32"),       // Teredo: likewise
}

// PublicAddress reports whether a webhook may connect to addr without
// --webhooks-allow-private: not loopback, private, link-local, multicast,
// unspecified, nor in nonPublic. internal/webhook checks it on every
// address its client dials.
func PublicAddress(addr netip.Addr) bool {
	addr = addr.Unmap() // ::ffff:127.0.0.1 is 127.0.0.1
	if !addr.IsValid() || addr.IsLoopback() || addr.IsPrivate() || addr.IsLinkLocalUnicast() ||
		addr.IsLinkLocalMulticast() || addr.IsInterfaceLocalMulticast() || addr.IsMulticast() || addr.IsUnspecified() {
		return false
	}
	for _, p := range nonPublic {
		if p.Contains(addr) {
			return false
		}
	}
	return true
}
