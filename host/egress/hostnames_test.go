package egress

import "testing"

// TestOneHostRefusesWhatAURLWouldTakeApart: a SOCKS5 name is any bytes;
// one that a URL would read as more than a host (a delimiter, a blank or
// control byte, a colon outside an IPv6 address) is refused, so that
// "a.test/@127.0.0.1" is never taken apart into another host.
func TestOneHostRefusesWhatAURLWouldTakeApart(t *testing.T) {
	for _, h := range []string{"a.test/@127.0.0.1", "/a", "a?b", "a#b", "user@a.test", `a\b`, "[::1]", "a]", "a%2fb",
		"a b", "a\tb", "a\x00b", "a\x7fb", " ", "a.test:80", "1.2.3.4:443", "::1:x"} {
		if oneHost(h) == nil {
			t.Errorf("oneHost(%q) = nil; want it refused", h)
		}
	}
	for _, h := range []string{"a.test", "example.com", "127.0.0.1", "::1", "2001:db8::1", "xn--bcher-kva.example", "a-b_c.test", "~.test"} {
		if err := oneHost(h); err != nil {
			t.Errorf("oneHost(%q) = %v; a host name or address", h, err)
		}
	}
}

// TestBracketOnlyIPv6: an IPv6 address is bracketed to be joined with a
// port; a name or IPv4 address is not.
func TestBracketOnlyIPv6(t *testing.T) {
	for in, want := range map[string]string{"::1": "[::1]", "2001:db8::1": "[2001:db8::1]", "a.test": "a.test", "127.0.0.1": "127.0.0.1"} {
		if got := bracket(in); got != want {
			t.Errorf("bracket(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestSplitPortBounds: a port is 1 to 65535; none given is the default,
// and a default of 0 (none) is no port.
func TestSplitPortBounds(t *testing.T) {
	for _, tc := range []struct {
		in   string
		def  uint16
		want uint16
		ok   bool
	}{
		{"1", 80, 1, true}, {"65535", 80, 65535, true}, {"0", 80, 0, false}, {"65536", 80, 0, false},
		{"-1", 80, 0, false}, {"x", 80, 0, false}, {"", 443, 443, true}, {"", 0, 0, false},
	} {
		got, ok := splitPort(tc.in, tc.def)
		if got != tc.want || ok != tc.ok {
			t.Errorf("splitPort(%q, %d) = %d %v, want %d %v", tc.in, tc.def, got, ok, tc.want, tc.ok)
		}
	}
}
