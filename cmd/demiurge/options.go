package main

import (
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/urfave/cli/v2"
	"golang.org/x/term"

	"demiurge.dev/cmd/internal/frontargs"
	"demiurge.dev/cmd/internal/hostopts"
	"demiurge.dev/host/approval"
	"demiurge.dev/host/mcp"
	"demiurge.dev/host/plugins"
	"demiurge.dev/host/policy"
	"demiurge.dev/host/toolhost"
)

func globalFlags() []cli.Flag {
	return append(modelFlags(),
		&cli.StringFlag{Name: "core", Usage: "a plain agent core directory (holds agent.yaml), unversioned; default: a core of the core repository under the state directory (--core-id)", EnvVars: []string{"DEMIURGE_CORE"}},
		&cli.StringFlag{Name: "core-id", Usage: "run this core of the core repository (agents/`ID` in live); default: default (demiurge core status lists them)"},
		&cli.StringFlag{Name: "workspace", Usage: "workspace directory; default: the core's, else the current directory", EnvVars: []string{"DEMIURGE_WORKSPACE"}},
		&cli.StringFlag{Name: "state", Usage: "state directory (store, caches, installed plugins); default: $XDG_STATE_HOME/demiurge", EnvVars: []string{"DEMIURGE_STATE"}},
		&cli.StringFlag{Name: "tool-display", Value: "summary", Usage: "how tools are shown: quiet, summary or full"},
		&cli.DurationFlag{Name: "call-timeout", Usage: "how long one authored or MCP tool call may run before it is cancelled", DefaultText: "10m"},
		&cli.StringSliceFlag{Name: "approve", Usage: "approval rule, repeatable: allow:TOOL, allow:TOOL:GLOB, prompt:TOOL, prompt:TOOL:GLOB, deny:TOOL, deny:TOOL:GLOB (standing ones: demiurge approvals add)"},
		&cli.StringFlag{Name: "plugin-dir", Usage: "directory of the built-in toolset plugins; default: beside the demiurge binary", EnvVars: []string{"DEMIURGE_PLUGIN_DIR"}, Hidden: true},
		&cli.Int64Flag{Name: "output-cap-mib", Value: 256, Usage: "MiB of one output stream a terminal call keeps in its artifact; past it bytes are counted and dropped", EnvVars: []string{"DEMIURGE_OUTPUT_CAP_MIB"}},
		&cli.Int64Flag{Name: "artifact-budget-mib", Value: 4096, Usage: "MiB the artifacts under STATE/runtime/artifacts may hold; the oldest of ended calls and tasks are removed first", EnvVars: []string{"DEMIURGE_ARTIFACT_BUDGET_MIB"}},

		&cli.StringFlag{Name: "sandbox", Usage: "OS sandbox of approved commands: read-only, workspace-write (default), network or off; a core can only tighten it"},
		&cli.StringSliceFlag{Name: "allow-private-mcp", Usage: "let MCP server SERVER reach one private address, repeatable: SERVER=ADDRESS:PORT such as ide=127.0.0.1:3999 (also: private_mcp in the host configuration file $XDG_CONFIG_HOME/demiurge/mcp-private.yaml)"},
		&cli.StringFlag{Name: "timezone", Usage: "IANA time zone terminal commands run in (TZ), e.g. Europe/Berlin; default: the host's", EnvVars: []string{"DEMIURGE_TIMEZONE"}},
		&cli.BoolFlag{Name: "no-color", Usage: "no colour, also when standard output is a terminal (so does NO_COLOR=1)", DisableDefaultText: true},
		&cli.BoolFlag{Name: "quiet", Aliases: []string{"q"}, Usage: "no spinner or progress line on stderr, and no live output of tool calls there", DisableDefaultText: true},
		&cli.StringFlag{Name: "log-level", Value: "warn", Usage: "host log level (trace, debug, info, warn, error); logs go to STATE/logs/host.log", EnvVars: []string{"DEMIURGE_LOG_LEVEL"}},
	)
}

func stateDir(c *cli.Context) (string, error) {
	return frontargs.StateDir(c.String("state"))
}

func builtinPluginDir(c *cli.Context) string {
	if d := c.String("plugin-dir"); d != "" {
		return d
	}
	return hostopts.BinaryDir()
}

// operatorCanAnswer reports whether someone can answer approval prompts:
// the original standard input must be a terminal.
func operatorCanAnswer() bool {
	return term.IsTerminal(int(plugins.OperatorStdin().Fd()))
}

// openHost assembles the host for one command. The approver is the
// terminal when one is attached, else nobody (deny).
func openHost(c *cli.Context, approver approval.Provider) (*toolhost.Host, error) {
	state, err := stateDir(c)
	if err != nil {
		return nil, err
	}
	if approver == nil && operatorCanAnswer() {
		approver = &approval.Terminal{In: plugins.OperatorStdin(), Out: os.Stderr}
	}
	for _, spec := range c.StringSlice("approve") {
		if _, err := approval.ParseRule(spec); err != nil {
			return nil, usagef("--approve %q: %v", spec, err)
		}
	}
	if c.Duration("call-timeout") < 0 {
		return nil, usagef("--call-timeout must be a positive duration like 90s or 5m")
	}
	logger, err := hostLogger(state, c.String("log-level"))
	if err != nil {
		return nil, err
	}
	outputCap, err := mebibytes(c, "output-cap-mib")
	if err != nil {
		return nil, err
	}
	budget, err := mebibytes(c, "artifact-budget-mib")
	if err != nil {
		return nil, err
	}
	private, err := privateMCPFlags(c)
	if err != nil {
		return nil, err
	}
	if tz := c.String("timezone"); tz != "" {
		if _, err := time.LoadLocation(tz); err != nil || tz == "Local" {
			return nil, usagef("--timezone %q: not a zone this system knows (an IANA name such as Europe/Berlin or UTC)", tz)
		}
	}
	return toolhost.Open(toolhost.Options{
		MCPPrivate: private, MCPPrivateFile: mcp.PrivateConfigFile(), ApprovalsFile: approval.OperatorFile(), GrantsFile: policy.PathGrantsFile(),
		CoreDir: c.String("core"), CoreID: c.String("core-id"), Workspace: c.String("workspace"), StateDir: state,
		BuiltinPluginDir: builtinPluginDir(c), Approver: approver, Rules: c.StringSlice("approve"),
		Logger: logger, OutputCap: outputCap, ArtifactBudget: budget, CallTimeout: c.Duration("call-timeout"),
		Sandbox: c.String("sandbox"), Principal: c.String("principal"), // --principal: mcp serve
		Timezone: c.String("timezone"),
	})
}

// mebibytes reads a size flag given in MiB as bytes.
func mebibytes(c *cli.Context, flag string) (int64, error) {
	n := c.Int64(flag)
	if n < 1 || n > 1<<40 {
		return 0, usagef("--%s must be a number of MiB from 1 to %d, got %d", flag, int64(1)<<40, n)
	}
	return n << 20, nil
}

// hostLogger writes the host's and the plugins' logs to a file in the state
// directory, so they never mix with a command's output.
func hostLogger(state, level string) (hclog.Logger, error) {
	dir := filepath.Join(state, "logs")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(filepath.Join(dir, "host.log"), os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
	if err != nil {
		return nil, fmt.Errorf("host log: %w", err)
	}
	return hclog.New(&hclog.LoggerOptions{Name: "demiurge", Output: f, Level: hclog.LevelFromString(level)}), nil
}
