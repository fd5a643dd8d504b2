package main

import (
	"io"
	"os"

	"github.com/urfave/cli/v2"
	"golang.org/x/term"
)

// style is what a word means, shown as a colour on a terminal.
type style int

const (
	stylePlain style = iota
	styleOK          // green: connected, ok, allowed, succeeded
	styleBad         // red: failed, refused, denied, mismatch
	styleWarn        // yellow: prompt, pending, unavailable
)

var styleCodes = map[style]string{styleOK: "\x1b[32m", styleBad: "\x1b[31m", styleWarn: "\x1b[33m"}

// colourOn reports whether w gets colour: it must be a terminal, NO_COLOR
// (https://no-color.org) unset or empty, TERM not "dumb", and --no-color
// not given.
func colourOn(c *cli.Context, w io.Writer) bool {
	if os.Getenv("NO_COLOR") != "" || os.Getenv("TERM") == "dumb" {
		return false
	}
	for _, l := range c.Lineage() {
		if l.Bool("no-color") {
			return false
		}
	}
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// paint colours text for the command's standard output.
func paint(c *cli.Context, st style, text string) string {
	return paintFor(colourOn(c, c.App.Writer), st, text)
}

func paintFor(on bool, st style, text string) string {
	code, ok := styleCodes[st]
	if !on || !ok || text == "" {
		return text
	}
	return code + text + "\x1b[0m"
}

// stateStyle is the style of a state word in the tables.
func stateStyle(state string) style {
	switch state {
	case "ok", "running", "connected", "installed", "succeeded", "allow", "available", "ready", "enforced":
		return styleOK
	case "failed", "refused", "denied", "error", "mismatch", "block", "lost", "crashed", "unavailable":
		return styleBad
	case "prompt", "pending", "cancelled", "disabled", "timed_out", "unresolved":
		return styleWarn
	}
	return stylePlain
}
