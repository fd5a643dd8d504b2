package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"

	"demiurge.dev/cmd/internal/frontargs"
	"demiurge.dev/cmd/internal/frontview"
	"demiurge.dev/host/hostd/hostclient"
	"demiurge.dev/shared/hostv1"
)

// mcpServe is `mcp serve` (stdio) through the running host, as the full
// CLI's mcpServeViaHost makes it: standard input and output piped to the
// host's ServeMCP stream, which serves the client. Until the stream is
// open it hands over (handed=true, nothing read or printed): no host of
// these options (the full CLI starts or replaces one), a failed dial.
// After, the client's bytes are the host's: it never hands over.
func mcpServe(req frontargs.Request, state string) (code int, handed bool) {
	if req.HTTP != "" {
		return mcpServeHTTP(req, state)
	}
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
	gone := func(err error) error {
		fmt.Fprintf(os.Stderr, "demiurge: the host (pid %d) went away during mcp serve: %s\n", cl.PID, hostclient.GoneCause(err))
		return errHostGone
	}
	switch err := frontview.PipeMCP(ctx, stream, first, os.Stdin, os.Stdout, os.Stderr, gone); {
	case err == nil:
		return 0, false
	case errors.Is(err, errHostGone):
	default:
		fmt.Fprintf(os.Stderr, "demiurge: %v\n", err)
	}
	return 1, false
}

// errHostGone is PipeMCP's error once the host's going away was printed.
var errHostGone = errors.New("the host went away")
