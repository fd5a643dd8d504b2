package mcpbind

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"crypto/subtle"
	"errors"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"
)

// The endpoint's connections are gated before the HTTP server (or, through
// the host, the relay) takes them, so that connections which never finish
// a request cannot keep a client with the token out (slowloris): a
// listener capped at N connections that waits for a place lets N idle
// connections of anyone who can connect hold every place, and one that
// does not cap runs out of file descriptors instead.
//
// A connection is pending until its first request head has arrived
// (HeadTimeout, MaxHeadBytes). Pending connections have places of their
// own (MaxPending); one more closes the oldest, so idle connections can
// delay nobody for longer than it takes to send a head. A head that
// carries the bearer token admits its connection to the places of the
// token's holders (the cap given to Gate); when those are all taken the
// new connection is answered 503 and closed, never queued. A head without
// the token goes on as well, uncounted, for the server to refuse and close
// (its 401 and 403 answers close the connection).
const (
	// HeadTimeout bounds the arrival of a connection's first request head.
	HeadTimeout = 10 * time.Second
	// MaxHeadBytes bounds a request head (the server's MaxHeaderBytes).
	MaxHeadBytes = 64 << 10
	// MaxPending is the number of connections waiting for their head.
	MaxPending = 64
	// ConnsPerRequest is the connections with the token admitted per
	// request the endpoint serves at once: a client keeps a POST
	// connection and a GET stream, and keep-alive connections sit idle
	// between requests.
	ConnsPerRequest = 4
)

// Gate wraps ln: Accept returns only connections whose first request head
// has arrived, at most admitted of them with the token open at once.
func Gate(ln net.Listener, token string, admitted int) net.Listener {
	g := &gate{Listener: ln, want: sha256.Sum256([]byte(token)), places: make(chan struct{}, max(admitted, 1)),
		ready: make(chan net.Conn), done: make(chan struct{})}
	go g.acceptLoop()
	return g
}

type gate struct {
	net.Listener
	want   [sha256.Size]byte
	places chan struct{}
	ready  chan net.Conn
	done   chan struct{}
	once   sync.Once
	err    error // Accept's error once the loop ended

	mu      sync.Mutex
	pending []net.Conn // oldest first
}

func (g *gate) Accept() (net.Conn, error) {
	select {
	case c := <-g.ready:
		return c, nil
	case <-g.done:
		if g.err != nil {
			return nil, g.err
		}
		return nil, net.ErrClosed
	}
}

func (g *gate) Close() error {
	err := g.Listener.Close()
	g.once.Do(func() { close(g.done) })
	g.mu.Lock()
	for _, c := range g.pending {
		c.Close()
	}
	g.pending = nil
	g.mu.Unlock()
	return err
}

// acceptLoop accepts without ever waiting for a place; an Accept error
// other than the listener's closing is waited out (5 ms, doubling, at most
// 1 s, as net/http does), never ending the loop with the port bound.
func (g *gate) acceptLoop() {
	var wait time.Duration
	for {
		c, err := g.Listener.Accept()
		if errors.Is(err, net.ErrClosed) {
			g.once.Do(func() { close(g.done) })
			return
		}
		if err != nil {
			wait = min(max(2*wait, 5*time.Millisecond), time.Second)
			select {
			case <-time.After(wait):
			case <-g.done:
				return
			}
			continue
		}
		wait = 0
		g.mu.Lock()
		g.pending = append(g.pending, c)
		if len(g.pending) > MaxPending {
			oldest := g.pending[0]
			g.pending = g.pending[1:]
			oldest.Close()
		}
		g.mu.Unlock()
		go g.admit(c)
	}
}

// leave takes c out of the pending connections; false when it was
// already closed (evicted, or the gate closed).
func (g *gate) leave(c net.Conn) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	for i, p := range g.pending {
		if p == c {
			g.pending = append(g.pending[:i], g.pending[i+1:]...)
			return true
		}
	}
	return false
}

func (g *gate) admit(c net.Conn) {
	_ = c.SetReadDeadline(time.Now().Add(HeadTimeout))
	head, err := readHead(c)
	if !g.leave(c) || err != nil {
		c.Close()
		return
	}
	_ = c.SetReadDeadline(time.Time{})
	conn := &headConn{Conn: c, r: io.MultiReader(bytes.NewReader(head), c)}
	if g.carriesToken(head) {
		select {
		case g.places <- struct{}{}:
			conn.release = func() { <-g.places }
		default:
			_, _ = io.WriteString(c, "HTTP/1.1 503 Service Unavailable\r\nConnection: close\r\nRetry-After: 1\r\n"+
				"Content-Type: text/plain; charset=utf-8\r\nContent-Length: "+strconv.Itoa(len(tooMany))+"\r\n\r\n"+tooMany)
			c.Close()
			return
		}
	}
	select {
	case g.ready <- conn:
	case <-g.done:
		conn.Close()
	}
}

const tooMany = "too many connections with the token are open; close some\n"

// readHead reads until the end of the first request head, whatever else
// arrived with it included.
func readHead(c net.Conn) ([]byte, error) {
	buf := make([]byte, 0, 4096)
	chunk := make([]byte, 4096)
	for {
		n, err := c.Read(chunk)
		buf = append(buf, chunk[:n]...)
		if bytes.Contains(buf, []byte("\r\n\r\n")) || bytes.Contains(buf, []byte("\n\n")) {
			return buf, nil
		}
		if len(buf) > MaxHeadBytes {
			return nil, errors.New("request head too large")
		}
		if err != nil {
			return nil, err
		}
	}
}

// carriesToken: the head parses as HTTP and its Authorization header is
// the Bearer token (the scheme's name case-insensitive, RFC 9110 §11.1),
// compared in constant time.
func (g *gate) carriesToken(head []byte) bool {
	req, err := http.ReadRequest(bufio.NewReader(bytes.NewReader(head)))
	if err != nil {
		return false
	}
	scheme, token, ok := strings.Cut(req.Header.Get("Authorization"), " ")
	got := sha256.Sum256([]byte(token))
	return subtle.ConstantTimeCompare(got[:], g.want[:]) == 1 && ok && strings.EqualFold(scheme, "Bearer")
}

// headConn replays the head the gate read, then reads the connection; its
// place is given back when it closes.
type headConn struct {
	net.Conn
	r       io.Reader
	once    sync.Once
	release func()
}

func (c *headConn) Read(p []byte) (int, error) { return c.r.Read(p) }

func (c *headConn) Close() error {
	err := c.Conn.Close()
	c.once.Do(func() {
		if c.release != nil {
			c.release()
		}
	})
	return err
}
