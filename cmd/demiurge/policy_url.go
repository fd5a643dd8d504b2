package main

import (
	"context"
	"time"

	"github.com/urfave/cli/v2"

	"demiurge.dev/host/policy"
)

// policyCheckURLCommand is `demiurge policy check-url URL`: the URL
// policy's verdict as JSON. It looks names up only with --resolve. Like
// check-command it exits 0 on any verdict (the JSON says which; --exit-code
// makes it the status) and 2 on a usage mistake.
func policyCheckURLCommand() *cli.Command {
	return &cli.Command{
		Name:      "check-url",
		Usage:     "the URL policy's verdict on a URL as JSON (origin, decision, class, reasons)",
		ArgsUsage: "URL",
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "resolve", Usage: "look the name up and check every address it resolves to"},
			exitCodeFlag(),
		},
		Action: policyCheckURL,
		OnUsageError: func(_ *cli.Context, err error, _ bool) error {
			return usageError{err}
		},
	}
}

func policyCheckURL(c *cli.Context) error {
	if c.NArg() != 1 {
		return usagef("policy check-url takes exactly one URL, got %d arguments", c.NArg())
	}
	ctx, cancel := context.WithTimeout(c.Context, 10*time.Second)
	defer cancel()
	v := policy.CheckURL(ctx, c.Args().First(), c.Bool("resolve"))
	if err := printJSON(c, v); err != nil {
		return err
	}
	return verdictStatus(c, v.Decision)
}
