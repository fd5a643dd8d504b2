package sandboxing

import (
	"fmt"
	"net/netip"
	"strings"

	"demiurge.dev/host/egress"
)

// The operator's egress settings for network-mode commands, from the
// host's environment (never from a core: agent.yaml is the agent's to
// write, and can only narrow them through sandbox.network_allow).
const (
	// EnvEgressAllow is the operator's domain allowlist (host, *.domain,
	// host:port; comma- or space-separated). Unset: any public host on
	// ports 80 and 443.
	EnvEgressAllow = "DEMIURGE_EGRESS_ALLOW"
	// EnvEgressLimited=1 allows only GET and HEAD over plain http, and
	// no https tunnel.
	EnvEgressLimited = "DEMIURGE_EGRESS_LIMITED"
	// EnvEgressAddr are exact ADDRESS:PORT allowances of refused
	// addresses (a local registry or test server).
	EnvEgressAddr = "DEMIURGE_EGRESS_ALLOW_ADDR"
)

// Egress is what a network-mode command may reach through the host's
// egress proxy.
type Egress struct {
	Operator []egress.Rule
	Core     []egress.Rule
	Limited  bool
	Allow    []netip.AddrPort
}

// EgressFromEnv reads the operator's settings; a malformed value is an
// error naming the variable.
func EgressFromEnv(getenv func(string) string) (Egress, error) {
	var e Egress
	var err error
	if e.Operator, err = egress.ParseRules(getenv(EnvEgressAllow)); err != nil {
		return Egress{}, fmt.Errorf("%s: %w", EnvEgressAllow, err)
	}
	if e.Allow, err = egress.ParseAllowances(getenv(EnvEgressAddr)); err != nil {
		return Egress{}, fmt.Errorf("%s: %w", EnvEgressAddr, err)
	}
	switch v := getenv(EnvEgressLimited); v {
	case "", "0":
	case "1":
		e.Limited = true
	default:
		return Egress{}, fmt.Errorf("%s=%q: want 1 or 0", EnvEgressLimited, v)
	}
	return e, nil
}

// Config is the proxy configuration of one call.
func (e Egress) Config() egress.Config {
	return egress.Config{Operator: e.Operator, Core: e.Core, Limited: e.Limited, Allow: e.Allow}
}

// Reach says on an approval card what a network-mode command will be
// able to reach.
func (e Egress) Reach() string {
	var b strings.Builder
	b.WriteString("only through the host's egress proxy (HTTP CONNECT and plain http; other traffic has no route): ")
	switch {
	case len(e.Operator) == 0 && len(e.Core) == 0:
		b.WriteString("any public host on ports 80 and 443")
	default:
		b.WriteString("the hosts " + rules(e.Operator, e.Core))
	}
	b.WriteString("; loopback, private, link-local, metadata, CGNAT, multicast and reserved addresses refused, DNS answers checked and pinned")
	if len(e.Allow) > 0 {
		s := make([]string, len(e.Allow))
		for i, a := range e.Allow {
			s[i] = a.String()
		}
		b.WriteString("; the operator also allows exactly " + strings.Join(s, ", "))
	}
	if e.Limited {
		b.WriteString("; limited: GET and HEAD over plain http only, no https")
	}
	return b.String()
}

func rules(op, core []egress.Rule) string {
	list := func(rs []egress.Rule) string {
		s := make([]string, len(rs))
		for i, r := range rs {
			s[i] = r.String()
		}
		return strings.Join(s, ", ")
	}
	switch {
	case len(core) == 0:
		return list(op) + " (operator's allowlist)"
	case len(op) == 0:
		return list(core) + " (core's allowlist)"
	}
	return list(op) + " (operator's allowlist) narrowed to " + list(core) + " (core's)"
}
