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

// Config is the canonical host-shaping options, as Hello compares them,
// and the flags a host started for them is given: one line per flag, in
// this order (core, core-id, workspace, plugin-dir, call-timeout,
// output-cap-mib, artifact-budget-mib, sandbox, allow-private-mcp,
// timezone), then the live revision.
func Config(o Options) (config string, flags []string, err error) {
	var lines []string
	add := func(name, value string) {
		lines = append(lines, name+"="+value)
		if value != "" {
			flags = append(flags, "--"+name+"="+value)
		}
	}
	abs := func(v string) string {
		if v != "" && err == nil {
			v, err = filepath.Abs(v)
		}
		return v
	}
	workspace := o.Workspace
	if workspace == "" && o.Core == "" {
		// The host's workspace is then its starting directory.
		if workspace, err = os.Getwd(); err != nil {
			return "", nil, err
		}
	}
	add("core", abs(o.Core))
	add("core-id", o.CoreID)
	add("workspace", abs(workspace))
	add("plugin-dir", abs(o.PluginDir))
	if err != nil {
		return "", nil, err
	}
	timeout := ""
	if o.CallTimeout != 0 {
		timeout = o.CallTimeout.String()
	}
	add("call-timeout", timeout)
	add("output-cap-mib", fmt.Sprint(o.OutputCapMiB))
	add("artifact-budget-mib", fmt.Sprint(o.ArtifactBudgetMiB))
	add("sandbox", o.Sandbox)
	lines = append(lines, "allow-private-mcp="+strings.Join(o.AllowPrivateMCP, ","))
	for _, v := range o.AllowPrivateMCP {
		flags = append(flags, "--allow-private-mcp="+v)
	}
	add("timezone", o.Timezone)
	// Not a flag: the operator's configuration directory (the approvals,
	// grants and private MCP files), which a host reads from its own
	// environment (XDG_CONFIG_HOME, HOME). A host started by a front end
	// of another (an editor's sandbox sets its own XDG_CONFIG_HOME) would
	// judge every front end's calls by that directory's rules, and an
	// operator's deny or removal in theirs would count for nothing.
	lines = append(lines, "operator-config="+OperatorConfigDir())
	// Not a flag: the host it starts loads live itself.
	lines = append(lines, CoreRevision+"="+o.LiveRevision)
	return strings.Join(lines, "\n"), flags, nil
}

// OperatorConfigDir is the directory of the operator's files
// (policy.OperatorConfigFile's): "" when there is none.
func OperatorConfigDir() string {
	dir, err := os.UserConfigDir()
	if err != nil {
		return ""
	}
	return filepath.Join(dir, "demiurge")
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
