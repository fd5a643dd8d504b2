package main

import (
	"fmt"
	"os"
	"text/tabwriter"

	"github.com/urfave/cli/v2"

	"demiurge.dev/host/sandboxing"
)

func pluginsCommand() *cli.Command {
	return &cli.Command{
		Name:  "plugins",
		Usage: "the installed toolset plugins",
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
				Action:    pluginsVerify,
			},
		},
	}
}

func pluginsList(c *cli.Context) error {
	h, err := openHost(c, nil)
	if err != nil {
		return err
	}
	defer h.Close()
	sts := h.Plugins.Statuses()
	if c.Bool("json") {
		return writeJSON(c.App.Writer, sts)
	}
	tw := tabwriter.NewWriter(c.App.Writer, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tVERSION\tPROTOCOL\tSHA256\tORIGIN\tSTATE")
	for _, s := range sts {
		state := s.State
		if s.Error != "" {
			state += ": " + s.Error
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", s.Name, dash(s.Version), dash(s.Protocol), short(s.SHA256), s.Origin, state)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	_, err = fmt.Fprintln(c.App.Writer, sandboxLine(sandboxing.Report(h.Sandbox.Helper, h.Sandbox.Mode)))
	return err
}

func pluginsVerify(c *cli.Context) error {
	h, err := openHost(c, nil)
	if err != nil {
		return err
	}
	defer h.Close()
	names := c.Args().Slice()
	if len(names) == 0 {
		for _, cand := range h.Plugins.Candidates() {
			names = append(names, cand.Name)
		}
	}
	bad := 0
	for _, n := range names {
		actual, ok, err := h.Plugins.Verify(n)
		switch {
		case err != nil:
			bad++
			fmt.Fprintf(c.App.Writer, "%s: refused: %v\n", n, err)
		case !ok:
			bad++
			fmt.Fprintf(c.App.Writer, "%s: MISMATCH: sha256 is %s, recorded differs; rebuild or reinstall it\n", n, actual)
		default:
			fmt.Fprintf(c.App.Writer, "%s: ok %s\n", n, actual)
		}
	}
	if bad > 0 {
		fmt.Fprintf(os.Stderr, "demiurge: %d plugin(s) failed verification\n", bad)
		return failed()
	}
	return nil
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func short(sum string) string {
	if len(sum) > 12 {
		return sum[:12]
	}
	return dash(sum)
}
