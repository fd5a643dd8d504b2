package egress

import (
	"slices"
	"strings"
	"testing"
)

// TestParseRule: an allowlist entry is read as the URL policy reads a
// host, with its port where it stands: after the bracket of an IPv6
// address ([2001:db8::1]:8443 allowed 80 and 443, not 8443, before), and
// never an empty one; a rule allows exactly what it names.
func TestParseRule(t *testing.T) {
	for _, tc := range []struct {
		in, want string // want: the rule as String gives it, or a word of the error
		ok       bool
		allows   []string // host:port pairs it passes
		refuses  []string
	}{
		{"example.com", "example.com", true, []string{"example.com:80", "example.com:443"}, []string{"example.com:8080", "a.example.com:443"}},
		{"EXAMPLE.com.", "example.com", true, []string{"example.com:443"}, nil},
		{"example.com:8080", "example.com:8080", true, []string{"example.com:8080"}, []string{"example.com:443"}},
		{"*.example.com", "*.example.com", true, []string{"a.example.com:443", "a.b.example.com:80"}, []string{"example.com:443", "badexample.com:443"}},
		{"*:8080", "*:8080", true, []string{"any.test:8080"}, []string{"any.test:443"}},
		{"127.1:80", "127.0.0.1:80", true, []string{"127.0.0.1:80"}, []string{"127.0.0.1:443"}},
		{"[2001:db8::1]:8443", "[2001:db8::1]:8443", true, []string{"2001:db8::1:8443"}, []string{"2001:db8::1:443", "2001:db8::1:80"}},
		{"[2001:DB8::1]", "2001:db8::1", true, []string{"2001:db8::1:443"}, []string{"2001:db8::1:8443"}},
		{"2001:db8::1", "2001:db8::1", true, []string{"2001:db8::1:80"}, nil},
		{"[::1]:443", "[::1]:443", true, []string{"::1:443"}, []string{"::1:80"}},
		{"example.com:1", "example.com:1", true, []string{"example.com:1"}, []string{"example.com:443"}},
		{"example.com:65535", "example.com:65535", true, []string{"example.com:65535"}, nil},
		{"example.com:", "between 1 and 65535", false, nil, nil},
		{"example.com:0", "between 1 and 65535", false, nil, nil},
		{"example.com:65536", "between 1 and 65535", false, nil, nil},
		{"[2001:db8::1]8443", "[address]:port", false, nil, nil},
		{"[2001:db8::1", "ends with ]", false, nil, nil},
		{"2001:db8::1:8443:x", "want host", false, nil, nil},
		{"*.[::1]", "want host", false, nil, nil},
		{"*.10.0.0.1", "not an address", false, nil, nil},
		{"a*b.com", "want host", false, nil, nil},
		{":443", "want host", false, nil, nil},
		{"user@example.com", "want host", false, nil, nil},
		{"", "empty", false, nil, nil},
	} {
		r, err := ParseRule(tc.in)
		if !tc.ok {
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("ParseRule(%q) = %v, %v; want an error naming %q", tc.in, r, err, tc.want)
			}
			continue
		}
		if err != nil || r.String() != tc.want {
			t.Errorf("ParseRule(%q) = %q, %v; want %q", tc.in, r.String(), err, tc.want)
			continue
		}
		for _, hp := range append(append([]string{}, tc.allows...), tc.refuses...) {
			i := strings.LastIndexByte(hp, ':')
			var port uint16
			for _, c := range hp[i+1:] {
				port = port*10 + uint16(c-'0')
			}
			want := !slices.Contains(tc.refuses, hp)
			if got := r.matches(hp[:i], port); got != want {
				t.Errorf("ParseRule(%q) passes %s: %v, want %v", tc.in, hp, got, want)
			}
		}
	}
}
