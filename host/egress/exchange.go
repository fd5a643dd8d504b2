package egress

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
)

// exchange is one plain request on its own new connection, dialled only
// at the request's verified addresses (pn): the request goes out, the
// answer's head comes back. The proxy does this itself rather than
// through http.Transport so that a body of known length can be carried
// from the upstream socket to the command's by splice(2), without a copy
// through this process (BENCHMARKS §31.2); Transport reads every byte
// through its own buffer. Unless it fails, the caller must call end
// when done with the answer (it closes up).
func (p *Proxy) exchange(ctx context.Context, out *http.Request, pn *pin) (resp *http.Response, br *bufio.Reader, up net.Conn, end func(), err error) {
	conn, got, err := p.pol.DialPinned(ctx, pn.addrs, pn.port)
	pn.got = got
	if err != nil {
		return nil, nil, nil, nil, err
	}
	// The command going away (or the proxy closing) cancels ctx and
	// ends the exchange, its body included. The hooks hold conn and
	// finish, not the named results up and end, which a failing return
	// sets to nil before the deferred cleanup and while a hook may still
	// run.
	stop := context.AfterFunc(ctx, func() { conn.Close() })
	wrote := make(chan struct{})
	// end waits for the request's writer too: the http server must not
	// read the command's next request while it still reads this body
	// (the closed socket fails its next write; a command that stalls its
	// upload is ended by its own hang-up or the proxy's Close).
	finish := func() { stop(); conn.Close(); <-wrote }
	defer func() {
		if err != nil {
			finish()
		}
	}()
	// One request per connection: each is checked and pinned anew (a
	// protocol switch keeps its own Connection: Upgrade, as Transport does).
	out.Close = upgradeType(out.Header) == ""
	// The request is written while the answer is read: a server may
	// answer before it has read the whole body.
	go func() {
		defer close(wrote)
		if werr := out.Write(conn); werr != nil {
			closeWrite(conn)
		}
	}()
	// A head is bounded as Transport bounds it (MaxResponseHeaderBytes'
	// default): an upstream the command chose must not grow the host's
	// memory without end. The body after it is not.
	head := &headLimit{r: conn}
	br = bufio.NewReaderSize(head, 64<<10)
	for {
		head.n = maxHeadBytes
		resp, err = http.ReadResponse(br, out)
		if err != nil {
			if head.n <= 0 {
				err = fmt.Errorf("the server's response head exceeded %d bytes", maxHeadBytes)
			}
			return nil, nil, nil, nil, err
		}
		// Informational answers (100 Continue) are the server's to the
		// proxy; the command gets the final one, as through Transport.
		if resp.StatusCode >= 200 || resp.StatusCode == http.StatusSwitchingProtocols {
			break
		}
	}
	head.n = math.MaxInt64
	if resp.StatusCode == http.StatusSwitchingProtocols {
		// The switched connection: what is buffered, then the socket.
		resp.Body = switched{Reader: io.MultiReader(br, conn), conn: conn}
	}
	return resp, br, conn, finish, nil
}

// maxHeadBytes bounds one response head, as http.Transport's default.
const maxHeadBytes = 10 << 20

// headLimit reads from r until n bytes are used up, then fails.
type headLimit struct {
	r io.Reader
	n int64
}

func (h *headLimit) Read(b []byte) (int, error) {
	if h.n <= 0 {
		return 0, errors.New("response head too large")
	}
	if int64(len(b)) > h.n {
		b = b[:h.n]
	}
	n, err := h.r.Read(b)
	h.n -= int64(n)
	return n, err
}

// switched is an upgraded connection's both directions.
type switched struct {
	io.Reader
	conn net.Conn
}

func (s switched) Write(b []byte) (int, error) { return s.conn.Write(b) }
func (s switched) Close() error                { return s.conn.Close() }
func (s switched) CloseWrite() error           { return closeWriteErr(s.conn) }

func closeWriteErr(c net.Conn) error {
	if cw, ok := c.(interface{ CloseWrite() error }); ok {
		return cw.CloseWrite()
	}
	return c.Close()
}

// copyBody carries a response body of n bytes to the command: first what
// the head's reader already holds, then straight from the upstream
// socket, which the command's connection takes by splice(2) when both
// are TCP sockets (the http server's ReadFrom reaches the connection's).
func copyBody(w io.Writer, br *bufio.Reader, up net.Conn, n int64) (int64, error) {
	got, err := io.CopyN(w, br, min(int64(br.Buffered()), n))
	if err != nil {
		return got, err
	}
	m, err := io.Copy(w, &io.LimitedReader{R: up, N: n - got})
	got += m
	if err == nil && got < n {
		err = io.ErrUnexpectedEOF
	}
	return got, err
}
