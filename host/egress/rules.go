package egress

import (
	"fmt"
	"net/netip"
	"strconv"
	"strings"

	"demiurge.dev/shared/netpolicy"
)

// Rule is one entry of a domain allowlist: an exact host name,
// "*.example.com" for the names under example.com (not example.com
// itself), or "*" for any host (useful with a port: "*:8080"), with an
// optional port. A rule without a port allows 80 and
// 443 only; another port must be named.
type Rule struct {
	Host string
	Port uint16
}

// DefaultPorts are what a rule without a port, and an empty allowlist,
// allow.
var DefaultPorts = []uint16{80, 443}

func (r Rule) String() string {
	if r.Port == 0 {
		return r.Host
	}
	if strings.Contains(r.Host, ":") {
		return "[" + r.Host + "]:" + strconv.Itoa(int(r.Port))
	}
	return r.Host + ":" + strconv.Itoa(int(r.Port))
}

// ParseRule reads "host", "*.host", "host:port" or "*.host:port". The
// host is normalised the way the URL policy reads a URL's host (case,
// trailing dot, Unicode), so a rule and a request spelled differently
// compare as the same name.
func ParseRule(s string) (Rule, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return Rule{}, fmt.Errorf("empty allowlist entry")
	}
	if strings.ContainsAny(s, "/@ \\") {
		return Rule{}, fmt.Errorf("allowlist entry %q: want host, *.domain, host:port or *.domain:port", s)
	}
	host, portStr, hasPort := s, "", false
	switch colons := strings.Count(s, ":"); {
	case strings.HasPrefix(s, "["):
		// [v6] or [v6]:port: the port after the bracket, never inside.
		end := strings.IndexByte(s, ']')
		if end < 0 {
			return Rule{}, fmt.Errorf("allowlist entry %q: an IPv6 address ends with ]", s)
		}
		host = s[:end+1]
		if rest := s[end+1:]; rest != "" {
			if portStr, hasPort = strings.CutPrefix(rest, ":"); !hasPort {
				return Rule{}, fmt.Errorf("allowlist entry %q: want [address]:port", s)
			}
		}
	case colons == 1:
		i := strings.IndexByte(s, ':')
		host, portStr, hasPort = s[:i], s[i+1:], true
	case colons > 1:
		// A bare IPv6 address has no port; [address]:port names one.
		if a, err := netip.ParseAddr(s); err != nil || !a.Is6() {
			return Rule{}, fmt.Errorf("allowlist entry %q: want host, *.domain, host:port, *.domain:port or [IPv6]:port", s)
		}
		host = "[" + s + "]"
	}
	var port uint16
	if hasPort {
		n, err := strconv.Atoi(portStr)
		if err != nil || n < 1 || n > 65535 {
			return Rule{}, fmt.Errorf("allowlist entry %q: the port must be between 1 and 65535", s)
		}
		port = uint16(n)
	}
	if host == "*" {
		return Rule{Host: "*", Port: port}, nil
	}
	wild := strings.HasPrefix(host, "*.")
	name := strings.TrimPrefix(host, "*.")
	if strings.ContainsAny(name, "*/@ ") || name == "" || wild && strings.HasPrefix(name, "[") {
		return Rule{}, fmt.Errorf("allowlist entry %q: want host, *.domain, host:port or *.domain:port", s)
	}
	t, err := netpolicy.Parse("http://" + name + "/")
	if err != nil {
		return Rule{}, fmt.Errorf("allowlist entry %q: %v", s, netpolicy.SafeMessage(err))
	}
	if wild && t.IsLiteral() {
		return Rule{}, fmt.Errorf("allowlist entry %q: a wildcard takes a domain, not an address", s)
	}
	if wild {
		return Rule{Host: "*." + t.Host, Port: port}, nil
	}
	return Rule{Host: t.Host, Port: port}, nil
}

// ParseRules reads a comma- or space-separated list.
func ParseRules(s string) ([]Rule, error) {
	var out []Rule
	for _, f := range strings.FieldsFunc(s, func(r rune) bool { return r == ',' || r == ' ' || r == '\n' || r == '\t' }) {
		r, err := ParseRule(f)
		if err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, nil
}

// matches reports whether the normalised host and port pass r.
func (r Rule) matches(host string, port uint16) bool {
	if !portAllowed(r.Port, port) {
		return false
	}
	if r.Host == "*" {
		return true
	}
	if suffix, ok := strings.CutPrefix(r.Host, "*."); ok {
		return strings.HasSuffix(host, "."+suffix)
	}
	return host == r.Host
}

func portAllowed(named, port uint16) bool {
	if named == 0 {
		return port == 80 || port == 443
	}
	return port == named
}

// allowedBy says whether host:port passes list; an empty list allows any
// host on the default ports.
func allowedBy(list []Rule, host string, port uint16) bool {
	if len(list) == 0 {
		return portAllowed(0, port)
	}
	for _, r := range list {
		if r.matches(host, port) {
			return true
		}
	}
	return false
}

// ParseAllowances reads the operator's exact ADDRESS:PORT allowances
// (a local registry or test server on a refused address).
func ParseAllowances(s string) ([]netip.AddrPort, error) {
	var out []netip.AddrPort
	for _, f := range strings.FieldsFunc(s, func(r rune) bool { return r == ',' || r == ' ' }) {
		ap, err := netip.ParseAddrPort(f)
		if err != nil || ap.Port() == 0 {
			return nil, fmt.Errorf("allowance %q: want ADDRESS:PORT such as 127.0.0.1:4873 (an address, not a name)", f)
		}
		out = append(out, netip.AddrPortFrom(ap.Addr().WithZone("").Unmap(), ap.Port()))
	}
	return out, nil
}
