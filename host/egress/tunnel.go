package egress

import (
	"io"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"time"
)

// tunnel answers CONNECT host:port: allowlists and URL policy, a dial to
// the verified address only, then bytes both ways, counted. What passes
// inside a tunnel (usually TLS) is not seen: its method, path and the
// name the TLS handshake asks for are the client's, so limited mode
// refuses every tunnel.
func (p *Proxy) tunnel(w http.ResponseWriter, r *http.Request) {
	ev := Event{Kind: "connect", Method: http.MethodConnect, Start: time.Now()}
	host, portStr, err := net.SplitHostPort(r.Host)
	if err != nil || host == "" {
		ev.Host = r.Host
		p.refuse(w, ev, http.StatusBadRequest, "CONNECT needs host:port")
		return
	}
	ev.Host = host
	port, ok := splitPort(portStr, 0)
	if !ok {
		p.refuse(w, ev, http.StatusBadRequest, "CONNECT needs a port between 1 and 65535")
		return
	}
	ev.Port = port
	if p.cfg.Limited {
		p.refuse(w, ev, http.StatusForbidden, "limited network mode allows only GET and HEAD over plain http; a CONNECT tunnel (https) hides its method from the proxy, so it is refused")
		return
	}
	t, err := p.admit(r.Context(), host, port)
	if err != nil {
		p.refuse(w, ev, http.StatusForbidden, err.Error())
		return
	}
	ev.Host = t.host
	up, ap, err := p.pol.DialPinned(r.Context(), t.addrs, port)
	if err != nil {
		p.refuse(w, ev, http.StatusBadGateway, "cannot connect to "+t.host+": "+err.Error())
		return
	}
	ev.Addr, ev.Allowance = ap.String(), p.pol.PrivateAllowance(ap.Addr(), port)
	hj, ok := w.(http.Hijacker)
	if !ok {
		up.Close()
		p.refuse(w, ev, http.StatusInternalServerError, "the proxy cannot take over this connection")
		return
	}
	client, buf, err := hj.Hijack()
	if err != nil {
		up.Close()
		ev.Verdict, ev.Reason = "failed", err.Error()
		p.report(ev)
		return
	}
	if !p.track(client, up) {
		client.Close()
		up.Close()
		return
	}
	defer p.untrack(client, up)
	if _, err := client.Write([]byte("HTTP/1.1 200 Connection established\r\n\r\n")); err != nil {
		ev.Verdict, ev.Reason = "failed", err.Error()
		p.report(ev)
		return
	}
	var pre []byte
	// Bytes the client sent after its request line, already buffered.
	if n := buf.Reader.Buffered(); n > 0 {
		pre, _ = buf.Reader.Peek(n)
	}
	var copyErr error
	ev.Sent, ev.Recv, copyErr = splice(client, up, pre)
	ev.Verdict = "allowed"
	if copyErr != nil {
		ev.Reason = "ended by an error: " + copyErr.Error()
	}
	p.report(ev)
}

// splice carries bytes both ways between a command's connection and its
// upstream, after first sending pre upstream, until both directions end;
// it counts each way. The error is the upstream-to-client copy's.
func splice(client net.Conn, up io.ReadWriteCloser, pre []byte) (sent, recv int64, err error) {
	var s atomic.Int64
	client = bare(client)
	if len(pre) > 0 {
		m, _ := up.Write(pre)
		s.Add(int64(m))
	}
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		n, _ := io.Copy(up, client)
		s.Add(n)
		closeWrite(up)
	}()
	recv, err = io.Copy(client, up)
	closeWrite(client)
	wg.Wait()
	return s.Load(), recv, err
}

func closeWrite(c io.Closer) {
	if cw, ok := c.(interface{ CloseWrite() error }); ok {
		_ = cw.CloseWrite()
		return
	}
	c.Close()
}

// track registers a tunnel's two connections so Close can end them; it
// refuses once the proxy is closed.
func (p *Proxy) track(cs ...net.Conn) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return false
	}
	for _, c := range cs {
		p.tunnels[c] = struct{}{}
	}
	return true
}

// trackListener registers a listener handed over by a sandbox helper,
// so Close ends it; it refuses once the proxy is closed or holds too many.
func (p *Proxy) trackListener(l *net.TCPListener) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed || len(p.listeners) >= maxListeners {
		return false
	}
	p.listeners[l] = struct{}{}
	return true
}

func (p *Proxy) untrackListener(l *net.TCPListener) {
	p.mu.Lock()
	defer p.mu.Unlock()
	delete(p.listeners, l)
	l.Close()
}

// maxListeners bounds the namespaces one proxy serves at once (a call
// has one command; a test fixture runs several).
const maxListeners = 64

// forget stops tracking c without closing it (another owner took it).
func (p *Proxy) forget(c net.Conn) {
	p.mu.Lock()
	defer p.mu.Unlock()
	delete(p.tunnels, c)
}

func (p *Proxy) untrack(cs ...net.Conn) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, c := range cs {
		delete(p.tunnels, c)
		c.Close()
	}
}
