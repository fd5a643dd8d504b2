package main

import (
	"fmt"
	"os"
	"strings"

	"github.com/urfave/cli/v2"

	"demiurge.dev/cmd/internal/frontview"
	"demiurge.dev/host/plugins"
)

func pluginsCommand() *cli.Command {
	return &cli.Command{
		Name:    "plugins",
		Aliases: []string{"plugin"},
		Usage:   "the installed toolset plugins",
		Subcommands: []*cli.Command{
			{
				Name:   "list",
				Usage:  "name, version, protocol, sha256 and state of every plugin (starts none)",
				Flags:  []cli.Flag{&cli.BoolFlag{Name: "json", Usage: "print JSON"}},
				Action: pluginsList,
			},
			{
				Name:      "verify",
				Usage:     "hash plugin binaries and compare with their recorded sha256",
				ArgsUsage: "[NAME...]",
				Flags:     []cli.Flag{jsonFlag()},
				Action:    pluginsVerify,
			},
			pluginsInstallCommand(),
			pluginsAccessCommand(),
			pluginsRemoveCommand(),
			pluginsNewCommand(),
		},
	}
}

func pluginsList(c *cli.Context) error {
	sts, sandbox, err := pluginStatuses(c)
	if err != nil {
		return err
	}
	byName(sts, func(s plugins.Status) string { return s.Name })
	if c.Bool("json") {
		return writeJSON(c.App.Writer, sts)
	}
	tw := newTable(c, "NAME", "VERSION", "PROTOCOL", "SHA256", "ORIGIN", "STATE")
	tw.Colour(5, func(s string) style { return stateStyle(strings.SplitN(s, ":", 2)[0]) })
	for _, s := range sts {
		state := s.State
		if s.Error != "" {
			state += ": " + s.Error
		}
		tw.Row(s.Name, dash(s.Version), dash(s.Protocol), short(s.SHA256), s.Origin, state)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, s := range sts {
		if s.Confinement != "" {
			fmt.Fprintln(c.App.Writer, wrapText(s.Name+": "+s.Confinement, outputWidth(c.App.Writer)))
		}
	}
	_, err = fmt.Fprintln(c.App.Writer, wrapText(sandboxLine(sandbox), outputWidth(c.App.Writer)))
	return err
}

func pluginsVerify(c *cli.Context) error {
	results, err := verifyPlugins(c, c.Args().Slice())
	if err != nil {
		return err
	}
	bad := 0
	for _, r := range results {
		if !r.OK {
			bad++
		}
	}
	if c.Bool("json") {
		if err := printJSON(c, results); err != nil {
			return err
		}
	} else {
		for _, r := range results {
			switch {
			case r.OK:
				fmt.Fprintf(c.App.Writer, "%s: %s %s\n", r.Name, paint(c, styleOK, "ok"), r.SHA256)
			case r.SHA256 == "":
				fmt.Fprintf(c.App.Writer, "%s: %s: %s\n", r.Name, paint(c, styleBad, "refused"), r.Error)
			default:
				fmt.Fprintf(c.App.Writer, "%s: %s: sha256 is %s; %s\n", r.Name, paint(c, styleBad, "MISMATCH"), r.SHA256, r.Error)
			}
		}
	}
	if bad > 0 {
		fmt.Fprintf(os.Stderr, "demiurge: %d plugin(s) failed verification\n", bad)
		return failed()
	}
	return nil
}

func dash(s string) string { return frontview.Dash(s) }

func short(sum string) string {
	if len(sum) > 12 {
		return sum[:12]
	}
	return dash(sum)
}
