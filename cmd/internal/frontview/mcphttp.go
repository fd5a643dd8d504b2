package frontview

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"demiurge.dev/host/mcpserve/mcpbind"
	"demiurge.dev/shared/hostv1"
)

// MCPHTTP is one `mcp serve --http` through the host: where to listen,
// what to ask of the host, and how to report.
type MCPHTTP struct {
	// Addr is --http's HOST:PORT (mcpbind.CheckBind passed it).
	Addr string
	// Open is the endpoint asked of the host (token, origins, limits).
	Open *hostv1.MCPHTTPOpen
	// PrintToken prints Open.Token: it was made here (no --token-file).
	PrintToken bool
	// Stderr takes the URL line, the token and the host's notes.
	Stderr io.Writer
	// Gone reports the host's going away and is the error returned.
	Gone func(error) error
}

// ServeMCPHTTP is `mcp serve --http` through the host, for the full CLI
// and the small front end alike: this process owns the TCP listener and
// hands each connection it accepts to the host, which serves the
// endpoint (its Origin and token checks, its MCP sessions, their calls)
// beside every other front end of the state. It returns nil when the host
// ends the endpoint or ctx is cancelled (SIGINT/SIGTERM ends the serving
// quietly), the listener's error when Addr cannot be bound, else
// o.Gone(the stream's error). The endpoint ends with it.
func ServeMCPHTTP(ctx context.Context, host hostv1.HostClient, o MCPHTTP) error {
	ln, err := net.Listen("tcp", o.Addr)
	if err != nil {
		return fmt.Errorf("--http %s: %w", o.Addr, err)
	}
	ln = gateRelayed(ln, o.Open.Token, o.Open.MaxConcurrent)
	defer ln.Close()
	ctl, err := host.ServeMCPHTTP(ctx)
	if err != nil {
		return o.Gone(err)
	}
	if err := ctl.Send(o.Open); err != nil {
		return o.Gone(err)
	}
	opened, err := ctl.Recv()
	if err != nil {
		return o.Gone(err)
	}
	fmt.Fprintf(o.Stderr, "demiurge mcp serve: http://%s%s\n", ln.Addr(), mcpbind.EndpointPath)
	if o.PrintToken {
		fmt.Fprintf(o.Stderr, "bearer token: %s\n", o.Open.Token)
	}
	go acceptConns(ln, func(conn net.Conn) { pipeHTTPConn(ctx, host, opened.Endpoint, conn) })
	for {
		m, err := ctl.Recv()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			if ctx.Err() != nil && status.Code(err) == codes.Canceled {
				return nil // SIGINT/SIGTERM, as the in-process command
			}
			return o.Gone(err)
		}
		if m.Stderr != "" {
			fmt.Fprintln(o.Stderr, m.Stderr)
		}
	}
}

// pipeHTTPConn carries one accepted connection to the host's endpoint
// and back, until either side closes it.
func pipeHTTPConn(ctx context.Context, host hostv1.HostClient, endpoint string, conn net.Conn) {
	defer conn.Close()
	stream, err := host.MCPHTTPConn(ctx)
	if err != nil {
		return
	}
	if stream.Send(&hostv1.MCPChunk{Endpoint: endpoint, LocalAddr: conn.LocalAddr().String(), RemoteAddr: conn.RemoteAddr().String()}) != nil {
		return
	}
	go func() {
		buf := make([]byte, 32<<10)
		for {
			n, err := conn.Read(buf)
			if n > 0 && stream.Send(&hostv1.MCPChunk{Data: append([]byte(nil), buf[:n]...)}) != nil {
				return
			}
			if err != nil {
				stream.CloseSend()
				return
			}
		}
	}()
	for {
		m, err := stream.Recv()
		if err != nil {
			return // the host closed the connection (or went away)
		}
		if _, err := conn.Write(m.Data); err != nil {
			return
		}
	}
}
