package netpolicy

import (
	"net/netip"
	"testing"
)

func TestClassify(t *testing.T) {
	cases := []struct {
		addr    string
		refused bool
		class   string
	}{
		{"8.8.8.8", false, ClassPublic},
		{"1.1.1.1", false, ClassPublic},
		{"0.0.0.0", true, ClassUnspecified},
		{"0.1.2.3", true, ClassThisNetwork},
		{"10.1.2.3", true, ClassPrivate},
		{"172.16.0.1", true, ClassPrivate},
		{"172.31.255.255", true, ClassPrivate},
		{"172.32.0.1", false, ClassPublic},
		{"192.168.1.1", true, ClassPrivate},
		{"127.0.0.1", true, ClassLoopback},
		{"127.255.255.254", true, ClassLoopback},
		{"169.254.1.1", true, ClassLinkLocal},
		{"169.254.169.254", true, ClassMetadata},
		{"169.254.170.2", true, ClassMetadata},
		{"100.100.100.200", true, ClassMetadata},
		{"168.63.129.16", true, ClassMetadata},
		{"100.64.0.1", true, ClassCGNAT},
		{"100.127.255.255", true, ClassCGNAT},
		{"100.128.0.1", false, ClassPublic},
		{"192.0.0.8", true, ClassReserved},
		{"192.0.2.1", true, ClassDocumentation},
		{"198.51.100.7", true, ClassDocumentation},
		{"203.0.113.9", true, ClassDocumentation},
		{"198.18.0.1", true, ClassBenchmarking},
		{"198.19.255.255", true, ClassBenchmarking},
		{"192.88.99.1", true, ClassReserved},
		{"224.0.0.1", true, ClassMulticast},
		{"239.255.255.250", true, ClassMulticast},
		{"240.0.0.1", true, ClassReserved},
		{"255.255.255.255", true, ClassBroadcast},
		{"::", true, ClassUnspecified},
		{"::1", true, ClassLoopback},
		{"::ffff:127.0.0.1", true, ClassLoopback},
		{"::ffff:0.0.0.0", true, ClassUnspecified},
		{"::ffff:10.0.0.1", true, ClassPrivate},
		{"::ffff:169.254.169.254", true, ClassMetadata},
		{"::ffff:8.8.8.8", false, ClassPublic},
		{"::127.0.0.1", true, ClassIPv4Compat},
		{"::8.8.8.8", true, ClassIPv4Compat},
		{"::ffff:0:7f00:1", true, ClassReserved},
		{"64:ff9b::7f00:1", true, "nat64:" + ClassLoopback},
		{"64:ff9b::a9fe:a9fe", true, "nat64:" + ClassMetadata},
		{"64:ff9b::808:808", false, ClassPublic},
		{"64:ff9b:1::1", true, ClassPrivate},
		{"2002:7f00:1::", true, "6to4:" + ClassLoopback},
		{"2002:c0a8:101::1", true, "6to4:" + ClassPrivate},
		{"2002:808:808::1", false, ClassPublic},
		{"2001:0:4136:e378:8000:63bf:80ff:fffe", true, "teredo:" + ClassLoopback},
		{"2001:0:7f00:1::1", true, "teredo:" + ClassLoopback},
		{"2001:0:808:808::f7f7:f7f7", true, ClassReserved},
		{"fc00::1", true, ClassPrivate},
		{"fd12:3456::1", true, ClassPrivate},
		{"fd00:ec2::254", true, ClassMetadata},
		{"fe80::1", true, ClassLinkLocal},
		{"fec0::1", true, ClassPrivate},
		{"ff02::1", true, ClassMulticast},
		{"2001:db8::1", true, ClassDocumentation},
		{"3fff::1", true, ClassDocumentation},
		{"2001:2::1", true, ClassBenchmarking},
		{"100::1", true, ClassReserved},
		{"5f00::1", true, ClassReserved},
		{"4000::1", true, ClassReserved},
		{"2606:4700:4700::1111", false, ClassPublic},
		{"2a00:1450:4001::200e", false, ClassPublic},
	}
	for _, c := range cases {
		refused, class := Classify(netip.MustParseAddr(c.addr))
		if refused != c.refused || class != c.class {
			t.Errorf("Classify(%s) = %v %q; want %v %q", c.addr, refused, class, c.refused, c.class)
		}
	}
	if refused, class := Classify(netip.Addr{}); !refused || class != ClassInvalid {
		t.Errorf("Classify(zero) = %v %q; want refused invalid", refused, class)
	}
}
