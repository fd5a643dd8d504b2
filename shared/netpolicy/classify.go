package netpolicy

import (
	"net/netip"
)

// Address classes. Every class but ClassPublic is refused.
const (
	ClassPublic        = "public"
	ClassUnspecified   = "unspecified"
	ClassThisNetwork   = "this-network"
	ClassLoopback      = "loopback"
	ClassPrivate       = "private"
	ClassLinkLocal     = "link-local"
	ClassCGNAT         = "cgnat"
	ClassMetadata      = "metadata"
	ClassMulticast     = "multicast"
	ClassBroadcast     = "broadcast"
	ClassReserved      = "reserved"
	ClassDocumentation = "documentation"
	ClassBenchmarking  = "benchmarking"
	ClassIPv4Compat    = "ipv4-compatible"
	ClassInvalid       = "invalid"
)

type classRange struct {
	prefix netip.Prefix
	class  string
}

// metadataAddrs are cloud instance-metadata and platform endpoints. They
// are checked before the ranges that contain them so that the class says
// what they are.
var metadataAddrs = []netip.Addr{
	netip.MustParseAddr("169.254.169.254"), // AWS, GCP, Azure, OCI, OpenStack
	netip.MustParseAddr("169.254.170.2"),   // AWS ECS task metadata
	netip.MustParseAddr("169.254.169.123"), // AWS time sync
	netip.MustParseAddr("100.100.100.200"), // Alibaba Cloud
	netip.MustParseAddr("168.63.129.16"),   // Azure wire server (a public address)
	netip.MustParseAddr("fd00:ec2::254"),   // AWS IPv6 metadata
	netip.MustParseAddr("fd00:ec2::23"),    // AWS IPv6 DNS
}

var v4Ranges = []classRange{
	{netip.MustParsePrefix("0.0.0.0/32"), ClassUnspecified},
	{netip.MustParsePrefix("0.0.0.0/8"), ClassThisNetwork},
	{netip.MustParsePrefix("10.0.0.0/8"), ClassPrivate},
	{netip.MustParsePrefix("100.64.0.0/10"), ClassCGNAT},
	{netip.MustParsePrefix("127.0.0.0/8"), ClassLoopback},
	{netip.MustParsePrefix("169.254.0.0/16"), ClassLinkLocal},
	{netip.MustParsePrefix("172.16.0.0/12"), ClassPrivate},
	{netip.MustParsePrefix("192.0.0.0/24"), ClassReserved},
	{netip.MustParsePrefix("192.0.2.0/24"), ClassDocumentation},
	{netip.MustParsePrefix("192.88.99.0/24"), ClassReserved},
	{netip.MustParsePrefix("192.168.0.0/16"), ClassPrivate},
	{netip.MustParsePrefix("198.18.0.0/15"), ClassBenchmarking},
	{netip.MustParsePrefix("198.51.100.0/24"), ClassDocumentation},
	{netip.MustParsePrefix("203.0.113.0/24"), ClassDocumentation},
	{netip.MustParsePrefix("224.0.0.0/4"), ClassMulticast},
	{netip.MustParsePrefix("255.255.255.255/32"), ClassBroadcast},
	{netip.MustParsePrefix("240.0.0.0/4"), ClassReserved},
}

var v6Ranges = []classRange{
	{netip.MustParsePrefix("::/128"), ClassUnspecified},
	{netip.MustParsePrefix("::1/128"), ClassLoopback},
	{netip.MustParsePrefix("::ffff:0:0:0/96"), ClassReserved}, // IPv4-translated (SIIT)
	{netip.MustParsePrefix("100::/64"), ClassReserved},        // discard-only
	{netip.MustParsePrefix("64:ff9b:1::/48"), ClassPrivate},   // local-use NAT64
	{netip.MustParsePrefix("2001:2::/48"), ClassBenchmarking},
	{netip.MustParsePrefix("2001::/23"), ClassReserved}, // IETF protocol assignments
	{netip.MustParsePrefix("2001:db8::/32"), ClassDocumentation},
	{netip.MustParsePrefix("3fff::/20"), ClassDocumentation},
	{netip.MustParsePrefix("5f00::/16"), ClassReserved}, // SRv6 SIDs
	{netip.MustParsePrefix("fc00::/7"), ClassPrivate},
	{netip.MustParsePrefix("fe80::/10"), ClassLinkLocal},
	{netip.MustParsePrefix("fec0::/10"), ClassPrivate}, // deprecated site-local
	{netip.MustParsePrefix("ff00::/8"), ClassMulticast},
}

var (
	nat64Prefix  = netip.MustParsePrefix("64:ff9b::/96")
	sixToFour    = netip.MustParsePrefix("2002::/16")
	teredo       = netip.MustParsePrefix("2001::/32")
	v4Compatible = netip.MustParsePrefix("::/96")
	globalV6     = netip.MustParsePrefix("2000::/3")
)

// Classify says whether addr may be connected to and which class it falls
// in. IPv4-mapped IPv6 addresses are unmapped first (netip.Prefix.Contains
// is false for the mapped form of a contained address), so ::ffff:127.0.0.1
// is loopback and ::ffff:0.0.0.0 unspecified. The IPv4 address inside a
// NAT64, 6to4 or Teredo address is classified too: such an address is
// refused when what it embeds is refused. IPv6 outside global unicast
// (2000::/3) is refused as reserved.
func Classify(addr netip.Addr) (refused bool, class string) {
	if !addr.IsValid() {
		return true, ClassInvalid
	}
	addr = addr.WithZone("").Unmap()
	for _, m := range metadataAddrs {
		if addr == m {
			return true, ClassMetadata
		}
	}
	if addr.Is4() {
		for _, r := range v4Ranges {
			if r.prefix.Contains(addr) {
				return true, r.class
			}
		}
		return false, ClassPublic
	}
	switch {
	case addr.IsUnspecified():
		return true, ClassUnspecified
	case addr.IsLoopback():
		return true, ClassLoopback
	case v4Compatible.Contains(addr):
		return true, ClassIPv4Compat
	case nat64Prefix.Contains(addr):
		return embedded("nat64", v4At(addr, 12))
	case sixToFour.Contains(addr):
		return embedded("6to4", v4At(addr, 2))
	case teredo.Contains(addr):
		// Server and (inverted) client addresses are embedded; a Teredo
		// address with public ones is still refused below as reserved.
		b := addr.As16()
		client := netip.AddrFrom4([4]byte{^b[12], ^b[13], ^b[14], ^b[15]})
		for _, v4 := range []netip.Addr{v4At(addr, 4), client} {
			if bad, class := embedded("teredo", v4); bad {
				return bad, class
			}
		}
	}
	for _, r := range v6Ranges {
		if r.prefix.Contains(addr) {
			return true, r.class
		}
	}
	if !globalV6.Contains(addr) {
		return true, ClassReserved
	}
	return false, ClassPublic
}

// embedded classifies an IPv4 address carried inside an IPv6 one.
func embedded(kind string, v4 netip.Addr) (bool, string) {
	bad, class := Classify(v4)
	if bad {
		return true, kind + ":" + class
	}
	return false, ClassPublic
}

func v4At(addr netip.Addr, off int) netip.Addr {
	b := addr.As16()
	return netip.AddrFrom4([4]byte{b[off], b[off+1], b[off+2], b[off+3]})
}

// describeClass is the reason text for a refused class.
func describeClass(class string) string {
	switch class {
	case ClassLoopback:
		return "the local machine (loopback)"
	case ClassPrivate:
		return "a private network address"
	case ClassLinkLocal:
		return "a link-local address"
	case ClassCGNAT:
		return "a carrier-grade NAT address"
	case ClassMetadata:
		return "a cloud metadata endpoint"
	case ClassMulticast:
		return "a multicast address"
	case ClassBroadcast:
		return "the broadcast address"
	case ClassUnspecified, ClassThisNetwork:
		return "an unspecified address"
	case ClassDocumentation:
		return "a documentation address"
	case ClassBenchmarking:
		return "a benchmarking address"
	case ClassIPv4Compat:
		return "an IPv4-compatible IPv6 address"
	}
	return "not a public address (" + class + ")"
}
