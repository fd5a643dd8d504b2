package netpolicy

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/netip"
	"strconv"
	"time"
)

// verifiedKey carries the addresses one request was verified at from
// RoundTrip to the dialer.
type verifiedKey struct{}

type verified struct {
	hostPort string
	addrs    []netip.Addr
}

// crossOriginHeaders are the only request headers kept when a redirect
// leaves the first request's origin: anything else may be a credential
// (Authorization, Cookie, X-Api-Key, session headers).
var crossOriginHeaders = []string{"Accept", "Accept-Language", "Accept-Encoding", "User-Agent", "Cache-Control"}

// Client returns an http.Client that checks every request and redirect
// hop with this policy and connects only to verified addresses. It uses
// no proxy. Its Timeout is zero: bound calls with their context.
func (p *Policy) Client() *http.Client {
	return &http.Client{Transport: p.Transport(), CheckRedirect: p.checkRedirect}
}

// Transport returns the checking, pinning round tripper of Client, for
// callers that build their own http.Client (keep CheckRedirect as strict
// as Client's: the transport re-checks each hop either way).
func (p *Policy) Transport() http.RoundTripper {
	dialer := &net.Dialer{Timeout: p.opts.DialTimeout, KeepAlive: 30 * time.Second}
	inner := &http.Transport{
		Proxy: nil, // never an ambient proxy
		DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
			return p.dialVerified(ctx, dialer, network, addr)
		},
		TLSHandshakeTimeout:   10 * time.Second,
		IdleConnTimeout:       90 * time.Second,
		MaxIdleConnsPerHost:   4,
		ExpectContinueTimeout: time.Second,
	}
	if p.opts.TLSClientConfig != nil {
		inner.TLSClientConfig = p.opts.TLSClientConfig.Clone()
		// Empty: net/http sets it per connection from the URL's host.
		inner.TLSClientConfig.ServerName = ""
	}
	return &guard{p: p, inner: inner}
}

type guard struct {
	p     *Policy
	inner *http.Transport
}

// RoundTrip verifies req's URL (normalised host, resolved addresses), reports
// the decision, and sends req through the pinned transport with the
// normalised host. Userinfo is refused here too: net/http would otherwise
// have turned it into an Authorization header.
func (g *guard) RoundTrip(req *http.Request) (*http.Response, error) {
	phase := "request"
	if req.Response != nil {
		phase = "redirect"
	}
	fail := func(err error) (*http.Response, error) {
		if req.Body != nil {
			req.Body.Close()
		}
		return nil, err
	}
	if req.URL == nil {
		return fail(refused("<no url>", "invalid-url", "the request has no URL"))
	}
	if req.URL.User != nil {
		origin := OriginSummary(req.URL.String())
		g.p.report(Decision{Phase: phase, Origin: origin, Class: "userinfo", Reason: "URL credentials are not allowed"})
		return fail(refused(origin, "userinfo", "URLs with embedded credentials (userinfo) are not allowed; pass credentials another way"))
	}
	t, addrs, err := g.p.Verify(req.Context(), req.URL.String())
	if err != nil {
		d := Decision{Phase: phase, Origin: OriginSummary(req.URL.String()), Class: "invalid-url", Reason: err.Error()}
		var re *RefusedError
		if errors.As(err, &re) {
			d.Class, d.Reason = re.Class, re.Reason
		}
		g.p.report(d)
		return fail(err)
	}
	d := Decision{Phase: phase, Origin: t.Origin(), Allowed: true, Class: ClassPublic, Addrs: addrs}
	for _, a := range addrs {
		if bad, class := Classify(a); bad && g.p.privateAllowed(a, t.port()) {
			d.Class, d.Private = class, netip.AddrPortFrom(a, t.port()).String()
		}
	}
	g.p.report(d)
	ctx := context.WithValue(req.Context(), verifiedKey{}, &verified{hostPort: t.HostPort(), addrs: addrs})
	out := req.Clone(ctx)
	out.URL.Host = t.hostPort(false)
	out.URL.User = nil
	return g.inner.RoundTrip(out)
}

// CloseIdleConnections lets http.Client.CloseIdleConnections reach the
// pinned transport.
func (g *guard) CloseIdleConnections() { g.inner.CloseIdleConnections() }

func (p *Policy) report(d Decision) {
	if p.opts.OnDecision != nil {
		p.opts.OnDecision(d)
	}
}

// dialVerified connects to one of the addresses RoundTrip verified for
// addr. A dial without them (a transport used outside RoundTrip) or for a
// different host:port is refused rather than resolved again unchecked.
func (p *Policy) dialVerified(ctx context.Context, d *net.Dialer, network, addr string) (net.Conn, error) {
	v, ok := ctx.Value(verifiedKey{}).(*verified)
	if !ok || v.hostPort != addr {
		return nil, refused("<"+addr+">", "unverified", "the connection target was not verified by the network policy")
	}
	_, portStr, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, refused("<"+addr+">", "invalid-host", "the connection target has no port")
	}
	port, err := strconv.ParseUint(portStr, 10, 16)
	if err != nil {
		return nil, refused("<"+addr+">", "invalid-host", "the connection target has an invalid port")
	}
	var errs []error
	for _, a := range v.addrs {
		if ok, class := p.allowedAt(a, uint16(port)); !ok {
			errs = append(errs, refused(a.String(), class, "the address is "+describeClass(class)))
			continue
		}
		conn, err := d.DialContext(ctx, network, netip.AddrPortFrom(a, uint16(port)).String())
		if err == nil {
			return conn, nil
		}
		errs = append(errs, err)
		if ctx.Err() != nil {
			break
		}
	}
	return nil, errors.Join(errs...)
}

// checkRedirect bounds the redirect chain, refuses loops and https → http
// downgrades, checks the new URL, drops Referer (it carries the previous
// path and query) and, when the hop leaves the first origin, every header
// that could be a credential.
func (p *Policy) checkRedirect(req *http.Request, via []*http.Request) error {
	err := p.redirectVerdict(req, via)
	if err != nil {
		// A hop refused here never reaches RoundTrip: report it too, so
		// that every hop of a chain is auditable.
		d := Decision{Phase: "redirect", Origin: OriginSummary(req.URL.String()), Class: "invalid-url", Reason: err.Error()}
		var re *RefusedError
		if errors.As(err, &re) {
			d.Class, d.Reason = re.Class, re.Reason
		}
		p.report(d)
	}
	return err
}

func (p *Policy) redirectVerdict(req *http.Request, via []*http.Request) error {
	origin := OriginSummary(req.URL.String())
	if p.opts.MaxRedirects < 0 || len(via) > p.opts.MaxRedirects {
		return refused(origin, "redirect", "stopped after "+strconv.Itoa(len(via))+" redirects")
	}
	prev := via[len(via)-1]
	if prev.URL.Scheme == "https" && req.URL.Scheme != "https" {
		return refused(origin, "redirect", "a redirect from https to http is not followed")
	}
	t, err := p.Check(req.URL.String())
	if err != nil {
		return err
	}
	next := t.URL()
	for _, r := range via {
		if seen, err := Parse(r.URL.String()); err == nil && seen.URL() == next {
			return refused(origin, "redirect-loop", "the redirects loop back to a URL already visited")
		}
	}
	req.Header.Del("Referer")
	first, err := Parse(via[0].URL.String())
	if err != nil || first.Origin() != t.Origin() {
		kept := http.Header{}
		for _, k := range crossOriginHeaders {
			if v := req.Header.Values(k); len(v) > 0 {
				kept[k] = v
			}
		}
		req.Header = kept
	}
	return nil
}
