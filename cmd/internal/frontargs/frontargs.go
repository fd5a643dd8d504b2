// Package frontargs recognises the commands the small front end
// (bin/demiurge-front) answers by asking a running host, and nothing else:
// the launcher uses it to pick the front end, the front end to read its
// request. Whatever it does not recognise goes to the full host, which
// parses and answers everything (usage errors included).
package frontargs

import (
	"os"
	"path/filepath"
	"strings"
)

// Request is one recognised invocation.
type Request struct {
	// Command is the command's words, e.g. "host status".
	Command string
	// State is --state's value, else DEMIURGE_STATE's ("" for the default).
	State string
	JSON  bool
}

// typedEnv are environment variables of the full CLI's global flags that
// it parses as numbers or durations: a bad value is a usage error there,
// whatever the command, so their presence sends the command to it.
var typedEnv = []string{"DEMIURGE_OUTPUT_CAP_MIB", "DEMIURGE_ARTIFACT_BUDGET_MIB"}

// Parse recognises exactly
//
//	demiurge [--state DIR | --state=DIR] host status [--json]
//
// and only when the environment leaves the long-lived host on
// (DEMIURGE_HOST is not "off") and sets no typed global flag. Anything
// else reports false.
func Parse(args []string, getenv func(string) string) (Request, bool) {
	r := Request{State: getenv("DEMIURGE_STATE")}
	if getenv("DEMIURGE_HOST") == "off" {
		return r, false
	}
	for _, name := range typedEnv {
		if getenv(name) != "" {
			return r, false
		}
	}
	i := 0
	if i < len(args) && strings.HasPrefix(args[i], "--state") {
		value, ok := stateValue(args, &i)
		if !ok {
			return r, false
		}
		r.State = value
		i++
	}
	rest := args[i:]
	if len(rest) < 2 || rest[0] != "host" || rest[1] != "status" {
		return r, false
	}
	r.Command = "host status"
	switch {
	case len(rest) == 2:
	case len(rest) == 3 && rest[2] == "--json":
		r.JSON = true
	default:
		return r, false
	}
	return r, true
}

// stateValue reads --state=DIR or --state DIR at args[*i] (advancing *i
// past a separate value). An empty value is not understood.
func stateValue(args []string, i *int) (string, bool) {
	a := args[*i]
	if v, ok := strings.CutPrefix(a, "--state="); ok {
		return v, v != ""
	}
	if a != "--state" || *i+1 >= len(args) {
		return "", false
	}
	*i++
	return args[*i], args[*i] != ""
}

// StateDir is the full CLI's state directory for a --state (or
// DEMIURGE_STATE) value: made absolute, else $XDG_STATE_HOME/demiurge,
// else ~/.local/state/demiurge.
func StateDir(flag string) (string, error) {
	if flag != "" {
		return filepath.Abs(flag)
	}
	if s := os.Getenv("XDG_STATE_HOME"); s != "" {
		return filepath.Join(s, "demiurge"), nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(home, ".local", "state", "demiurge"), nil
}
