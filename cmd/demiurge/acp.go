package main

import (
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"syscall"

	acp "github.com/coder/acp-go-sdk"
	"github.com/urfave/cli/v2"
)

func acpCommand() *cli.Command {
	return &cli.Command{
		Name:  "acp",
		Usage: "be an Agent Client Protocol agent on stdio for an editor (Zed, JetBrains, Neovim, Emacs): each ACP session is a session of the state's host; every tool call passes the guard, approvals (asked in the editor), redaction and audit",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "principal", Usage: "the principal the editor's sessions run under; default: the local user"},
		},
		Action: acpServe,
	}
}

// acpServe speaks ACP on stdin/stdout until the editor closes them (or
// SIGINT/SIGTERM). It is a front end of the host: the sessions, turns,
// approvals' rules and the audit are the host's.
func acpServe(c *cli.Context) error {
	if c.NArg() > 0 {
		return usagef("acp takes no arguments")
	}
	if !hostEnabled() {
		return usagef("demiurge acp is a front end of the long-lived host; it does not run with DEMIURGE_HOST=off or under a demiurge")
	}
	ctx, stop := signal.NotifyContext(c.Context, os.Interrupt, syscall.SIGTERM)
	defer stop()
	out := &acpWriter{w: os.Stdout}
	in := newACPReader(os.Stdin, out, os.Stderr)
	agent := newACPAgent(c, out)
	conn := acp.NewAgentSideConnection(agent, out, in)
	conn.SetLogger(slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn})))
	agent.conn = conn
	select {
	case <-conn.Done():
	case <-ctx.Done():
	}
	agent.closeAll()
	if ctx.Err() != nil && c.Context.Err() == nil {
		fmt.Fprintln(os.Stderr, "demiurge acp: stopped by a signal")
	}
	return nil
}
