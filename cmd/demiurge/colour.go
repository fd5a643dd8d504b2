package main

import (
	"io"

	"github.com/urfave/cli/v2"

	"demiurge.dev/cmd/internal/frontview"
)

// style is what a word means, shown as a colour on a terminal.
type style = frontview.Style

const (
	stylePlain = frontview.StylePlain
	styleOK    = frontview.StyleOK   // green: connected, ok, allowed, succeeded
	styleBad   = frontview.StyleBad  // red: failed, refused, denied, mismatch
	styleWarn  = frontview.StyleWarn // yellow: prompt, pending, unavailable
)

// colourOn reports whether w gets colour: it must be a terminal, NO_COLOR
// (https://no-color.org) unset or empty, TERM not "dumb", and --no-color
// not given.
func colourOn(c *cli.Context, w io.Writer) bool {
	noColor := false
	for _, l := range c.Lineage() {
		if l.Bool("no-color") {
			noColor = true
		}
	}
	return frontview.ColourOn(w, noColor)
}

// paint colours text for the command's standard output.
func paint(c *cli.Context, st style, text string) string {
	return paintFor(colourOn(c, c.App.Writer), st, text)
}

func paintFor(on bool, st style, text string) string { return frontview.Paint(on, st, text) }

// stateStyle is the style of a state word in the tables.
func stateStyle(state string) style { return frontview.StateStyle(state) }
