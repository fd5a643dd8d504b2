package netpolicy

import (
	"errors"
	"net/netip"
	"strings"
	"unicode/utf8"

	"golang.org/x/net/idna"
)

// idnaProfile is the UTS #46 processing of the WHATWG URL standard's
// "domain to ASCII" (non-transitional, no STD3 rules, no DNS length
// check), with the Bidi rule: it maps "①②⑦" to "127" and "。" to ".".
var idnaProfile = idna.New(
	idna.MapForLookup(),
	idna.Transitional(false),
	idna.StrictDomainName(false),
	idna.BidiRule(),
)

var errNotIPv4 = errors.New("not an IPv4 address")

// normaliseHost turns a URL host (brackets removed, percent-decoding already
// done by net/url) into its canonical form: a lower-case ASCII name without
// a trailing dot, or an IP literal. A host that ends in a number must parse
// as IPv4 under the WHATWG rules; otherwise it is refused rather than given
// to a resolver that may read it differently.
func normaliseHost(host string, bracketed bool) (string, netip.Addr, error) {
	if host == "" {
		return "", netip.Addr{}, errors.New("the URL has no host")
	}
	if bracketed {
		addr, err := netip.ParseAddr(host)
		if err != nil || !addr.Is6() {
			return "", netip.Addr{}, errors.New("the bracketed host is not an IPv6 address")
		}
		if addr.Zone() != "" {
			return "", netip.Addr{}, errors.New("IPv6 zone identifiers are not allowed")
		}
		return addr.String(), addr, nil
	}
	if !utf8.ValidString(host) || strings.ContainsRune(host, utf8.RuneError) {
		return "", netip.Addr{}, errors.New("the host is not valid UTF-8")
	}
	ascii, err := idnaProfile.ToASCII(host)
	if err != nil {
		return "", netip.Addr{}, errors.New("the host is not a valid domain name")
	}
	ascii = strings.ToLower(ascii)
	for i := 0; i < len(ascii); i++ {
		if forbiddenDomainByte(ascii[i]) {
			return "", netip.Addr{}, errors.New("the host contains a character a domain name cannot have")
		}
	}
	if endsInNumber(ascii) {
		addr, err := parseWHATWGIPv4(ascii)
		if err != nil {
			return "", netip.Addr{}, errors.New("the host looks numeric but is not a valid IPv4 address")
		}
		return addr.String(), addr, nil
	}
	name := strings.TrimSuffix(ascii, ".")
	if name == "" || strings.Contains(name, "..") || strings.HasPrefix(name, ".") || strings.HasSuffix(name, ".") {
		return "", netip.Addr{}, errors.New("the host has an empty label")
	}
	return name, netip.Addr{}, nil
}

// forbiddenDomainByte reports the WHATWG forbidden domain code points (ASCII
// part) plus anything outside printable ASCII, which ToASCII must not leave.
func forbiddenDomainByte(c byte) bool {
	if c <= 0x20 || c >= 0x7f {
		return true
	}
	return strings.IndexByte("#%/:<>?@[\\]^|", c) >= 0
}

// endsInNumber is the WHATWG "ends in a number" checker.
func endsInNumber(host string) bool {
	parts := strings.Split(host, ".")
	if parts[len(parts)-1] == "" {
		if len(parts) == 1 {
			return false
		}
		parts = parts[:len(parts)-1]
	}
	last := parts[len(parts)-1]
	if last != "" && strings.Trim(last, "0123456789") == "" {
		return true
	}
	_, err := parseIPv4Number(last)
	return err == nil
}

// parseWHATWGIPv4 is the WHATWG IPv4 parser: one to four parts, each
// decimal, octal (leading 0) or hexadecimal (0x); the last part fills the
// remaining bytes, so 127.1 is 127.0.0.1 and 2130706433 is 127.0.0.1.
func parseWHATWGIPv4(host string) (netip.Addr, error) {
	parts := strings.Split(host, ".")
	if parts[len(parts)-1] == "" && len(parts) > 1 {
		parts = parts[:len(parts)-1]
	}
	if len(parts) > 4 {
		return netip.Addr{}, errNotIPv4
	}
	nums := make([]uint64, len(parts))
	for i, p := range parts {
		n, err := parseIPv4Number(p)
		if err != nil {
			return netip.Addr{}, err
		}
		nums[i] = n
	}
	for _, n := range nums[:len(nums)-1] {
		if n > 255 {
			return netip.Addr{}, errNotIPv4
		}
	}
	last := nums[len(nums)-1]
	if last >= 1<<(8*(5-len(nums))) {
		return netip.Addr{}, errNotIPv4
	}
	v := last
	for i, n := range nums[:len(nums)-1] {
		v += n << (8 * (3 - i))
	}
	return netip.AddrFrom4([4]byte{byte(v >> 24), byte(v >> 16), byte(v >> 8), byte(v)}), nil
}

// parseIPv4Number parses one part of a WHATWG IPv4 address. Values are
// capped well above 2^32 so that overflow cannot wrap into range.
func parseIPv4Number(s string) (uint64, error) {
	if s == "" {
		return 0, errNotIPv4
	}
	base := uint64(10)
	switch {
	case len(s) >= 2 && (s[:2] == "0x" || s[:2] == "0X"):
		s, base = s[2:], 16
	case len(s) >= 2 && s[0] == '0':
		s, base = s[1:], 8
	}
	if s == "" {
		return 0, nil
	}
	var v uint64
	for i := 0; i < len(s); i++ {
		d, ok := digitValue(s[i])
		if !ok || d >= base {
			return 0, errNotIPv4
		}
		v = v*base + d
		if v > 1<<40 {
			return 0, errNotIPv4
		}
	}
	return v, nil
}

func digitValue(c byte) (uint64, bool) {
	switch {
	case c >= '0' && c <= '9':
		return uint64(c - '0'), true
	case c >= 'a' && c <= 'f':
		return uint64(c-'a') + 10, true
	case c >= 'A' && c <= 'F':
		return uint64(c-'A') + 10, true
	}
	return 0, false
}
