package main

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/urfave/cli/v2"

	"demiurge.dev/host/core"
	"demiurge.dev/host/plugins"
	"demiurge.dev/host/toolhost"
)

func pluginsInstallCommand() *cli.Command {
	return &cli.Command{
		Name:      "install",
		Usage:     "install a toolset plugin binary: start it once, record its sha256 and protocol, place it under STATE/plugins",
		ArgsUsage: "PATH",
		Description: "PATH is a plugin binary named demiurge-toolset-NAME (or pass --name). Its tools join the embedded\n" +
			"default core's catalog; a core directory uses it once its agent.yaml names it in toolsets:.",
		Flags: []cli.Flag{jsonFlag(), &cli.StringFlag{Name: "name", Usage: "toolset name, when the file is not named demiurge-toolset-NAME"},
			&cli.BoolFlag{Name: "unconfined", Usage: "trust this binary fully: it runs as the host does (its home's configuration, files outside the workspace, the network directly), not confined to what its tools declare"}},
		Action: func(c *cli.Context) error {
			if c.NArg() != 1 {
				return usagef("plugins install takes the path of one plugin binary")
			}
			opts, err := installOptions(c)
			if err != nil {
				return err
			}
			opts.Source, opts.Name, opts.Reserved, opts.Unconfined = c.Args().First(), c.String("name"), reservedToolsets(c), c.Bool("unconfined")
			rec, err := plugins.Install(c.Context, opts)
			if err != nil {
				return err
			}
			return printInstalled(c, "installed", rec)
		},
	}
}

// installOptions are what plugins install and plugins access share: the
// state's plugin directory, the runtime home a trial start runs in, and
// the host's log.
func installOptions(c *cli.Context) (plugins.InstallOptions, error) {
	state, err := stateDir(c)
	if err != nil {
		return plugins.InstallOptions{}, err
	}
	logger, err := hostLogger(state, c.String("log-level"))
	if err != nil {
		return plugins.InstallOptions{}, err
	}
	return plugins.InstallOptions{Dir: toolhost.InstalledPluginDir(state), Home: filepath.Join(state, "runtime", "home"), Logger: logger}, nil
}

func printInstalled(c *cli.Context, verb string, rec plugins.Installed) error {
	if c.Bool("json") {
		return printJSON(c, rec)
	}
	how := "confined: it " + rec.Access.String()
	if rec.Unconfined {
		how = "UNCONFINED (the operator's choice): it runs as the host does"
	}
	_, err := fmt.Fprintf(c.App.Writer, "%s %s %s (protocol %d.%d, sha256 %s) at %s: provides %s\n%s\n",
		verb, rec.Name, dash(rec.Version), rec.Protocol, rec.ProtocolMinor, short(rec.SHA256), rec.Path, dash(strings.Join(rec.Tools, ", ")),
		wrapText(how, outputWidth(c.App.Writer)))
	return err
}

// pluginsAccessCommand is `plugins access NAME`: the operator records
// anew what an installed plugin's tools declare (a record written before
// it held them grants only reading the workspace), and may trust it
// fully or confine it again, without its source.
func pluginsAccessCommand() *cli.Command {
	return &cli.Command{
		Name:      "access",
		Usage:     "record again what an installed toolset's tools declare (--unconfined trusts it fully, --confined confines it again)",
		ArgsUsage: "NAME",
		Description: "Starts the installed binary once, as plugins install does, after checking it is still the one whose sha256\n" +
			"was recorded, and records what its tools declare: a plugin installed before its access was recorded reads its\n" +
			"workspace only until then. Without --unconfined or --confined the recorded choice stays.",
		Flags: []cli.Flag{jsonFlag(),
			&cli.BoolFlag{Name: "unconfined", Usage: "trust this binary fully: it runs as the host does"},
			&cli.BoolFlag{Name: "confined", Usage: "confine it to what its tools declare again"}},
		Action: func(c *cli.Context) error {
			if c.NArg() != 1 {
				return usagef("plugins access takes one toolset name")
			}
			var choice *bool
			switch {
			case c.Bool("unconfined") && c.Bool("confined"):
				return usagef("plugins access takes --unconfined or --confined, not both")
			case c.Bool("unconfined"), c.Bool("confined"):
				v := c.Bool("unconfined")
				choice = &v
			}
			opts, err := installOptions(c)
			if err != nil {
				return err
			}
			opts.Name = c.Args().First()
			rec, err := plugins.Rerecord(c.Context, opts, choice)
			if err != nil {
				return err
			}
			return printInstalled(c, "recorded", rec)
		},
	}
}

func pluginsRemoveCommand() *cli.Command {
	return &cli.Command{
		Name:      "remove",
		Usage:     "remove a toolset installed with plugins install",
		ArgsUsage: "NAME",
		Flags:     []cli.Flag{jsonFlag()},
		Action: func(c *cli.Context) error {
			if c.NArg() != 1 {
				return usagef("plugins remove takes one toolset name")
			}
			state, err := stateDir(c)
			if err != nil {
				return err
			}
			name := c.Args().First()
			for _, r := range reservedToolsets(c) {
				if r == name {
					return fmt.Errorf("%s is a built-in toolset, not an installed one; a core leaves it out by not naming it in toolsets:", name)
				}
			}
			rec, err := plugins.Uninstall(toolhost.InstalledPluginDir(state), name)
			if err != nil {
				return err
			}
			if c.Bool("json") {
				return printJSON(c, rec)
			}
			_, err = fmt.Fprintf(c.App.Writer, "removed %s from %s\n", rec.Name, filepath.Dir(rec.Path))
			return err
		},
	}
}

// reservedToolsets are the names an installed toolset may not take: the
// built-in toolsets, known or found beside the host.
func reservedToolsets(c *cli.Context) []string {
	names := core.KnownToolsets()
	if cands, err := plugins.Discover([]plugins.Dir{{Path: builtinPluginDir(c), Origin: plugins.OriginBuiltin}}); err == nil {
		for _, cand := range cands {
			names = append(names, cand.Name)
		}
	}
	return names
}
