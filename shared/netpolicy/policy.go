package netpolicy

import (
	"context"
	"crypto/tls"
	"errors"
	"net"
	"net/netip"
	"slices"
	"time"
)

// Resolver looks a host name up. *net.Resolver satisfies it.
type Resolver interface {
	LookupNetIP(ctx context.Context, network, host string) ([]netip.Addr, error)
}

// Options configure a Policy. The zero value is the production policy.
type Options struct {
	// Resolver replaces net.DefaultResolver. Tests inject one that maps
	// names to chosen addresses; the policy checks its answers exactly as
	// it checks DNS.
	Resolver Resolver
	// AllowLoopbackForTests lets loopback addresses (and only those)
	// through, so that tests can reach an HTTP server on 127.0.0.1.
	// TEST ONLY: production code never sets it, and it must never be
	// derived from configuration, agent.yaml, a tool argument or the
	// environment of a production build.
	AllowLoopbackForTests bool
	// AllowPrivate are exact address:port pairs the operator allows
	// although their class is refused (a local MCP server on
	// 127.0.0.1:3999). Only that address at that port passes: another port
	// of it, another private address, and names that always mean the
	// local machine (localhost) stay refused, and every DNS answer and
	// redirect hop is still checked. Set only from what the operator
	// configured (a command-line flag or the host's own configuration
	// file), never from agent.yaml, a manifest or a tool argument.
	AllowPrivate []netip.AddrPort
	// MaxRedirects bounds the redirects a Client follows (default 5;
	// negative: follow none).
	MaxRedirects int
	// DialTimeout bounds one connection attempt (default 10 s).
	DialTimeout time.Duration
	// TLSClientConfig, when set, is cloned into the transport (private
	// root CAs, client certificates). ServerName is always the URL's
	// host: whatever this config says, SNI and verification use the name.
	TLSClientConfig *tls.Config
	// OnDecision, when set, is called once per request and redirect hop
	// with the policy's verdict, for audit events. It must not block.
	OnDecision func(Decision)
}

// Decision is the secret-safe record of one verdict: origin and addresses
// only, never userinfo, path, query or fragment.
type Decision struct {
	// Phase is "request" for the first request and "redirect" for a hop.
	Phase   string
	Origin  string
	Allowed bool
	// Class is the refused class, or "public" when allowed.
	Class  string
	Reason string
	Addrs  []netip.Addr
	// Private is set when the request was allowed only by AllowPrivate:
	// the address:port the operator allowed.
	Private string
}

// Policy checks targets and builds pinned clients.
type Policy struct {
	opts Options
}

// New returns a Policy with opts.
func New(opts Options) *Policy {
	if opts.Resolver == nil {
		opts.Resolver = net.DefaultResolver
	}
	if opts.MaxRedirects == 0 {
		opts.MaxRedirects = 5
	}
	if opts.DialTimeout <= 0 {
		opts.DialTimeout = 10 * time.Second
	}
	return &Policy{opts: opts}
}

// Check is the package-level Check under this policy's allowances (the
// test-only loopback one, the operator's exact private addresses).
func (p *Policy) Check(rawURL string) (Target, error) {
	t, err := check(rawURL, p.opts.AllowLoopbackForTests)
	if err == nil || len(p.opts.AllowPrivate) == 0 {
		return t, err
	}
	// Only a literal of a refused class can be the operator's exception;
	// a refused name (localhost) stays refused.
	if lit, perr := Parse(rawURL); perr == nil && lit.IsLiteral() {
		if ok, _ := p.allowedAt(lit.Addr, lit.port()); ok {
			return lit, nil
		}
	}
	return t, err
}

// allowedAt applies Classify with the test-only loopback allowance and the
// operator's exact private addresses.
func (p *Policy) allowedAt(addr netip.Addr, port uint16) (bool, string) {
	bad, class := Classify(addr)
	if bad && p.opts.AllowLoopbackForTests && class == ClassLoopback {
		return true, class
	}
	if bad && p.privateAllowed(addr, port) {
		return true, class
	}
	return !bad, class
}

// privateAllowed reports whether the operator allowed exactly addr:port.
func (p *Policy) privateAllowed(addr netip.Addr, port uint16) bool {
	return slices.Contains(p.opts.AllowPrivate, netip.AddrPortFrom(addr.WithZone("").Unmap(), port))
}

// Resolve returns the addresses t may be dialled at. An IP literal is its
// own answer. A name must resolve, and every address it resolves to must be
// allowed: a lookup error, an empty answer, an invalid address or any
// refused address among the answers refuses the whole target.
func (p *Policy) Resolve(ctx context.Context, t Target) ([]netip.Addr, error) {
	origin := t.Origin()
	if t.Host == "" {
		return nil, refused(origin, "invalid-host", "the URL has no host")
	}
	var answers []netip.Addr
	if t.IsLiteral() {
		answers = []netip.Addr{t.Addr}
	} else {
		if class, bad := refusedName(t.Host); bad && !(p.opts.AllowLoopbackForTests && class == ClassLoopback) {
			return nil, refused(origin, class, "the name "+t.Host+" always means "+describeClass(class))
		}
		got, err := p.opts.Resolver.LookupNetIP(ctx, "ip", t.Host)
		if err != nil {
			if ctxErr := ctx.Err(); ctxErr != nil {
				return nil, errors.Join(refused(origin, "dns-failure", "the name lookup was cancelled"), ctxErr)
			}
			return nil, refused(origin, "dns-failure", "the name "+t.Host+" does not resolve; check the spelling")
		}
		answers = got
	}
	if len(answers) == 0 {
		return nil, refused(origin, "dns-failure", "the name "+t.Host+" resolved to no address")
	}
	out := make([]netip.Addr, 0, len(answers))
	var firstBad string
	good := 0
	for _, a := range answers {
		a = a.WithZone("").Unmap()
		ok, class := p.allowedAt(a, t.port())
		if !ok {
			if firstBad == "" {
				firstBad = class
			}
			continue
		}
		good++
		if !slices.Contains(out, a) {
			out = append(out, a)
		}
	}
	switch {
	case firstBad != "" && good > 0:
		return nil, refused(origin, "mixed-answer", "the name "+t.Host+" resolves to public and "+describeClass(firstBad)+" addresses")
	case firstBad != "":
		return nil, refused(origin, firstBad, "the name "+t.Host+" resolves to "+describeClass(firstBad))
	}
	return out, nil
}

// Verify is Check followed by Resolve: the normalised target and the
// addresses it may be dialled at.
func (p *Policy) Verify(ctx context.Context, rawURL string) (Target, []netip.Addr, error) {
	t, err := p.Check(rawURL)
	if err != nil {
		return Target{}, nil, err
	}
	addrs, err := p.Resolve(ctx, t)
	if err != nil {
		return Target{}, nil, err
	}
	return t, addrs, nil
}
