package egress

import (
	"fmt"
	"io"
	"net"
	"os"
	"sync"
	"syscall"
	"time"
)

// One socket serves both protocols: a SOCKS client's first byte is its
// version (5, or 4 for the refused SOCKS4), which no HTTP request line
// starts with, so the command needs one port for both HTTP_PROXY and
// ALL_PROXY=socks5h://. A zero byte carrying a descriptor is a sandbox
// helper handing over the listener it made inside a command's network
// namespace: the proxy then accepts that command's connections on it
// and routes them the same way.

// serve accepts connections and hands each to SOCKS or to the HTTP
// server by its first byte, until the socket closes.
func (p *Proxy) serve() {
	defer p.httpLn.Close()
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return
		}
		p.accepted(c)
	}
}

// accepted serves c if the proxy has a place for it (maxConns), or
// closes it and audits the refusal.
func (p *Proxy) accepted(c net.Conn) {
	select {
	case p.conns <- struct{}{}:
	default:
		c.Close()
		p.active.Add(1)
		p.report(Event{Kind: "connection", Start: time.Now(), Verdict: "refused",
			Reason: fmt.Sprintf("too many connections: at most %d at once through this proxy", maxConns)})
		p.active.Done()
		return
	}
	var once sync.Once
	release := func() { once.Do(func() { <-p.conns }) }
	p.active.Add(1)
	go p.route(c, release)
}

// route serves one accepted connection and calls release when it ends
// (or hands release on with it); its caller has added it to active
// (before the goroutine starts, so that Close's Wait never races an Add
// from zero).
func (p *Proxy) route(c net.Conn, release func()) {
	defer p.active.Done()
	defer func() {
		if release != nil {
			release()
		}
	}()
	// Tracked until the HTTP server takes it, so Close ends a silent one.
	if !p.track(c) {
		c.Close()
		return
	}
	_ = c.SetReadDeadline(time.Now().Add(p.headerTimeout()))
	b, fds := firstByte(c)
	if b < 0 {
		p.untrack(c)
		return
	}
	if b == 0 && len(fds) == 1 {
		// A sandbox helper's hand-over: it lives as long as the
		// command and is not one of its connections.
		release()
		defer p.untrack(c)
		p.adopt(c, fds[0])
		return
	}
	closeAll(fds)
	switch b {
	case 5:
		defer p.untrack(c)
		p.socks5(c)
	case 4:
		defer p.untrack(c)
		p.socks4(c)
	default:
		p.forget(c)
		_ = c.SetReadDeadline(time.Time{})
		// The HTTP server (or a handler that takes the connection
		// over) closes it, and that gives its place back.
		pc := &prefixedConn{Conn: c, pre: []byte{byte(b)}, release: release}
		release = nil
		p.httpLn.give(pc)
	}
}

// firstByte reads a connection's first byte (-1 at its end), with the
// descriptors that came with it on the unix socket.
func firstByte(c net.Conn) (int, []int) {
	var b [1]byte
	uc, ok := c.(*net.UnixConn)
	if !ok {
		if n, _ := c.Read(b[:]); n == 0 {
			return -1, nil
		}
		return int(b[0]), nil
	}
	oob := make([]byte, syscall.CmsgSpace(4*maxPassedFDs))
	n, oobn, _, _, _ := uc.ReadMsgUnix(b[:], oob)
	var fds []int
	if msgs, err := syscall.ParseSocketControlMessage(oob[:oobn]); err == nil {
		for _, m := range msgs {
			if r, err := syscall.ParseUnixRights(&m); err == nil {
				fds = append(fds, r...)
			}
		}
	}
	if n == 0 {
		closeAll(fds)
		return -1, nil
	}
	return int(b[0]), fds
}

// maxPassedFDs bounds what one message may carry; a sandbox helper sends
// one listener.
const maxPassedFDs = 4

func closeAll(fds []int) {
	for _, fd := range fds {
		syscall.Close(fd)
	}
}

// adopt takes a listener a sandbox helper made inside a command's
// network namespace (fd, passed over c) and accepts the command's
// connections on it directly, until c ends (the helper is gone) or the
// proxy closes. Anything but a listening TCP socket is refused.
func (p *Proxy) adopt(c net.Conn, fd int) {
	if v, err := syscall.GetsockoptInt(fd, syscall.SOL_SOCKET, syscall.SO_ACCEPTCONN); err != nil || v != 1 {
		syscall.Close(fd)
		return
	}
	f := os.NewFile(uintptr(fd), "namespace-listener")
	ln, err := net.FileListener(f)
	f.Close()
	if err != nil {
		return
	}
	tl, ok := ln.(*net.TCPListener)
	if !ok || !p.trackListener(tl) {
		ln.Close()
		return
	}
	defer p.untrackListener(tl)
	if _, err := c.Write([]byte{0}); err != nil {
		return
	}
	go func() {
		for {
			conn, err := tl.Accept()
			if err != nil {
				return
			}
			p.accepted(conn)
		}
	}()
	// The helper keeps c open while it lives.
	_ = c.SetReadDeadline(time.Time{})
	_, _ = io.Copy(io.Discard, c)
}

// prefixedConn gives back the byte read to route it before the rest.
type prefixedConn struct {
	net.Conn
	pre     []byte
	release func() // gives the connection's place back (once)
}

// Close closes the connection and gives its place back.
func (c *prefixedConn) Close() error {
	err := c.Conn.Close()
	c.release()
	return err
}

func (c *prefixedConn) Read(b []byte) (int, error) {
	if len(c.pre) > 0 {
		n := copy(b, c.pre)
		c.pre = c.pre[n:]
		return n, nil
	}
	return c.Conn.Read(b)
}

// ReadFrom lets the http server's response bodies reach the socket's own
// ReadFrom, so a body read from an upstream TCP socket moves by splice(2)
// (net/http looks for io.ReaderFrom on the connection it serves).
func (c *prefixedConn) ReadFrom(r io.Reader) (int64, error) {
	if rf, ok := c.Conn.(io.ReaderFrom); ok {
		return rf.ReadFrom(r)
	}
	return io.Copy(struct{ io.Writer }{c.Conn}, r)
}

// bare is the socket under c once its routing byte has been read again,
// so that copies between two TCP sockets can use splice(2).
func bare(c net.Conn) net.Conn {
	if pc, ok := c.(*prefixedConn); ok && len(pc.pre) == 0 {
		return pc.Conn
	}
	return c
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
