package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"demiurge.dev/cmd/internal/frontargs"
	"demiurge.dev/shared/hostv1"
)

// mcpServe is `mcp serve` (stdio) through the running host, as the full
// CLI's mcpServeViaHost makes it: standard input and output piped to the
// host's ServeMCP stream, which serves the client. Until the stream is
// open it hands over (handed=true, nothing read or printed): no host of
// these options (the full CLI starts or replaces one), a failed dial.
// After, the client's bytes are the host's: it never hands over.
func mcpServe(req frontargs.Request, state string) (code int, handed bool) {
	dialCtx, cancelDial := context.WithTimeout(context.Background(), time.Minute)
	defer cancelDial()
	cl, ok := dialShaped(dialCtx, req, state)
	if !ok {
		return 0, true
	}
	defer cl.Close()
	// SIGINT or SIGTERM ends the serving quietly, exit 0, as the full
	// CLI's does.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	stream, err := cl.ServeMCP(ctx)
	if err != nil {
		return 0, true
	}
	first := &hostv1.MCPChunk{Principal: req.Principal, MaxRequestBytes: int64(req.MaxRequestKiB) << 10,
		Approve: append([]string{}, req.Approve...)}
	gone := func(err error) (int, bool) {
		fmt.Fprintf(os.Stderr, "demiurge: the host (pid %d) went away during mcp serve: %v\n", cl.PID, err)
		return 1, false
	}
	if err := stream.Send(first); err != nil {
		return gone(err)
	}
	go func() {
		buf := make([]byte, 64<<10)
		for {
			n, err := os.Stdin.Read(buf)
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
			return 0, false
		}
		if err != nil {
			if ctx.Err() != nil && status.Code(err) == codes.Canceled {
				return 0, false // SIGINT/SIGTERM
			}
			return gone(err)
		}
		if len(m.Data) > 0 {
			if _, err := os.Stdout.Write(m.Data); err != nil {
				fmt.Fprintf(os.Stderr, "demiurge: mcp serve: standard output: %v\n", err)
				return 1, false
			}
		}
		if m.Stderr != "" {
			fmt.Fprintln(os.Stderr, m.Stderr)
		}
	}
}
