package main

import (
	"os"
	"strings"

	"demiurge.dev/cmd/internal/frontargs"
)

// listRequest is a `tools list` invocation the launcher may answer itself:
// the global flags and environment it reads, and the list's own flags.
type listRequest struct {
	core, workspace, state, pluginDir string
	display                           string
	provider                          string
	json                              bool
}

// parseList recognises exactly
//
//	demiurge [GLOBAL FLAGS] tools list [--json] [--provider NAME]
//
// with the flags' `--name value` and `--name=value` forms and the list
// flags before or after each other, as the full CLI accepts them. Anything
// else (another command, a repeated or unknown flag, a positional
// argument, "--") returns false: the full host then parses it and answers,
// usage errors included.
func parseList(args []string, getenv func(string) string) (listRequest, bool) {
	r := listRequest{
		core: getenv("DEMIURGE_CORE"), workspace: getenv("DEMIURGE_WORKSPACE"),
		state: getenv("DEMIURGE_STATE"), pluginDir: getenv("DEMIURGE_PLUGIN_DIR"),
		display: "summary",
	}
	i, ok := frontargs.Globals(args, map[string]*string{"core": &r.core, "workspace": &r.workspace,
		"state": &r.state, "tool-display": &r.display, "plugin-dir": &r.pluginDir}, nil)
	if !ok || len(args)-i < 2 || args[i] != "tools" || args[i+1] != "list" {
		return r, false
	}
	seen := map[string]bool{}
	rest := args[i+2:]
	for j := 0; j < len(rest); j++ {
		a := rest[j]
		switch {
		case a == "--json" && !seen["json"]:
			seen["json"], r.json = true, true
		case strings.HasPrefix(a, "--provider") && !seen["provider"]:
			name, value, ok := frontargs.FlagValue(rest, &j)
			if !ok || name != "provider" {
				return r, false
			}
			seen["provider"], r.provider = true, value
		default:
			return r, false
		}
	}
	return r, true
}

// environ is os.Getenv, named for tests that pass their own.
var environ = os.Getenv
