package hostd

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"net"
	"net/netip"
	"sync"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"demiurge.dev/host/mcpserve"
	"demiurge.dev/shared/hostv1"
)

// ServeMCPHTTP serves one `demiurge mcp serve --http` front end inside
// the host. The front end owns the TCP listener (its address, its
// lifetime) and hands each accepted connection over MCPHTTPConn; the
// host serves them all on one endpoint, so the client's MCP session, its
// approvals (elicitation) and its calls live here, under the principal
// the first message names, beside every other front end of this state.
// The endpoint ends when this stream does.
func (s *Server) ServeMCPHTTP(stream hostv1.Host_ServeMCPHTTPServer) error {
	first, err := stream.Recv()
	if err != nil {
		return err
	}
	ctx, cancel := context.WithCancel(stream.Context())
	defer cancel()
	srv, err := mcpserve.New(ctx, mcpserve.Options{
		Host: s.h, Version: s.opts.Version, Principal: s.principal(first.Principal),
		MaxRequestBytes: int(first.MaxRequestBytes), Approve: append([]string{}, first.Approve...),
	})
	if err != nil {
		return status.Errorf(codes.Internal, "mcp serve --http: %v", err)
	}
	var idb [16]byte
	if _, err := rand.Read(idb[:]); err != nil {
		return status.Errorf(codes.Internal, "mcp serve --http: %v", err)
	}
	id := hex.EncodeToString(idb[:])
	ln := newConnListener()
	s.mu.Lock()
	if s.endpoints == nil {
		s.endpoints = map[string]*connListener{}
	}
	s.endpoints[id] = ln
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		delete(s.endpoints, id)
		s.mu.Unlock()
	}()
	if err := stream.Send(&hostv1.MCPChunk{Endpoint: id}); err != nil {
		return err
	}
	// The front end's stream ending (its SIGINT, its death) ends the
	// endpoint and every client session on it.
	go func() {
		for {
			if _, err := stream.Recv(); err != nil {
				cancel()
				return
			}
		}
	}()
	err = srv.ServeHTTP(ctx, ln, mcpserve.HTTPOptions{
		Token: first.Token, Public: first.Public, Origins: first.Origins,
		MaxRequestBytes: first.MaxRequestBytes, MaxConcurrent: int(first.MaxConcurrent),
	})
	if err != nil && ctx.Err() == nil {
		return status.Errorf(codes.InvalidArgument, "mcp serve --http: %v", err)
	}
	return nil
}

// MCPHTTPConn carries one TCP connection of an `mcp serve --http` front
// end to its endpoint: bytes in both directions until either side closes.
func (s *Server) MCPHTTPConn(stream hostv1.Host_MCPHTTPConnServer) error {
	first, err := stream.Recv()
	if err != nil {
		return err
	}
	s.mu.Lock()
	ln := s.endpoints[first.Endpoint]
	s.mu.Unlock()
	if ln == nil {
		return status.Error(codes.NotFound, "no such mcp serve --http endpoint in this host")
	}
	// The real addresses: the endpoint's DNS rebinding check refuses a
	// non-loopback Host on a loopback connection, so a connection
	// without its local address is refused, never served unchecked.
	local, lerr := netip.ParseAddrPort(first.LocalAddr)
	remote, rerr := netip.ParseAddrPort(first.RemoteAddr)
	if lerr != nil || rerr != nil {
		return status.Error(codes.InvalidArgument, "mcp serve --http: a connection must name its local and remote IP:port")
	}
	hostEnd, feEnd := net.Pipe()
	defer feEnd.Close()
	conn := &addrConn{Conn: hostEnd, local: net.TCPAddrFromAddrPort(local), remote: net.TCPAddrFromAddrPort(remote)}
	if err := ln.hand(conn); err != nil {
		hostEnd.Close()
		return status.Error(codes.Unavailable, "the mcp serve --http endpoint has ended")
	}
	go func() {
		defer feEnd.Close()
		if len(first.Data) > 0 {
			if _, err := feEnd.Write(first.Data); err != nil {
				return
			}
		}
		for {
			m, err := stream.Recv()
			if err != nil {
				return // the client closed (or the front end went away)
			}
			if _, err := feEnd.Write(m.Data); err != nil {
				return
			}
		}
	}()
	buf := make([]byte, 32<<10)
	for {
		n, err := feEnd.Read(buf)
		if n > 0 {
			if serr := stream.Send(&hostv1.MCPChunk{Data: append([]byte(nil), buf[:n]...)}); serr != nil {
				return nil
			}
		}
		if err != nil {
			return nil // the server closed the connection
		}
	}
}

// connListener is the endpoint's listener: the connections front ends
// hand over, accepted by the endpoint's HTTP server.
type connListener struct {
	conns chan net.Conn
	done  chan struct{}
	once  sync.Once
}

func newConnListener() *connListener {
	return &connListener{conns: make(chan net.Conn), done: make(chan struct{})}
}

func (l *connListener) Accept() (net.Conn, error) {
	select {
	case c := <-l.conns:
		return c, nil
	case <-l.done:
		return nil, net.ErrClosed
	}
}

func (l *connListener) Close() error {
	l.once.Do(func() { close(l.done) })
	return nil
}

func (l *connListener) Addr() net.Addr { return &net.UnixAddr{Name: "host.sock", Net: "unix"} }

func (l *connListener) hand(c net.Conn) error {
	select {
	case l.conns <- c:
		return nil
	case <-l.done:
		return net.ErrClosed
	}
}

// addrConn is a handed-over connection with the TCP connection's own
// addresses.
type addrConn struct {
	net.Conn
	local, remote net.Addr
}

func (c *addrConn) LocalAddr() net.Addr  { return c.local }
func (c *addrConn) RemoteAddr() net.Addr { return c.remote }
