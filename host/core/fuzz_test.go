package core

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// FuzzLoad feeds arbitrary agent.yaml bytes to the parser: it must not
// panic, every error must be a *LoadError naming the file, and whatever
// loads must hold the invariants the rest of the host relies on.
func FuzzLoad(f *testing.F) {
	for _, pattern := range []string{"testdata/bad/*.yaml", "testdata/good/*/agent.yaml", "default/agent.yaml"} {
		paths, err := filepath.Glob(pattern)
		if err != nil {
			f.Fatal(err)
		}
		for _, p := range paths {
			b, err := os.ReadFile(p)
			if err != nil {
				f.Fatal(err)
			}
			f.Add(b)
		}
	}
	f.Add([]byte("slots: {tools: agent/tools, mcp: agent/mcp}\nworkspace: .\n"))
	f.Add([]byte("slots: {tools: ../x}\n"))
	f.Add([]byte("a: &a [*a, *a]\n"))
	f.Add([]byte("toolsets: !!binary Y29kaW5n\n"))

	dir, err := filepath.EvalSymlinks(f.TempDir())
	if err != nil {
		f.Fatal(err)
	}
	for _, d := range []string{"agent/tools", "agent/mcp"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o755); err != nil {
			f.Fatal(err)
		}
	}
	file := filepath.Join(dir, FileName)

	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := parse(data, file, dir)
		if err != nil {
			var le *LoadError
			if !errors.As(err, &le) {
				t.Fatalf("error %v is %T, want *LoadError", err, err)
			}
			if le.File != file || le.Line < 0 || le.Column < 0 || le.Msg == "" {
				t.Fatalf("malformed LoadError %+v", le)
			}
			return
		}
		if len(c.Revision) != 64 || c.Dir != dir || c.Metadata == nil {
			t.Fatalf("loaded core lacks revision, dir or metadata: %+v", c)
		}
		for _, root := range []string{c.ToolsRoot, c.MCPRoot} {
			if root != "" && !within(dir, root) {
				t.Fatalf("slot root %s escapes the core %s", root, dir)
			}
		}
		for _, ts := range c.Toolsets {
			if !slices.Contains(knownToolsets, ts) {
				t.Fatalf("unknown toolset %q loaded", ts)
			}
		}
		for _, g := range c.Capabilities {
			if strings.HasPrefix(g, "secret.bind:") && strings.ContainsAny(g, "*?[") {
				t.Fatalf("wildcard secret grant %q loaded", g)
			}
		}
		for name, o := range c.Metadata {
			if !toolName.MatchString(name) || !strings.HasPrefix(o.Origin, FileName+":") {
				t.Fatalf("metadata %q loaded with origin %q", name, o.Origin)
			}
		}
	})
}
