package main

import (
	"fmt"
	"net"
	"os"
	"os/signal"
	"syscall"

	"github.com/urfave/cli/v2"

	"demiurge.dev/cmd/internal/frontview"
	"demiurge.dev/host/approval"
	"demiurge.dev/host/mcpserve"
	"demiurge.dev/host/plugins"
)

func mcpServeCommand() *cli.Command {
	return &cli.Command{
		Name:  "serve",
		Usage: "serve the policed catalog over MCP: stdio (the default) or streamable HTTP (--http); every call passes the guard, approvals, redaction and audit",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "http", Usage: "serve streamable HTTP on HOST:PORT (loopback unless --listen-public), endpoint /mcp"},
			&cli.StringFlag{Name: "token-file", Usage: "file holding the bearer token HTTP clients must send; default: a new token, printed on stderr"},
			&cli.BoolFlag{Name: "listen-public", Usage: "allow a non-loopback --http address (needs --token-file)"},
			&cli.StringSliceFlag{Name: "allow-origin", Usage: "a browser Origin allowed besides loopback ones, exactly (https://app.example), repeatable"},
			&cli.StringFlag{Name: "principal", Usage: "the principal every client's session runs under; default: the local user"},
			&cli.Int64Flag{Name: "max-request-kib", Value: mcpserve.DefaultMaxRequestBytes >> 10, Usage: "KiB one request may hold (an HTTP body, a line on stdio)"},
			&cli.IntFlag{Name: "max-concurrent", Value: mcpserve.DefaultMaxConcurrent, Usage: "HTTP requests served at once, one session's at most half; more are answered 503"},
		},
		Action: mcpServe,
	}
}

// mcpServe serves until the client goes (stdio), or until SIGINT/SIGTERM.
func mcpServe(c *cli.Context) error {
	if c.NArg() > 0 {
		return usagef("mcp serve takes no arguments")
	}
	addr := c.String("http")
	if addr == "" && (c.IsSet("token-file") || c.Bool("listen-public")) {
		return usagef("--token-file and --listen-public are for --http")
	}
	if addr != "" {
		if err := mcpserve.CheckBind(addr, c.Bool("listen-public"), c.IsSet("token-file")); err != nil {
			return usagef("%v", err)
		}
	}
	if addr == "" && hostEnabled() {
		return mcpServeViaHost(c)
	}
	token, err := serveToken(c.String("token-file"))
	if err != nil {
		return err
	}
	if hostEnabled() {
		return mcpServeHTTPViaHost(c, addr, token)
	}
	// Standard input is the MCP stream (stdio) or nobody's: never an
	// approval terminal. A client answers through elicitation.
	h, err := openHost(c, approval.DenyAll{})
	if err != nil {
		return err
	}
	defer h.Close()
	ctx, stop := signal.NotifyContext(c.Context, os.Interrupt, syscall.SIGTERM)
	defer stop()
	srv, err := mcpserve.New(ctx, mcpserve.Options{Host: h, MaxRequestBytes: int(c.Int64("max-request-kib") << 10), Version: currentBuild().Version})
	if err != nil {
		return err
	}
	printWarnings(h)
	if addr == "" {
		return srv.ServeStdio(ctx, plugins.OperatorStdin(), os.Stdout, os.Stderr)
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("--http %s: %w", addr, err)
	}
	fmt.Fprintf(os.Stderr, "demiurge mcp serve: http://%s%s\n", ln.Addr(), mcpserve.EndpointPath)
	if !c.IsSet("token-file") {
		fmt.Fprintf(os.Stderr, "bearer token: %s\n", token)
	}
	return srv.ServeHTTP(ctx, ln, mcpserve.HTTPOptions{
		Token: token, Public: c.Bool("listen-public"), Origins: c.StringSlice("allow-origin"),
		MaxRequestBytes: c.Int64("max-request-kib") << 10, MaxConcurrent: c.Int("max-concurrent"),
	})
}

// serveToken reads the operator's token file (first line), or makes one
// (frontview.MCPToken, which the small front end uses too); a file it
// cannot use is a usage error.
func serveToken(file string) (string, error) {
	tok, err := frontview.MCPToken(file)
	if err != nil && file != "" {
		return "", usagef("%v", err)
	}
	return tok, err
}
