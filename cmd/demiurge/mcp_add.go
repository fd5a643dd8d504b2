package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/urfave/cli/v2"
	"go.yaml.in/yaml/v3"

	"demiurge.dev/host/core"
	"demiurge.dev/host/mcp"
	"demiurge.dev/host/policy"
)

func mcpAddCommand() *cli.Command {
	return &cli.Command{
		Name:      "add",
		Usage:     "write agent/mcp/SERVER.yaml for a stdio server (-- COMMAND ARGS) or a streamable HTTP one (--url URL)",
		ArgsUsage: "SERVER [-- COMMAND [ARGS...]]",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "url", Usage: "streamable HTTP endpoint, instead of a command"},
			&cli.StringSliceFlag{Name: "env", Usage: "KEY=VALUE added to a stdio server's environment, repeatable"},
			&cli.StringSliceFlag{Name: "header", Usage: "Name=VALUE sent to an HTTP server, repeatable"},
			&cli.StringFlag{Name: "protocol-version", Usage: "the MCP protocol version to speak: " + strings.Join(core.MCPProtocolVersions, ", ") + " (default " + core.DefaultMCPProtocolVersion + ")"},
			&cli.BoolFlag{Name: "trust-new-tools", Usage: "offer tools the server adds later without mcp review"},
			&cli.BoolFlag{Name: "force", Usage: "replace an existing manifest"},
		},
		Action: mcpAdd,
	}
}

// addedManifest is what mcp add writes, in this key order.
type addedManifest struct {
	Command         string            `yaml:"command,omitempty"`
	Args            []string          `yaml:"args,omitempty"`
	Env             map[string]string `yaml:"env,omitempty"`
	URL             string            `yaml:"url,omitempty"`
	Headers         map[string]string `yaml:"headers,omitempty"`
	ProtocolVersion string            `yaml:"protocol_version,omitempty"`
	TrustNewTools   bool              `yaml:"trust_new_tools,omitempty"`
}

// mcpAdd writes one manifest into the core's slots.mcp directory, after
// checking it parses exactly as the host will read it.
func mcpAdd(c *cli.Context) error {
	if c.NArg() < 1 {
		return usagef("mcp add takes a server name, then -- COMMAND ARGS or --url URL")
	}
	id, rest := c.Args().First(), c.Args().Tail()
	if len(rest) > 0 && rest[0] == "--" {
		rest = rest[1:] // left by flag parsing, which stopped at SERVER
	}
	if err := core.ValidMCPServerID(id); err != nil {
		return usagef("%v", err)
	}
	m := addedManifest{URL: c.String("url"), ProtocolVersion: c.String("protocol-version"), TrustNewTools: c.Bool("trust-new-tools")}
	switch {
	case m.URL != "" && len(rest) > 0:
		return usagef("give -- COMMAND ARGS or --url URL, not both")
	case m.URL == "" && len(rest) == 0:
		return usagef("give the server's command after --, or --url URL")
	case len(rest) > 0:
		m.Command, m.Args = rest[0], rest[1:]
	}
	var err error
	if m.Env, err = pairs(c.StringSlice("env"), "--env", "KEY=VALUE"); err != nil {
		return err
	}
	if m.Headers, err = pairs(c.StringSlice("header"), "--header", "Name=VALUE"); err != nil {
		return err
	}
	dir := c.String("core")
	if dir == "" {
		return usagef("mcp add writes into a core on disk: give --core DIR (the embedded default core has no slots.mcp)")
	}
	cr, err := loadCoreMakingMCPDir(dir)
	if err != nil {
		return err
	}
	if cr.MCPRoot == "" {
		return fmt.Errorf("%s declares no slots.mcp; add `slots: {mcp: agent/mcp}` to it first", cr.File)
	}
	file := filepath.Join(cr.MCPRoot, id+".yaml")
	data, err := yaml.Marshal(m)
	if err != nil {
		return err
	}
	// The bytes are checked as the host will read them.
	if _, lerr := core.ParseMCPServer(data, file); lerr != nil {
		return lerr
	}
	if err := os.MkdirAll(cr.MCPRoot, 0o755); err != nil {
		return err
	}
	flags := os.O_WRONLY | os.O_CREATE | os.O_EXCL
	if c.Bool("force") {
		flags = os.O_WRONLY | os.O_CREATE | os.O_TRUNC
	}
	f, err := os.OpenFile(file, flags, 0o644)
	if errors.Is(err, os.ErrExist) {
		return fmt.Errorf("%s already exists; pass --force to replace it", file)
	}
	if err != nil {
		return err
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	fmt.Fprintf(c.App.Writer, "wrote %s\n", file)
	fmt.Fprintln(c.App.ErrWriter, addedHint(cr, id))
	return nil
}

// addedHint says what the new server still needs to connect: the grants
// the core lacks (only those), then the operator's connect approval, and
// the command that tries it, with the --core it was added to.
func addedHint(cr *core.Core, id string) string {
	var missing []string
	caps, err := policy.NewCapabilitySet(cr.Capabilities)
	for _, want := range []string{mcp.ConnectCapability(id), "mcp.call:" + id} {
		if err != nil || !caps.Has(want) {
			missing = append(missing, want)
		}
	}
	grants := ""
	if len(missing) > 0 {
		grants = fmt.Sprintf("the core grants %s (capabilities: in %s) and ", strings.Join(missing, " and "), cr.File)
	}
	return fmt.Sprintf("it connects once %sthe operator approves the connect (--approve allow:%s, or answer the prompt); try: %s",
		grants, mcp.ConnectTool(id), cr.Command("--approve allow:"+mcp.ConnectTool(id)+" mcp test "+id))
}

// pairs reads repeated KEY=VALUE flags.
func pairs(specs []string, flag, form string) (map[string]string, error) {
	if len(specs) == 0 {
		return nil, nil
	}
	out := make(map[string]string, len(specs))
	for _, s := range specs {
		k, v, ok := strings.Cut(s, "=")
		if !ok || k == "" {
			return nil, usagef("%s %q: want %s", flag, s, form)
		}
		if _, dup := out[k]; dup {
			return nil, usagef("%s %s is given twice", flag, k)
		}
		out[k] = v
	}
	return out, nil
}
