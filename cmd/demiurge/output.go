package main

import (
	"io"

	"github.com/urfave/cli/v2"

	"demiurge.dev/cmd/internal/frontview"
)

// JSON style, the same for every command: snake_case keys, two-space
// indent, a list printed as [] rather than null, no HTML escaping.

func writeJSON(w io.Writer, v any) error { return frontview.WriteJSON(w, v) }

// printJSON writes v as the command's JSON output.
func printJSON(c *cli.Context, v any) error { return writeJSON(c.App.Writer, v) }

// jsonFlag is the one --json flag every command that prints data takes.
func jsonFlag() cli.Flag { return &cli.BoolFlag{Name: "json", Usage: "print JSON (snake_case keys)"} }
