package netpolicy

import (
	"net"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
)

// Target is a URL after normalisation: what the policy checks and what the
// client connects to.
type Target struct {
	// Scheme is "http" or "https".
	Scheme string
	// Host is the normalised host: a lower-case ASCII name without a
	// trailing dot, a dotted IPv4 address, or an IPv6 address without
	// brackets.
	Host string
	// Port is the explicit port, or "" for the scheme's default.
	Port string
	// Addr is the address when Host is an IP literal.
	Addr netip.Addr

	u url.URL
}

// IsLiteral reports whether the host is an IP address, which needs no DNS.
func (t Target) IsLiteral() bool { return t.Addr.IsValid() }

// Origin is the credential-free scheme://host[:port], safe to show anywhere.
func (t Target) Origin() string {
	return t.Scheme + "://" + t.hostPort(false)
}

// HostPort is host:port with the default port filled in, as dialled.
func (t Target) HostPort() string { return t.hostPort(true) }

func (t Target) hostPort(withDefault bool) string {
	port := t.Port
	if port == "" && withDefault {
		port = defaultPort(t.Scheme)
	}
	host := t.Host
	if t.Addr.Is6() {
		host = "[" + host + "]"
	}
	if port == "" {
		return host
	}
	return host + ":" + port
}

// port is the port dialled: the explicit one or the scheme's default.
func (t Target) port() uint16 {
	p := t.Port
	if p == "" {
		p = defaultPort(t.Scheme)
	}
	n, _ := strconv.ParseUint(p, 10, 16)
	return uint16(n)
}

// URL is the normalised URL to send: normalised host, no userinfo. It keeps
// path, query and fragment, so it is not for display; use Origin there.
func (t Target) URL() string {
	u := t.u
	return u.String()
}

func defaultPort(scheme string) string {
	if scheme == "https" {
		return "443"
	}
	return "80"
}

// Parse normalises rawURL without deciding whether its address is allowed.
// It refuses (with a *RefusedError) what cannot be read unambiguously:
// anything but http and https, userinfo, a backslash or whitespace in the
// authority, an invalid port, a host that is not a valid domain name or IP
// address, and a numeric-looking host that is not a valid IPv4 address.
func Parse(rawURL string) (Target, error) {
	origin := OriginSummary(rawURL)
	auth, ok := authority(rawURL)
	if !ok {
		return Target{}, refused(origin, "invalid-url", "the URL needs the form http(s)://host/...")
	}
	if strings.ContainsAny(auth, "\\ \t\r\n") {
		return Target{}, refused(origin, "invalid-url", "the URL's authority contains a backslash or whitespace, which parsers read differently")
	}
	u, err := url.Parse(rawURL)
	if err != nil {
		return Target{}, refused(origin, "invalid-url", "the URL does not parse")
	}
	scheme := strings.ToLower(u.Scheme)
	if scheme != "http" && scheme != "https" {
		return Target{}, refused(origin, "scheme", "only http and https URLs are allowed")
	}
	if u.User != nil || strings.Contains(auth, "@") {
		return Target{}, refused(origin, "userinfo", "URLs with embedded credentials (userinfo) are not allowed; pass credentials another way")
	}
	if u.Opaque != "" || u.Host == "" {
		return Target{}, refused(origin, "invalid-url", "the URL has no host")
	}
	port := u.Port()
	if port != "" {
		n, err := strconv.Atoi(port)
		if err != nil || n < 1 || n > 65535 {
			return Target{}, refused(origin, "invalid-url", "the port must be between 1 and 65535")
		}
		port = strconv.Itoa(n)
		if port == defaultPort(scheme) {
			port = ""
		}
	} else if strings.HasSuffix(u.Host, ":") {
		return Target{}, refused(origin, "invalid-url", "the URL has an empty port")
	}
	host, addr, err := normaliseHost(u.Hostname(), strings.HasPrefix(u.Host, "["))
	if err != nil {
		return Target{}, refused(origin, "invalid-host", err.Error())
	}
	t := Target{Scheme: scheme, Host: host, Port: port, Addr: addr, u: *u}
	t.u.Scheme = scheme
	t.u.User = nil
	t.u.Host = t.hostPort(false)
	return t, nil
}

// Check parses rawURL and refuses what is refused without DNS: an IP
// literal of a refused class, and names that always mean the local machine
// or a metadata service. A name's addresses are checked by Resolve.
func Check(rawURL string) (Target, error) {
	return check(rawURL, false)
}

func check(rawURL string, allowLoopback bool) (Target, error) {
	t, err := Parse(rawURL)
	if err != nil {
		return Target{}, err
	}
	if t.IsLiteral() {
		if bad, class := Classify(t.Addr); bad && !(allowLoopback && class == ClassLoopback) {
			return Target{}, refused(t.Origin(), class, "the address "+t.Addr.String()+" is "+describeClass(class))
		}
		return t, nil
	}
	if class, bad := refusedName(t.Host); bad && !(allowLoopback && class == ClassLoopback) {
		return Target{}, refused(t.Origin(), class, "the name "+t.Host+" always means "+describeClass(class))
	}
	return t, nil
}

// refusedName knows the names that must never be looked up.
func refusedName(host string) (string, bool) {
	switch {
	case host == "localhost" || strings.HasSuffix(host, ".localhost"):
		return ClassLoopback, true
	case host == "metadata.google.internal" || host == "metadata" || host == "instance-data" ||
		strings.HasSuffix(host, ".metadata.google.internal"):
		return ClassMetadata, true
	}
	return "", false
}

// OriginSummary returns scheme://host[:port] of rawURL with the host
// normalised when possible, and never userinfo, path, query or fragment.
// It is meant for approval previews and messages, including of URLs the
// policy refuses.
func OriginSummary(rawURL string) string {
	scheme, _, ok := strings.Cut(rawURL, ":")
	if !ok || !validScheme(scheme) {
		return "<invalid url>"
	}
	scheme = strings.ToLower(scheme)
	auth, ok := authority(rawURL)
	if !ok {
		return scheme + ":<no host>"
	}
	if strings.ContainsAny(auth, "\\ \t\r\n") {
		return scheme + "://<invalid host>"
	}
	// Userinfo ends at the last '@' of the authority.
	if i := strings.LastIndexByte(auth, '@'); i >= 0 {
		auth = auth[i+1:]
	}
	u, err := url.Parse(scheme + "://" + auth)
	if err != nil || u.Host == "" {
		return scheme + "://<invalid host>"
	}
	host, addr, err := normaliseHost(u.Hostname(), strings.HasPrefix(u.Host, "["))
	if err != nil {
		return scheme + "://<invalid host>"
	}
	if addr.Is6() {
		host = "[" + host + "]"
	}
	port := u.Port()
	if n, err := strconv.Atoi(port); err == nil && n >= 1 && n <= 65535 {
		if p := strconv.Itoa(n); p != defaultPort(scheme) || (scheme != "http" && scheme != "https") {
			return scheme + "://" + net.JoinHostPort(strings.Trim(host, "[]"), p)
		}
	} else if port != "" {
		return scheme + "://<invalid host>"
	}
	return scheme + "://" + host
}

// authority returns what lies between "scheme://" and the first of / ? #.
func authority(rawURL string) (string, bool) {
	scheme, rest, ok := strings.Cut(rawURL, "://")
	if !ok || !validScheme(scheme) {
		return "", false
	}
	if i := strings.IndexAny(rest, "/?#"); i >= 0 {
		rest = rest[:i]
	}
	return rest, rest != ""
}

func validScheme(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z':
		case i > 0 && (c >= '0' && c <= '9' || c == '+' || c == '-' || c == '.'):
		default:
			return false
		}
	}
	return true
}
