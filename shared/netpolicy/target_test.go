package netpolicy

import (
	"errors"
	"testing"
)

func TestParseNormalisesHosts(t *testing.T) {
	cases := []struct {
		raw, origin, host string
		literal           bool
	}{
		{"http://example.com/a?b#c", "http://example.com", "example.com", false},
		{"HTTPS://Example.COM.:443/", "https://example.com", "example.com", false},
		{"http://example.com:8080", "http://example.com:8080", "example.com", false},
		{"http://example.com:0080/", "http://example.com", "example.com", false},
		{"http://2130706433/", "http://127.0.0.1", "127.0.0.1", true},
		{"http://0x7f.1/", "http://127.0.0.1", "127.0.0.1", true},
		{"http://0177.0.0.1/", "http://127.0.0.1", "127.0.0.1", true},
		{"http://127.1/", "http://127.0.0.1", "127.0.0.1", true},
		{"http://127.0.1/", "http://127.0.0.1", "127.0.0.1", true},
		{"http://0/", "http://0.0.0.0", "0.0.0.0", true},
		{"http://0x0/", "http://0.0.0.0", "0.0.0.0", true},
		{"http://8.8.8.8./", "http://8.8.8.8", "8.8.8.8", true},
		{"http://255.1.2.3/", "http://255.1.2.3", "255.1.2.3", true},
		{"http://0377.1.2.3/", "http://255.1.2.3", "255.1.2.3", true},
		{"http://①②⑦.0.0.1/", "http://127.0.0.1", "127.0.0.1", true},
		{"http://127。0。0。1/", "http://127.0.0.1", "127.0.0.1", true},
		{"http://ＥＸＡＭＰＬＥ.com/", "http://example.com", "example.com", false},
		{"http://bücher.de/", "http://xn--bcher-kva.de", "xn--bcher-kva.de", false},
		{"http://[::FFFF:127.0.0.1]:8080/", "http://[::ffff:127.0.0.1]:8080", "::ffff:127.0.0.1", true},
		{"https://[2606:4700::1111]/", "https://[2606:4700::1111]", "2606:4700::1111", true},
		{"http://1.2.3.4.example.com/", "http://1.2.3.4.example.com", "1.2.3.4.example.com", false},
		{"http://evil.com#@good.com", "http://evil.com", "evil.com", false},
	}
	for _, c := range cases {
		got, err := Parse(c.raw)
		if err != nil {
			t.Errorf("Parse(%q): %v", c.raw, err)
			continue
		}
		if got.Origin() != c.origin || got.Host != c.host || got.IsLiteral() != c.literal {
			t.Errorf("Parse(%q) = origin %q host %q literal %v; want %q %q %v", c.raw, got.Origin(), got.Host, got.IsLiteral(), c.origin, c.host, c.literal)
		}
		if s := OriginSummary(c.raw); s != c.origin {
			t.Errorf("OriginSummary(%q) = %q; want %q", c.raw, s, c.origin)
		}
	}
}

func TestParseRefuses(t *testing.T) {
	cases := []struct{ raw, class string }{
		{"ftp://example.com/", "scheme"},
		{"file:///etc/passwd", "invalid-url"},
		{"javascript:alert(1)", "invalid-url"},
		{"gopher://example.com/", "scheme"},
		{"http://user:pw@example.com/", "userinfo"},
		{"http://user@example.com/", "userinfo"},
		{"http://@example.com/", "userinfo"},
		{"http://good.com\\@evil.com/", "invalid-url"},
		{"http://exa mple.com/", "invalid-url"},
		{"http://256.256.256.256/", "invalid-host"},
		{"http://1.2.3.4.5/", "invalid-host"},
		{"http://0x100000000/", "invalid-host"},
		{"http://4294967296/", "invalid-host"},
		{"http://09.0.0.1/", "invalid-host"},
		{"http://08.0.0.1/", "invalid-host"},
		{"http://256.1.2.3/", "invalid-host"},
		{"http://a<b.com/", "invalid-host"},
		{"http://a%25b.com/", "invalid-host"},
		{"http://1.2.3.0x/", ""},
		{"http://example..com/", "invalid-host"},
		{"http://example.com../", "invalid-host"},
		{"http://[fe80::1%25eth0]/", "invalid-host"},
		{"http://example.com:0/", "invalid-url"},
		{"http://example.com:65536/", "invalid-url"},
		{"http://example.com:/", "invalid-url"},
		{"http:/example.com/", "invalid-url"},
		{"http:example.com", "invalid-url"},
		{"//example.com/", "invalid-url"},
		{"", "invalid-url"},
	}
	for _, c := range cases {
		_, err := Parse(c.raw)
		var re *RefusedError
		if c.class == "" {
			// Accepted by Parse (a literal: Check decides).
			if err != nil {
				t.Errorf("Parse(%q): %v", c.raw, err)
			}
			continue
		}
		if !errors.As(err, &re) || !errors.Is(err, ErrRefused) {
			t.Errorf("Parse(%q) err = %v; want a refusal of class %s", c.raw, err, c.class)
			continue
		}
		if re.Class != c.class {
			t.Errorf("Parse(%q) class %q (%v); want %q", c.raw, re.Class, err, c.class)
		}
	}
}
