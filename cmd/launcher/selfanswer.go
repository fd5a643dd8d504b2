package main

import (
	_ "embed"
	"io"

	"demiurge.dev/cmd/internal/buildinfo"
)

// helpText is `demiurge help` as the full CLI prints it. `make build`
// regenerates it from the host it has just built (TestHelpIsTheHosts
// catches a stale copy); it depends on no flag, environment or state.
//
//go:embed help.txt
var helpText string

// answerSelf answers the invocations that need nothing of the full host:
// exactly `demiurge --version`, `demiurge version`, `demiurge help`,
// `--help` and `-h`, with the full CLI's output, so that they start like a
// small program instead of loading the host's 90-odd MB (its model SDKs
// above all). Anything else (another flag, an argument, `version --json`)
// reports false and goes to the host.
func answerSelf(args []string, stdout io.Writer) (answered bool) {
	if len(args) != 1 {
		return false
	}
	switch args[0] {
	case "--version", "version":
		io.WriteString(stdout, buildinfo.Current().String()+"\n")
		return true
	case "help", "--help", "-h":
		io.WriteString(stdout, helpText)
		return true
	}
	return false
}
