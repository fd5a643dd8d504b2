package main

import (
	"fmt"

	"github.com/urfave/cli/v2"

	"demiurge.dev/cmd/internal/buildinfo"
)

// version is this build's semantic version (urfave/cli's App.Version).
var version = buildinfo.Version

// currentBuild is what `--version` and `version` print (buildinfo, which
// the launcher shares to answer --version itself).
func currentBuild() buildinfo.Info { return buildinfo.Current() }

func versionCommand() *cli.Command {
	return &cli.Command{
		Name:  "version",
		Usage: "the version, commit, plugin protocol and Go version of this build",
		Flags: []cli.Flag{jsonFlag()},
		Action: func(c *cli.Context) error {
			if c.NArg() > 0 {
				return usagef("version takes no arguments")
			}
			if c.Bool("json") {
				return printJSON(c, currentBuild())
			}
			_, err := fmt.Fprintln(c.App.Writer, currentBuild())
			return err
		},
	}
}

func init() {
	cli.VersionPrinter = func(c *cli.Context) { fmt.Fprintln(c.App.Writer, currentBuild()) }
	cli.VersionFlag = &cli.BoolFlag{Name: "version", Usage: "print the version and exit", DisableDefaultText: true}
}
