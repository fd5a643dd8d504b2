package sandboxing

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"demiurge.dev/shared/sandbox"
)

func TestResolveMode(t *testing.T) {
	for _, c := range []struct {
		core, operator string
		want           sandbox.Mode
		err            string
	}{
		{"", "", sandbox.WorkspaceWrite, ""},
		{"read-only", "", sandbox.ReadOnly, ""},                    // a core tightens
		{"network", "", sandbox.WorkspaceWrite, ""},                // a core cannot loosen the default
		{"", "off", sandbox.Off, ""},                               // off only from the operator
		{"read-only", "off", sandbox.ReadOnly, ""},                 // a core may still tighten
		{"network", "read-only", sandbox.ReadOnly, ""},             // nothing loosens the operator
		{"workspace-write", "network", sandbox.WorkspaceWrite, ""}, // the core tightens the operator's network
		{"off", "", "", "operator's choice"},
		{"lax", "", "", "agent.yaml sandbox.mode"},
		{"", "lax", "", "--sandbox"},
	} {
		got, err := ResolveMode(c.core, c.operator)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("ResolveMode(%q, %q) = %v, %v; want error %q", c.core, c.operator, got, err, c.err)
			}
			continue
		}
		if err != nil || got != c.want {
			t.Errorf("ResolveMode(%q, %q) = %v, %v; want %v", c.core, c.operator, got, err, c.want)
		}
	}
}

func TestModeForUnaskedIsReadOnly(t *testing.T) {
	for _, m := range []sandbox.Mode{sandbox.ReadOnly, sandbox.WorkspaceWrite, sandbox.Network, sandbox.Off} {
		c := Config{Mode: m}
		if got := c.ModeFor(true); got != sandbox.ReadOnly {
			t.Errorf("unasked under %s: %s, want read-only", m, got)
		}
		if got := c.ModeFor(false); got != m {
			t.Errorf("approved under %s: %s", m, got)
		}
	}
}

func TestCommandPolicy(t *testing.T) {
	ws, home := t.TempDir(), t.TempDir()
	if err := os.Mkdir(filepath.Join(ws, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	// The MCP client's configuration that starts demiurge is held too.
	if err := os.WriteFile(filepath.Join(ws, ".mcp.json"), []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	c := Config{Mode: sandbox.WorkspaceWrite, Helper: "/h", Protected: []string{filepath.Join(ws, "agent.yaml")}}
	p, err := c.CommandPolicy(sandbox.WorkspaceWrite, ws, []string{"HOME=" + home, "PATH=/usr/bin:relative:" + filepath.Join(home, ".ssh")})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{filepath.Join(ws, "agent.yaml"), filepath.Join(ws, ".git", "config"), filepath.Join(ws, ".git", "hooks"), filepath.Join(ws, ".mcp.json")} {
		if !slices.Contains(p.Protected, want) {
			t.Errorf("protected %v lacks %s", p.Protected, want)
		}
	}
	if !slices.Equal(p.ReadOnly, []string{"/usr/bin"}) {
		t.Errorf("read-only PATH dirs %v: want only /usr/bin (no relative, no sensitive)", p.ReadOnly)
	}
	if p.TmpDir != filepath.Join(home, "tmp") || p.Helper != "/h" {
		t.Errorf("tmp %s helper %s", p.TmpDir, p.Helper)
	}
	if _, err := c.CommandPolicy(sandbox.ReadOnly, ws, []string{"PATH=/bin"}); err == nil {
		t.Error("a command without HOME got a policy")
	}
}
