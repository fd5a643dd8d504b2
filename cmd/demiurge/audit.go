package main

import (
	"github.com/urfave/cli/v2"

	"demiurge.dev/cmd/internal/frontview"
	"demiurge.dev/host/runtime"
)

func auditCommand() *cli.Command {
	return &cli.Command{
		Name:  "audit",
		Usage: "the event log: every call's redacted audit event",
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "json", Usage: "print JSON"},
			&cli.IntFlag{Name: "limit", Value: 50, Usage: "newest N events (0: all)"},
			&cli.StringFlag{Name: "tool", Usage: "only this tool's events"},
			&cli.StringFlag{Name: "kind", Usage: "only events of this kind"},
		},
		Action: audit,
	}
}

func audit(c *cli.Context) error {
	if c.NArg() > 0 {
		return usagef("audit takes no arguments")
	}
	if c.Int("limit") < 0 {
		return usagef("--limit must be 0 or more")
	}
	evs, err := auditEvents(c, runtime.EventQuery{Tool: c.String("tool"), Kind: c.String("kind"), Limit: c.Int("limit"), NewestFirst: true})
	if err != nil {
		return err
	}
	// The small front end prints the host's answer with the same code.
	return frontview.Audit(c.App.Writer, evs, c.Bool("json"), outputWidth(c.App.Writer), colourOn(c, c.App.Writer))
}
