package egress

import (
	"fmt"
	"io"
	"net/http"
	"net/netip"
	"strings"
	"sync/atomic"
	"time"

	"golang.org/x/net/http/httpguts"
)

// hopHeaders are a proxy hop's own headers, never forwarded.
var hopHeaders = []string{"Connection", "Proxy-Connection", "Keep-Alive", "Proxy-Authenticate", "Proxy-Authorization", "Te", "Trailer", "Upgrade"}

// pin is a request's verified addresses, and the address it reached.
type pin struct {
	addrs []netip.Addr
	port  uint16
	got   netip.AddrPort
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
	upgrade := upgradeType(r.Header)
	if upgrade != "" && p.cfg.Limited {
		p.refuse(w, ev, http.StatusForbidden, "limited network mode allows only GET and HEAD; an upgraded connection ("+upgrade+") carries what the proxy cannot see, so it is refused")
		return
	}
	t, err := p.admit(r.Context(), ev.Host, port)
	if err != nil {
		p.refuse(w, ev, http.StatusForbidden, err.Error())
		return
	}
	ev.Host = t.host
	pn := &pin{addrs: t.addrs, port: port}
	out := r.Clone(r.Context())
	out.RequestURI = ""
	for _, h := range hopHeaders {
		out.Header.Del(h)
	}
	if upgrade != "" {
		// The one hop-by-hop request the proxy passes on: a protocol
		// switch (WebSocket over plain http), judged like any request.
		out.Header.Set("Connection", "Upgrade")
		out.Header.Set("Upgrade", upgrade)
	}
	var sent, recv atomic.Int64
	if r.Body != nil && r.Body != http.NoBody {
		out.Body = &countingReader{r: r.Body, n: &sent}
	}
	resp, br, up, end, err := p.exchange(out.Context(), out, pn)
	if pn.got.IsValid() {
		ev.Addr, ev.Allowance = pn.got.String(), p.pol.PrivateAllowance(pn.got.Addr(), port)
	}
	if err != nil {
		ev.Sent = sent.Load()
		p.refuse(w, ev, http.StatusBadGateway, "cannot reach "+t.host+": "+err.Error())
		return
	}
	defer end() // the switched connection; end may run twice
	if resp.StatusCode == http.StatusSwitchingProtocols {
		p.switchProtocols(w, ev, upgrade, resp, &sent)
		return
	}
	for _, h := range hopHeaders {
		resp.Header.Del(h)
	}
	for k, vs := range resp.Header {
		w.Header()[k] = vs
	}
	w.WriteHeader(resp.StatusCode)
	var n int64
	var copyErr error
	if resp.ContentLength > 0 && len(resp.TransferEncoding) == 0 && resp.Body != http.NoBody && r.Method != http.MethodHead {
		n, copyErr = copyBody(w, br, up, resp.ContentLength)
	} else {
		n, copyErr = io.Copy(w, resp.Body)
	}
	recv.Add(n)
	// The request's writer may still be reading the upload (a server
	// that answered early): end stops and awaits it, so Sent is whole.
	end()
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

// upgradeType is the protocol a request asks to switch to (Connection:
// Upgrade with an Upgrade header), or "".
func upgradeType(h http.Header) string {
	if !httpguts.HeaderValuesContainsToken(h["Connection"], "Upgrade") {
		return ""
	}
	return h.Get("Upgrade")
}

// switchProtocols completes an upgrade the server accepted (101): the
// answer goes back to the client, then bytes both ways, counted, until
// both ends close. A server that switches to another protocol than the
// one asked for, or unasked, is refused.
func (p *Proxy) switchProtocols(w http.ResponseWriter, ev Event, asked string, resp *http.Response, sent *atomic.Int64) {
	ev.Status = resp.StatusCode
	got := upgradeType(resp.Header)
	up, ok := resp.Body.(io.ReadWriteCloser)
	if asked == "" || !strings.EqualFold(got, asked) || !ok {
		ev.Sent = sent.Load()
		p.refuse(w, ev, http.StatusBadGateway, fmt.Sprintf("the server switched protocols to %q, asked %q", got, asked))
		return
	}
	hj, ok := w.(http.Hijacker)
	if !ok {
		p.refuse(w, ev, http.StatusInternalServerError, "the proxy cannot take over this connection")
		return
	}
	client, buf, err := hj.Hijack()
	if err != nil {
		ev.Verdict, ev.Reason = "failed", err.Error()
		p.report(ev)
		return
	}
	if !p.track(client) {
		client.Close()
		return
	}
	defer p.untrack(client)
	for _, h := range hopHeaders {
		resp.Header.Del(h)
	}
	resp.Header.Set("Connection", "Upgrade")
	resp.Header.Set("Upgrade", got)
	resp.Body = nil // the head only; the body is the switched connection
	if err := resp.Write(buf); err == nil {
		err = buf.Flush()
	}
	var pre []byte
	if n := buf.Reader.Buffered(); n > 0 {
		pre, _ = buf.Reader.Peek(n)
	}
	s, rcv, copyErr := splice(client, up, pre)
	ev.Sent, ev.Recv, ev.Verdict = sent.Load()+s, rcv, "allowed"
	if copyErr != nil {
		ev.Reason = "ended by an error: " + copyErr.Error()
	}
	p.report(ev)
}
