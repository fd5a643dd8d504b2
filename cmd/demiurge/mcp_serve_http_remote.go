package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/signal"
	"syscall"

	"github.com/urfave/cli/v2"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"demiurge.dev/host/hostd"
	"demiurge.dev/host/mcpserve"
	"demiurge.dev/shared/hostv1"
)

// mcpServeHTTPViaHost is `mcp serve --http` as a front end: this process
// owns the TCP listener, and hands each connection it accepts to the
// running host, which serves the endpoint (its checks, its MCP sessions,
// their calls) beside every other front end of the state. When this
// process ends, the endpoint and its sessions end with it.
func mcpServeHTTPViaHost(c *cli.Context, addr, token string) error {
	cl, err := connectHost(c)
	if err != nil {
		return err
	}
	defer cl.Close()
	if err := cl.Needs(7, "mcp serve --http"); err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(c.Context, os.Interrupt, syscall.SIGTERM)
	defer stop()
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("--http %s: %w", addr, err)
	}
	defer ln.Close()
	ctl, err := cl.ServeMCPHTTP(ctx)
	if err != nil {
		return hostGone(cl, "mcp serve", err)
	}
	err = ctl.Send(&hostv1.MCPHTTPOpen{Principal: c.String("principal"), Token: token, Public: c.Bool("listen-public"),
		Origins: c.StringSlice("allow-origin"), MaxRequestBytes: c.Int64("max-request-kib") << 10,
		MaxConcurrent: int32(c.Int("max-concurrent")), Approve: append([]string{}, c.StringSlice("approve")...)})
	if err != nil {
		return hostGone(cl, "mcp serve", err)
	}
	opened, err := ctl.Recv()
	if err != nil {
		return hostGone(cl, "mcp serve", err)
	}
	fmt.Fprintf(os.Stderr, "demiurge mcp serve: http://%s%s\n", ln.Addr(), mcpserve.EndpointPath)
	if !c.IsSet("token-file") {
		fmt.Fprintf(os.Stderr, "bearer token: %s\n", token)
	}
	go func() {
		for {
			conn, err := ln.Accept()
			if err != nil {
				return // the listener closed: this command is ending
			}
			go pipeHTTPConn(ctx, cl, opened.Endpoint, conn)
		}
	}()
	for {
		m, err := ctl.Recv()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			if ctx.Err() != nil && status.Code(err) == codes.Canceled {
				return nil // SIGINT/SIGTERM, as the in-process command
			}
			return hostGone(cl, "mcp serve", err)
		}
		if m.Stderr != "" {
			fmt.Fprintln(os.Stderr, m.Stderr)
		}
	}
}

// pipeHTTPConn carries one accepted connection to the host's endpoint
// and back, until either side closes it.
func pipeHTTPConn(ctx context.Context, cl *hostd.Client, endpoint string, conn net.Conn) {
	defer conn.Close()
	stream, err := cl.MCPHTTPConn(ctx)
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
