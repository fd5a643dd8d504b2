package main

import (
	"os"
	"os/signal"
	"syscall"

	"github.com/urfave/cli/v2"

	"demiurge.dev/cmd/internal/frontview"
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
	gone := func(err error) error { return hostGone(cl, "mcp serve", err) }
	return frontview.PipeMCP(ctx, stream, first, plugins.OperatorStdin(), os.Stdout, os.Stderr, gone)
}
