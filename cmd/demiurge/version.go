package main

import (
	"fmt"
	"runtime"
	"runtime/debug"

	"github.com/urfave/cli/v2"

	"demiurge.dev/shared"
)

// version is this build's semantic version; commit may be set by the
// Makefile (-ldflags "-X main.commit=..."), else it comes from the VCS
// stamp Go records in the binary.
var (
	version = "0.1.0"
	commit  = ""
)

// buildInfo is what `demiurge version --json` prints.
type buildInfo struct {
	Version       string `json:"version"`
	Commit        string `json:"commit"`
	Modified      bool   `json:"modified,omitempty"`
	Protocol      int    `json:"protocol"`
	ProtocolMinor int    `json:"protocol_minor"`
	GoVersion     string `json:"go_version"`
	Platform      string `json:"platform"`
}

func currentBuild() buildInfo {
	b := buildInfo{Version: version, Commit: commit, Protocol: shared.ProtocolVersion,
		ProtocolMinor: shared.ProtocolMinor, GoVersion: runtime.Version(), Platform: runtime.GOOS + "/" + runtime.GOARCH}
	if info, ok := debug.ReadBuildInfo(); ok {
		for _, s := range info.Settings {
			switch {
			case s.Key == "vcs.revision" && b.Commit == "":
				b.Commit = s.Value
			case s.Key == "vcs.modified":
				b.Modified = s.Value == "true"
			}
		}
	}
	if len(b.Commit) > 12 {
		b.Commit = b.Commit[:12]
	}
	if b.Commit == "" {
		b.Commit = "unknown"
	}
	return b
}

// String is the one line `--version` and `version` print.
func (b buildInfo) String() string {
	dirty := ""
	if b.Modified {
		dirty = "+dirty"
	}
	return fmt.Sprintf("demiurge %s (commit %s%s, protocol %d.%d, %s %s)",
		b.Version, b.Commit, dirty, b.Protocol, b.ProtocolMinor, b.GoVersion, b.Platform)
}

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
