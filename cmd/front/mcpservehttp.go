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

// mcpServeHTTP is `mcp serve --http` through the running host, as the
// full CLI's mcpServeHTTPViaHost makes it (frontview.ServeMCPHTTP, the
// same code). It hands over (handed=true, nothing printed) whenever the
// full CLI would say or do something else: a --token-file it refuses, no
// host of these options (the full CLI starts or replaces one), a host
// older than protocol 1.7 (the full CLI says so). After, it reports as
// the full CLI does and never hands over.
func mcpServeHTTP(req frontargs.Request, state string) (code int, handed bool) {
	printToken := req.TokenFile == ""
	token, err := frontview.MCPToken(req.TokenFile)
	if err != nil {
		return 0, true
	}
	dialCtx, cancelDial := context.WithTimeout(context.Background(), time.Minute)
	defer cancelDial()
	cl, ok := dialNeeding(dialCtx, req, state, 7, "mcp serve --http")
	if !ok {
		return 0, true
	}
	defer cl.Close()
	// SIGINT or SIGTERM ends the serving quietly, exit 0, as the full
	// CLI's does.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	err = frontview.ServeMCPHTTP(ctx, cl, frontview.MCPHTTP{
		Addr: req.HTTP,
		Open: &hostv1.MCPHTTPOpen{Principal: req.Principal, Token: token, Public: req.ListenPublic,
			Origins: req.AllowOrigins, MaxRequestBytes: int64(req.MaxRequestKiB) << 10,
			MaxConcurrent: int32(req.MaxConcurrent), Approve: append([]string{}, req.Approve...)},
		PrintToken: printToken,
		Stderr:     os.Stderr,
		Gone: func(err error) error {
			fmt.Fprintf(os.Stderr, "demiurge: the host (pid %d) went away during mcp serve: %s\n", cl.PID, hostclient.GoneCause(err))
			return errHostGone
		},
	})
	switch {
	case err == nil:
		return 0, false
	case !errors.Is(err, errHostGone):
		fmt.Fprintf(os.Stderr, "demiurge: %v\n", err)
	}
	return 1, false
}
