package netpolicy

import (
	"context"
	"errors"
	"net"
	"net/netip"
	"strconv"
)

// VerifyHostPort is Verify for a bare host and port, as a proxy's CONNECT
// names them: the host is read as a URL's host would be (every numeric
// and Unicode spelling normalised, refused names and classes refused) and
// resolved under the same rules. The target's scheme is http; only its
// host and port matter.
func (p *Policy) VerifyHostPort(ctx context.Context, host string, port uint16) (Target, []netip.Addr, error) {
	if port == 0 {
		return Target{}, nil, refused("<"+host+">", "invalid-url", "the port must be between 1 and 65535")
	}
	h := host
	if a, err := netip.ParseAddr(host); err == nil && a.Is6() {
		h = "[" + host + "]"
	}
	return p.Verify(ctx, "http://"+h+":"+strconv.Itoa(int(port))+"/")
}

// DialPinned connects to one of addrs (what Resolve or Verify returned for
// a target) at port, checking each address again before it dials, and
// returns the connection and the address it reached. It never resolves a
// name: a connection can only reach an answer the policy checked, so a
// resolver that answers differently later cannot rebind it.
func (p *Policy) DialPinned(ctx context.Context, addrs []netip.Addr, port uint16) (net.Conn, netip.AddrPort, error) {
	d := &net.Dialer{Timeout: p.opts.DialTimeout}
	var errs []error
	for _, a := range addrs {
		if ok, class := p.allowedAt(a, port); !ok {
			errs = append(errs, refused(a.String(), class, "the address is "+describeClass(class)))
			continue
		}
		ap := netip.AddrPortFrom(a, port)
		conn, err := d.DialContext(ctx, "tcp", ap.String())
		if err == nil {
			return conn, ap, nil
		}
		errs = append(errs, err)
		if ctx.Err() != nil {
			break
		}
	}
	if len(errs) == 0 {
		return nil, netip.AddrPort{}, refused("<no address>", "unverified", "no verified address to connect to")
	}
	return nil, netip.AddrPort{}, errors.Join(errs...)
}

// PrivateAllowance is the operator's address:port that let addr:port
// through although its class is refused, or "" when addr is allowed on
// its own (for audit records).
func (p *Policy) PrivateAllowance(addr netip.Addr, port uint16) string {
	if bad, _ := Classify(addr); bad && p.privateAllowed(addr, port) {
		return netip.AddrPortFrom(addr, port).String()
	}
	return ""
}
