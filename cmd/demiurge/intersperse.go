package main

import (
	"strings"

	"github.com/urfave/cli/v2"
)

// intersperse lets flags follow positional arguments, as in
// `demiurge tools show read_file --json`: urfave/cli v2 stops reading
// flags at the first positional argument, so the leaf command's flags are
// moved in front of its arguments. Everything after "--" stays as it is.
func intersperse(app *cli.App, args []string) []string {
	if len(args) < 2 {
		return args
	}
	out := []string{args[0]}
	cmds, flags := app.Commands, app.Flags
	i := 1
	// Walk the command path: global flags, then command names.
	for i < len(args) {
		a := args[i]
		if a == "--" {
			return append(out, args[i:]...)
		}
		if strings.HasPrefix(a, "-") {
			out = append(out, a)
			if takesValue(flags, a) && i+1 < len(args) {
				out = append(out, args[i+1])
				i++
			}
			i++
			continue
		}
		cmd := findCommand(cmds, a)
		if cmd == nil {
			break
		}
		out = append(out, a)
		i++
		cmds, flags = cmd.Subcommands, cmd.Flags
		if len(cmds) == 0 {
			break
		}
	}
	// The leaf command's arguments: flags first, then positionals.
	var moved, positional []string
	for ; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			positional = append(positional, args[i:]...)
			break
		}
		if strings.HasPrefix(a, "-") && len(a) > 1 && isFlag(flags, a) {
			moved = append(moved, a)
			if takesValue(flags, a) && i+1 < len(args) {
				moved = append(moved, args[i+1])
				i++
			}
			continue
		}
		positional = append(positional, a)
	}
	return append(append(out, moved...), positional...)
}

func findCommand(cmds []*cli.Command, name string) *cli.Command {
	for _, c := range cmds {
		if c.HasName(name) {
			return c
		}
	}
	return nil
}

func flagName(a string) (string, bool) {
	name := strings.TrimLeft(a, "-")
	name, _, hasValue := strings.Cut(name, "=")
	return name, hasValue
}

func lookupFlag(flags []cli.Flag, a string) cli.Flag {
	name, _ := flagName(a)
	for _, f := range flags {
		for _, n := range f.Names() {
			if n == name {
				return f
			}
		}
	}
	return nil
}

func isFlag(flags []cli.Flag, a string) bool { return lookupFlag(flags, a) != nil }

// takesValue reports whether a flag given as a separate word consumes the
// next word as its value.
func takesValue(flags []cli.Flag, a string) bool {
	if _, inline := flagName(a); inline {
		return false
	}
	f := lookupFlag(flags, a)
	if f == nil {
		return false
	}
	_, isBool := f.(*cli.BoolFlag)
	return !isBool
}
