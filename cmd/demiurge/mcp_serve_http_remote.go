package main

import (
	"os"
	"os/signal"
	"syscall"

	"github.com/urfave/cli/v2"

	"demiurge.dev/cmd/internal/frontview"
	"demiurge.dev/shared/hostv1"
)

// mcpServeHTTPViaHost is `mcp serve --http` as a front end
// (frontview.ServeMCPHTTP, the small front end's too): this process owns
// the TCP listener, and hands each connection it accepts to the running
// host, which serves the endpoint beside every other front end of the
// state. When this process ends, the endpoint and its sessions end with it.
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
	return frontview.ServeMCPHTTP(ctx, cl, frontview.MCPHTTP{
		Addr: addr,
		Open: &hostv1.MCPHTTPOpen{Principal: c.String("principal"), Token: token, Public: c.Bool("listen-public"),
			Origins: c.StringSlice("allow-origin"), MaxRequestBytes: c.Int64("max-request-kib") << 10,
			MaxConcurrent: int32(c.Int("max-concurrent")), Approve: append([]string{}, c.StringSlice("approve")...)},
		PrintToken: !c.IsSet("token-file"),
		Stderr:     os.Stderr,
		Gone:       func(err error) error { return hostGone(cl, "mcp serve", err) },
	})
}
