package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/urfave/cli/v2"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"demiurge.dev/host/plugins"
	"demiurge.dev/shared/hostv1"
)

// mcpServeViaHost is `mcp serve` (stdio) as a front end: this process
// pipes its standard input and output to the running host, which serves
// the client as the in-process command would. Two IDE windows on one
// state are two such front ends of one host: both work.
func mcpServeViaHost(c *cli.Context) error {
	cl, err := connectHost(c)
	if err != nil {
		return err
	}
	defer cl.Close()
	ctx, stop := signal.NotifyContext(c.Context, os.Interrupt, syscall.SIGTERM)
	defer stop()
	stream, err := cl.ServeMCP(ctx)
	if err != nil {
		return hostGone(cl, "mcp serve", err)
	}
	first := &hostv1.MCPChunk{Principal: c.String("principal"), MaxRequestBytes: c.Int64("max-request-kib") << 10,
		Approve: append([]string{}, c.StringSlice("approve")...)}
	if err := stream.Send(first); err != nil {
		return hostGone(cl, "mcp serve", err)
	}
	go func() {
		in := plugins.OperatorStdin()
		buf := make([]byte, 64<<10)
		for {
			n, err := in.Read(buf)
			if n > 0 {
				if stream.Send(&hostv1.MCPChunk{Data: append([]byte(nil), buf[:n]...)}) != nil {
					return
				}
			}
			if err != nil {
				stream.CloseSend() // the client's input ended: the host ends its session
				return
			}
		}
	}()
	for {
		m, err := stream.Recv()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			if ctx.Err() != nil && status.Code(err) == codes.Canceled {
				return nil // SIGINT/SIGTERM, as the in-process command
			}
			return hostGone(cl, "mcp serve", err)
		}
		if len(m.Data) > 0 {
			if _, err := os.Stdout.Write(m.Data); err != nil {
				return fmt.Errorf("mcp serve: standard output: %w", err)
			}
		}
		if m.Stderr != "" {
			fmt.Fprintln(os.Stderr, m.Stderr)
		}
	}
}
