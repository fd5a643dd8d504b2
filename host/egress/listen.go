package egress

import (
	"net"
	"sync"
	"time"
)

// One socket serves both protocols: a SOCKS client's first byte is its
// version (5, or 4 for the refused SOCKS4), which no HTTP request line
// starts with, so the command needs one forwarded port for both
// HTTP_PROXY and ALL_PROXY=socks5h://.

// serve accepts connections and hands each to SOCKS or to the HTTP
// server by its first byte, until the socket closes.
func (p *Proxy) serve() {
	defer p.httpLn.Close()
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return
		}
		go p.route(c)
	}
}

func (p *Proxy) route(c net.Conn) {
	p.active.Add(1)
	defer p.active.Done()
	// Tracked until the HTTP server takes it, so Close ends a silent one.
	if !p.track(c) {
		c.Close()
		return
	}
	_ = c.SetReadDeadline(time.Now().Add(negotiationTimeout))
	var b [1]byte
	if n, _ := c.Read(b[:]); n == 0 {
		p.untrack(c)
		return
	}
	switch b[0] {
	case 5:
		defer p.untrack(c)
		p.socks5(c)
	case 4:
		defer p.untrack(c)
		p.socks4(c)
	default:
		p.forget(c)
		_ = c.SetReadDeadline(time.Time{})
		p.httpLn.give(&prefixedConn{Conn: c, pre: b[:]})
	}
}

// prefixedConn gives back the byte read to route it before the rest.
type prefixedConn struct {
	net.Conn
	pre []byte
}

func (c *prefixedConn) Read(b []byte) (int, error) {
	if len(c.pre) > 0 {
		n := copy(b, c.pre)
		c.pre = c.pre[n:]
		return n, nil
	}
	return c.Conn.Read(b)
}

// CloseWrite keeps a tunnel's half-close (the socket's own).
func (c *prefixedConn) CloseWrite() error {
	if cw, ok := c.Conn.(interface{ CloseWrite() error }); ok {
		return cw.CloseWrite()
	}
	return c.Conn.Close()
}

// handoff is the HTTP server's listener: the connections route gives it.
type handoff struct {
	addr net.Addr
	ch   chan net.Conn
	done chan struct{}
	once sync.Once
}

func newHandoff(addr net.Addr) *handoff {
	return &handoff{addr: addr, ch: make(chan net.Conn), done: make(chan struct{})}
}

func (h *handoff) give(c net.Conn) {
	select {
	case h.ch <- c:
	case <-h.done:
		c.Close()
	}
}

func (h *handoff) Accept() (net.Conn, error) {
	select {
	case c := <-h.ch:
		return c, nil
	case <-h.done:
		return nil, net.ErrClosed
	}
}

func (h *handoff) Close() error {
	h.once.Do(func() { close(h.done) })
	return nil
}

func (h *handoff) Addr() net.Addr { return h.addr }
