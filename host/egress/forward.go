package egress

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/netip"
	"sync/atomic"
	"time"
)

// hopHeaders are a proxy hop's own headers, never forwarded.
var hopHeaders = []string{"Connection", "Proxy-Connection", "Keep-Alive", "Proxy-Authenticate", "Proxy-Authorization", "Te", "Trailer", "Upgrade"}

type pinKey struct{}

// pin carries a request's verified addresses to the dialer, and the
// address it reached back.
type pin struct {
	addrs []netip.Addr
	port  uint16
	got   netip.AddrPort
}

// dialPinned is the transport's dialer: only the addresses the request
// was admitted at, never a new lookup of the name.
func (p *Proxy) dialPinned(ctx context.Context, _, _ string) (net.Conn, error) {
	pn, ok := ctx.Value(pinKey{}).(*pin)
	if !ok {
		return nil, errors.New("egress proxy: a dial without verified addresses")
	}
	c, ap, err := p.pol.DialPinned(ctx, pn.addrs, pn.port)
	pn.got = ap
	return c, err
}

// forward answers a plain request for an absolute http:// URL.
func (p *Proxy) forward(w http.ResponseWriter, r *http.Request) {
	ev := Event{Kind: "http", Method: r.Method, Start: time.Now()}
	u := r.URL
	if u == nil || u.Scheme != "http" || u.Host == "" {
		p.refuse(w, ev, http.StatusBadRequest, "the proxy takes CONNECT host:port and absolute http:// URLs only")
		return
	}
	ev.Host = u.Hostname()
	port, ok := splitPort(u.Port(), 80)
	if !ok {
		p.refuse(w, ev, http.StatusBadRequest, "the URL's port must be between 1 and 65535")
		return
	}
	ev.Port = port
	if u.User != nil {
		p.refuse(w, ev, http.StatusForbidden, "URLs with embedded credentials (userinfo) are not allowed")
		return
	}
	if p.cfg.Limited && r.Method != http.MethodGet && r.Method != http.MethodHead {
		p.refuse(w, ev, http.StatusForbidden, "limited network mode allows only GET and HEAD, not "+r.Method)
		return
	}
	t, err := p.admit(r.Context(), ev.Host, port)
	if err != nil {
		p.refuse(w, ev, http.StatusForbidden, err.Error())
		return
	}
	ev.Host = t.host
	pn := &pin{addrs: t.addrs, port: port}
	out := r.Clone(context.WithValue(r.Context(), pinKey{}, pn))
	out.RequestURI = ""
	for _, h := range hopHeaders {
		out.Header.Del(h)
	}
	var sent, recv atomic.Int64
	if r.Body != nil && r.Body != http.NoBody {
		out.Body = &countingReader{r: r.Body, n: &sent}
	}
	resp, err := p.tr.RoundTrip(out)
	if pn.got.IsValid() {
		ev.Addr, ev.Allowance = pn.got.String(), p.pol.PrivateAllowance(pn.got.Addr(), port)
	}
	if err != nil {
		ev.Sent = sent.Load()
		p.refuse(w, ev, http.StatusBadGateway, "cannot reach "+t.host+": "+err.Error())
		return
	}
	defer resp.Body.Close()
	for _, h := range hopHeaders {
		resp.Header.Del(h)
	}
	for k, vs := range resp.Header {
		w.Header()[k] = vs
	}
	w.WriteHeader(resp.StatusCode)
	n, copyErr := io.Copy(w, resp.Body)
	recv.Add(n)
	ev.Sent, ev.Recv, ev.Verdict, ev.Status = sent.Load(), recv.Load(), "allowed", resp.StatusCode
	if copyErr != nil {
		ev.Reason = "ended by an error: " + copyErr.Error()
	}
	p.report(ev)
}

type countingReader struct {
	r io.ReadCloser
	n *atomic.Int64
}

func (c *countingReader) Read(b []byte) (int, error) {
	n, err := c.r.Read(b)
	c.n.Add(int64(n))
	return n, err
}

func (c *countingReader) Close() error { return c.r.Close() }
