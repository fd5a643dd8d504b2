package mcp

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"demiurge.dev/host/dispatch"
	"demiurge.dev/host/sandboxing"
	"demiurge.dev/shared/sandbox"
	"demiurge.dev/shared/sandbox/sandboxtest"
)

// sandboxHelper is the real re-exec helper.
func sandboxHelper(t testing.TB) string { return sandboxtest.Helper(t) }

// A stdio server that opts in starts through the helper: under read-only
// it cannot write the workspace (its PID_AT write fails quietly) and
// still answers initialize and tools/list; workspace-write writes the
// workspace but not outside it; the session's mode tightens the
// manifest's; no key, or the operator's off, runs it as before.
func TestStdioServerOptsIntoTheSandbox(t *testing.T) {
	helper := sandboxHelper(t)
	tests := []struct {
		name, key string
		session   sandbox.Mode
		outside   bool // the pid file lies outside the workspace
		written   bool
	}{
		{"read-only", "sandbox: read-only\n", sandbox.WorkspaceWrite, false, false},
		{"workspace-write", "sandbox: workspace-write\n", sandbox.WorkspaceWrite, false, true},
		{"workspace-write outside the workspace", "sandbox: workspace-write\n", sandbox.WorkspaceWrite, true, false},
		{"the session tightens", "sandbox: workspace-write\n", sandbox.ReadOnly, false, false},
		{"not opted in", "", sandbox.ReadOnly, true, true},
		{"operator off", "sandbox: read-only\n", sandbox.Off, true, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t, func(c *Config) {
				c.Sandbox = sandboxing.Config{Mode: tt.session, Helper: helper}
			})
			dir := f.ws.Root
			if tt.outside {
				dir = t.TempDir()
			}
			pidFile := filepath.Join(dir, "server.pid")
			f.scripted("boxed", "", "PID_AT: "+pidFile, tt.key)
			f.ask.allow(ConnectTool("boxed"))
			st := state(t, f.resolve(), "boxed")
			if st.Status != StatusConnected || strings.Join(st.Tools, ",") != "boxed__t" {
				t.Fatalf("state = %+v, want connected with its tool t", st)
			}
			if _, err := os.Stat(pidFile); (err == nil) != tt.written {
				t.Errorf("pid file written = %v, want %v", err == nil, tt.written)
			}
		})
	}
}

// A server that asked for a sandbox never runs without one: no sandbox
// configured, or a helper that is missing, fails the connection.
func TestStdioServerSandboxFailsClosed(t *testing.T) {
	for _, tt := range []struct {
		name string
		cfg  sandboxing.Config
		want string
	}{
		{"none configured", sandboxing.Config{}, "none is configured"},
		{"no helper", sandboxing.Config{Mode: sandbox.WorkspaceWrite}, "the sandbox helper demiurge-sandbox is missing"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t, func(c *Config) { c.Sandbox = tt.cfg })
			pidFile := filepath.Join(f.ws.Root, "server.pid")
			f.scripted("boxed", "", "PID_AT: "+pidFile, "sandbox: read-only\n")
			f.ask.allow(ConnectTool("boxed"))
			st := state(t, f.resolve(), "boxed")
			if st.Status != StatusFailed || !strings.Contains(st.Diagnostic, tt.want) {
				t.Errorf("state = %+v, want failed saying %q", st, tt.want)
			}
			if _, err := os.Stat(pidFile); err == nil {
				t.Error("the server ran")
			}
		})
	}
}

// A read-only sandboxed server still answers calls.
func TestSandboxedServerAnswersCalls(t *testing.T) {
	helper := sandboxHelper(t)
	f := newFixture(t, func(c *Config) {
		c.Sandbox = sandboxing.Config{Mode: sandbox.WorkspaceWrite, Helper: helper}
	})
	f.server("echo", "echo", "sandbox: read-only\n")
	f.ask.allow(ConnectTool("echo"))
	turn := f.dispatchTurn(f.resolve(), "echo__echo")
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	out := turn.Call(ctx, dispatch.ToolCall{ID: "c1", Name: "echo__echo", Args: []byte(`{"text":"hello from the box"}`)})
	if !out.OK() || !strings.Contains(unwrapped(out.Views.Model.String()), "hello from the box") {
		t.Fatalf("%s %q", out.Status, unwrapped(out.Views.Model.String()))
	}
}

// Under workspace-write a server still cannot change .git/config (nor
// .git/hooks), which later runs unsandboxed in git, nor the rest of what
// every sandboxed program finds held (sandboxing.WorkspaceProtected): an
// MCP or ACP client's configuration and a file the repository's
// configuration includes (stop 50: the server's policy held git's fixed
// paths only).
func TestSandboxedServerKeepsGitAndClientConfiguration(t *testing.T) {
	helper := sandboxHelper(t)
	for _, target := range []string{".git/config", ".mcp.json", ".claude/settings.local.json", ".gitconfig"} {
		t.Run(target, func(t *testing.T) {
			f := newFixture(t, func(c *Config) {
				c.Sandbox = sandboxing.Config{Mode: sandbox.WorkspaceWrite, Helper: helper}
			})
			files := map[string]string{".git/config": "[include]\n\tpath = ../.gitconfig\n", ".mcp.json": "{}\n", ".gitconfig": "[user]\n\tname = op\n"}
			for rel, body := range files {
				p := filepath.Join(f.ws.Root, rel)
				if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			if err := os.MkdirAll(filepath.Join(f.ws.Root, ".claude"), 0o755); err != nil {
				t.Fatal(err)
			}
			path := filepath.Join(f.ws.Root, target)
			f.scripted("boxed", "", "PID_AT: "+path, "sandbox: workspace-write\n")
			f.ask.allow(ConnectTool("boxed"))
			if st := state(t, f.resolve(), "boxed"); st.Status != StatusConnected {
				t.Fatalf("state = %+v", st)
			}
			b, err := os.ReadFile(path)
			if want, ok := files[target]; ok && string(b) != want || !ok && err == nil {
				t.Errorf("%s = %q (%v): the sandboxed server wrote it", target, b, err)
			}
		})
	}
}
