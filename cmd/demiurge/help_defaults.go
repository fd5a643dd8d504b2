package main

import "github.com/urfave/cli/v2"

// quietBoolDefaults drops "(default: false)" from every switch's help: a
// switch is off unless given, and the text said nothing.
func quietBoolDefaults(flags []cli.Flag, cmds []*cli.Command) {
	for _, f := range flags {
		if b, ok := f.(*cli.BoolFlag); ok {
			b.DisableDefaultText = true
		}
	}
	for _, c := range cmds {
		quietBoolDefaults(c.Flags, c.Subcommands)
	}
}
