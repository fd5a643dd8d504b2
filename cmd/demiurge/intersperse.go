package main

import (
	"strings"

	"github.com/urfave/cli/v2"
)

// intersperse lets flags follow positional arguments, as in
// `demiurge tools show read_file --json`: urfave/cli v2 stops reading
// flags at the first positional argument, so the leaf command's flags are
// moved in front of its arguments. A global flag given after a command
// name (`demiurge tools call x '{}' --approve allow:x`) moves to the
// front, where urfave/cli reads it; a command's own flag of the same name
// wins. Everything after "--" stays as it is.
func intersperse(app *cli.App, args []string) []string {
	if len(args) < 2 {
		return args
	}
	var global, path []string
	cmds, flags := app.Commands, app.Flags
	// take moves the flag at args[i] (and its value word) to *to.
	take := func(to *[]string, fs []cli.Flag, i int) int {
		*to = append(*to, args[i])
		if takesValue(fs, args[i]) && i+1 < len(args) {
			*to = append(*to, args[i+1])
			i++
		}
		return i + 1
	}
	i := 1
	// Walk the command path: flags, then command names.
	for i < len(args) {
		a := args[i]
		if a == "--" {
			return append(append(append([]string{args[0]}, global...), path...), args[i:]...)
		}
		if strings.HasPrefix(a, "-") {
			if len(path) > 0 && !isFlag(flags, a) && isFlag(app.Flags, a) {
				i = take(&global, app.Flags, i)
			} else {
				i = take(&path, flags, i)
			}
			continue
		}
		cmd := findCommand(cmds, a)
		if cmd == nil {
			break
		}
		path = append(path, a)
		i++
		cmds, flags = cmd.Subcommands, cmd.Flags
		if len(cmds) == 0 {
			break
		}
	}
	// The leaf command's arguments: flags first, then positionals.
	var moved, positional []string
	for i < len(args) {
		a := args[i]
		if a == "--" {
			positional = append(positional, args[i:]...)
			break
		}
		if strings.HasPrefix(a, "-") && len(a) > 1 {
			switch {
			case isFlag(flags, a):
				i = take(&moved, flags, i)
				continue
			case len(path) > 0 && isFlag(app.Flags, a):
				i = take(&global, app.Flags, i)
				continue
			}
		}
		positional = append(positional, a)
		i++
	}
	out := append([]string{args[0]}, global...)
	return append(append(append(out, path...), moved...), positional...)
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
