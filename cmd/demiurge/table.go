package main

import (
	"io"

	"github.com/urfave/cli/v2"

	"demiurge.dev/cmd/internal/frontview"
)

// table is the one way commands print rows (frontview.Table, which the
// small front end prints with too).
type table = frontview.Table

func newTable(c *cli.Context, header ...string) *table {
	return frontview.NewTable(c.App.Writer, outputWidth(c.App.Writer), colourOn(c, c.App.Writer), header...)
}

// outputWidth is COLUMNS when it is a positive number, else the width of
// w when it is a terminal, else 0 (unbounded).
func outputWidth(w io.Writer) int { return frontview.OutputWidth(w) }

func wrapText(text string, width int) string { return frontview.WrapText(text, width) }
