package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/urfave/cli/v2"

	"demiurge.dev/host/core"
	"demiurge.dev/host/packages"
	"demiurge.dev/host/packages/installed"
)

func packageCommand() *cli.Command {
	return &cli.Command{
		Name: "package",
		// Spelled like "plugins" too, and "plugins" like this.
		Aliases: []string{"packages"},
		Usage:   "provider packages of the active core (web_search providers)",
		Subcommands: []*cli.Command{
			{
				Name:   "list",
				Usage:  "packages available from the package sources and installed in this core",
				Flags:  []cli.Flag{&cli.BoolFlag{Name: "json", Usage: "print JSON"}},
				Action: packageList,
			},
			{
				Name:      "install",
				Usage:     "install a package by name (built by make, beside demiurge) or from an archive path with its sha256",
				ArgsUsage: "NAME|ARCHIVE",
				Flags: []cli.Flag{jsonFlag(), &cli.StringFlag{Name: "sha256", Usage: "the archive's sha256 (required for an archive path; checked for a name too)"},
					&cli.StringSliceFlag{Name: "grant", Usage: "grant the package a host variable it declares, as secret.bind:ENV (required for each secret of an archive path)"}},
				Action: packageInstall,
			},
			{
				Name:      "remove",
				Usage:     "remove an installed package from this core",
				ArgsUsage: "NAME",
				Flags:     []cli.Flag{jsonFlag()},
				Action:    packageRemove,
			},
		},
	}
}

// packageManager is the package manager of the active core. It loads the
// core only: no plugin is started by any package command.
func packageManager(c *cli.Context) (*packages.Manager, error) {
	state, err := stateDir(c)
	if err != nil {
		return nil, err
	}
	cr := core.Default()
	if dir := c.String("core"); dir != "" {
		if cr, err = core.Load(dir); err != nil {
			return nil, err
		}
	}
	if err := os.MkdirAll(state, 0o700); err != nil {
		return nil, fmt.Errorf("state directory: %w", err)
	}
	m := packages.New(state, cr, packages.Source{Dir: filepath.Join(builtinPluginDir(c), "packages")})
	m.BuiltinDir = builtinPluginDir(c)
	return m, nil
}

func packageList(c *cli.Context) error {
	if c.NArg() > 0 {
		return usagef("package list takes no arguments")
	}
	m, err := packageManager(c)
	if err != nil {
		return err
	}
	rows, err := m.List()
	if err != nil {
		return err
	}
	byName(rows, func(r packages.Listing) string { return r.Name })
	if c.Bool("json") {
		if rows == nil {
			rows = []packages.Listing{}
		}
		return writeJSON(c.App.Writer, rows)
	}
	tw := newTable(c, "NAME", "INSTALLED", "AVAILABLE", "PROVIDES", "SECRETS", "STATE")
	tw.Colour(5, func(s string) style { return stateStyle(strings.SplitN(s, ":", 2)[0]) })
	for _, r := range rows {
		state := r.State
		if r.Problem != "" {
			state += ": " + r.Problem
		}
		tw.Row(r.Name, dash(r.Installed), dash(r.Available),
			dash(strings.Join(r.Tools, ",")), dash(strings.Join(r.Secrets, ",")), state)
	}
	return tw.Flush()
}

func packageInstall(c *cli.Context) error {
	if c.NArg() != 1 {
		return usagef("package install takes one package name or archive path")
	}
	m, err := packageManager(c)
	if err != nil {
		return err
	}
	p, err := m.InstallGranting(c.Args().First(), c.String("sha256"), c.StringSlice("grant"))
	if err != nil {
		return err
	}
	if c.Bool("json") {
		warnUnsetSecrets(c, p)
		return printJSON(c, p)
	}
	fmt.Fprintf(c.App.Writer, "installed %s %s (sha256 %s) at %s: provides %s\n", p.Name, p.Version, short(p.SHA256), p.SlotPath, strings.Join(p.Tools, ", "))
	if len(p.Egress) == 0 {
		fmt.Fprintf(c.App.Writer, "reaches no network host: its package.json declares none\n")
	} else {
		fmt.Fprintf(c.App.Writer, "reaches %s only, through the host's egress proxy\n", strings.Join(p.Egress, ", "))
	}
	for _, s := range p.Secrets {
		fmt.Fprintf(c.App.Writer, "binds %s from the host environment to each %s call (grant secret.bind:%s); the value never reaches the model or the plugin's environment\n",
			s.Env, strings.Join(s.Tools, ", "), s.Env)
	}
	warnUnsetSecrets(c, p)
	return nil
}

// warnUnsetSecrets says on stderr which bound secrets are not set yet.
func warnUnsetSecrets(c *cli.Context, p installed.Locked) {
	for _, s := range p.Secrets {
		if _, ok := os.LookupEnv(s.Env); !ok {
			fmt.Fprintf(c.App.ErrWriter, "demiurge: %s is not set; %s reports it as not configured until it is\n", s.Env, strings.Join(s.Tools, ", "))
		}
	}
}

func packageRemove(c *cli.Context) error {
	if c.NArg() != 1 {
		return usagef("package remove takes one package name")
	}
	m, err := packageManager(c)
	if err != nil {
		return err
	}
	p, err := m.Remove(c.Args().First())
	if err != nil {
		return err
	}
	if c.Bool("json") {
		return printJSON(c, p)
	}
	fmt.Fprintf(c.App.Writer, "removed %s %s from %s\n", p.Name, p.Version, p.SlotPath)
	return nil
}
