// Package hostopts is the host-shaping options of a front end as Hello
// compares them (docs/architecture.md, "Host-shaping options"): one
// function that both the full CLI (bin/demiurge-host) and the small front
// end (bin/demiurge-front) use, so that the front end's config is the
// full CLI's byte for byte and a running host accepts either alike.
package hostopts

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// CoreRevision is the option line naming the core repository's live
// commit (hostd.CoreRevisionOption, which is this).
const CoreRevision = "core-revision"

// Options are the values of the host-shaping global flags (their
// environment variables applied), and the live revision of the core.
type Options struct {
	Core, CoreID, Workspace string
	// PluginDir is the built-in plugins' directory: the flag's, else the
	// directory of the running binary (both binaries are beside it).
	PluginDir         string
	CallTimeout       time.Duration
	OutputCapMiB      int64
	ArtifactBudgetMiB int64
	Sandbox           string
	AllowPrivateMCP   []string
	Timezone          string
	// LiveRevision is the core repository's live commit, "" for a plain
	// core directory or no repository.
	LiveRevision string
}

// Names are the host-shaping flags, in the order of the config's lines.
var Names = []string{"core", "core-id", "workspace", "plugin-dir", "call-timeout",
	"output-cap-mib", "artifact-budget-mib", "sandbox", "allow-private-mcp", "timezone"}

// Config is the canonical host-shaping options, as Hello compares them,
// and the flags a host started for them is given.
func Config(o Options) (config string, flags []string, err error) {
	var lines []string
	add := func(name, value string) {
		lines = append(lines, name+"="+value)
		if value != "" {
			flags = append(flags, "--"+name+"="+value)
		}
	}
	for _, name := range Names {
		switch name {
		case "core", "workspace", "plugin-dir":
			v := map[string]string{"core": o.Core, "workspace": o.Workspace, "plugin-dir": o.PluginDir}[name]
			if name == "workspace" && v == "" && o.Core == "" {
				// The host's workspace is then its starting directory.
				if v, err = os.Getwd(); err != nil {
					return "", nil, err
				}
			}
			if v != "" {
				if v, err = filepath.Abs(v); err != nil {
					return "", nil, err
				}
			}
			add(name, v)
		case "core-id":
			add(name, o.CoreID)
		case "allow-private-mcp":
			lines = append(lines, name+"="+strings.Join(o.AllowPrivateMCP, ","))
			for _, v := range o.AllowPrivateMCP {
				flags = append(flags, "--"+name+"="+v)
			}
		case "call-timeout":
			v := ""
			if o.CallTimeout != 0 {
				v = o.CallTimeout.String()
			}
			add(name, v)
		case "output-cap-mib":
			add(name, fmt.Sprint(o.OutputCapMiB))
		case "artifact-budget-mib":
			add(name, fmt.Sprint(o.ArtifactBudgetMiB))
		case "sandbox":
			add(name, o.Sandbox)
		case "timezone":
			add(name, o.Timezone)
		}
	}
	// Not a flag: the host it starts loads live itself.
	lines = append(lines, CoreRevision+"="+o.LiveRevision)
	return strings.Join(lines, "\n"), flags, nil
}

// BinaryDir is the symlink-resolved directory of the running binary: the
// default built-in plugin directory.
func BinaryDir() string {
	exe, err := os.Executable()
	if err != nil {
		return ""
	}
	if resolved, err := filepath.EvalSymlinks(exe); err == nil {
		exe = resolved
	}
	return filepath.Dir(exe)
}
