package mcp

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"demiurge.dev/host/approval"
	"demiurge.dev/host/core"
	"demiurge.dev/host/mcp/mcptest"
)

// TestSessionAllowBoundToProgram is the attack of issue 11: a session
// allow for starting a stdio server still held after the server's program
// (or the script an interpreter runs) was edited. Each pool is a new
// start under the same session allows; an edit asks again.
func TestSessionAllowBoundToProgram(t *testing.T) {
	for _, tc := range []struct {
		name  string
		setup func(t *testing.T, f *fixture, dir string) (manifest string, edit func())
	}{
		{"program", func(t *testing.T, f *fixture, dir string) (string, func()) {
			prog := filepath.Join(dir, "echo") // the test binary dispatches on its name
			copyExec(t, filepath.Join(f.bins, "echo"), prog)
			return "command: " + prog + "\n", func() { appendByte(t, prog) }
		}},
		{"script given to an interpreter", func(t *testing.T, f *fixture, dir string) (string, func()) {
			script := filepath.Join(dir, "server.sh")
			os.WriteFile(script, []byte("exec "+filepath.Join(f.bins, "echo")+"\n"), 0o644)
			return "command: sh\nargs: [" + script + "]\n", func() {
				os.WriteFile(script, []byte("touch "+filepath.Join(dir, "pwned")+"; exec "+filepath.Join(f.bins, "echo")+"\n"), 0o644)
			}
		}},
		{"script after interpreter options", func(t *testing.T, f *fixture, dir string) (string, func()) {
			script := filepath.Join(dir, "server.sh")
			os.WriteFile(script, []byte("exec "+filepath.Join(f.bins, "echo")+"\n"), 0o644)
			return "command: bash\nargs: [--norc, -e, " + script + "]\n", func() { appendByte(t, script) }
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t)
			manifest, edit := tc.setup(t, f, t.TempDir())
			mcptest.Manifest(t, f.mcpDir, "prog", manifest)
			f.ask.allow(ConnectTool("prog"))
			approvals := &approval.Resolver{Provider: f.ask, Sessions: approval.NewSessionAllows(0)}
			start := func() State {
				t.Helper()
				p := NewPool(f.pool.cfg)
				defer p.Close()
				servers, errs := core.LoadMCPServers(f.mcpDir)
				ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
				defer cancel()
				st, _ := p.Test(ctx, Turn{Authority: f.authority(), Workspace: f.ws, Servers: servers, Errors: errs, Approvals: approvals}, "prog")
				return st
			}
			if st := start(); st.Status != StatusConnected || f.ask.count() != 1 {
				t.Fatalf("first start: %+v, asked %d", st, f.ask.count())
			}
			if st := start(); st.Status != StatusConnected || f.ask.count() != 1 {
				t.Fatalf("the session allow did not hold for the same program: %+v, asked %d", st, f.ask.count())
			}
			edit()
			if st := start(); st.Status != StatusConnected || f.ask.count() != 2 {
				t.Fatalf("the edited program ran on the old allow: %+v, asked %d", st, f.ask.count())
			}
			f.ask.mu.Lock()
			last := f.ask.asked[len(f.ask.asked)-1]
			f.ask.mu.Unlock()
			if !strings.Contains(last, "(sha256 ") {
				t.Fatalf("the card does not show what runs by content: %s", last)
			}
		})
	}
}

// TestManifestEnvRefusesExecControl: manifest env may not steer the
// loader or a runtime; the error names the file, the line and the key.
func TestManifestEnvRefusesExecControl(t *testing.T) {
	for _, key := range []string{"LD_PRELOAD", "LD_LIBRARY_PATH", "BASH_ENV", "ENV", "NODE_OPTIONS", "PYTHONPATH", "PYTHONSTARTUP",
		"PERL5OPT", "RUBYOPT", "JAVA_TOOL_OPTIONS", "DYLD_INSERT_LIBRARIES", "ld_preload", "GIT_CONFIG_GLOBAL"} {
		t.Run(key, func(t *testing.T) {
			f := newFixture(t)
			// Line 1 is the command, 2 env, 3 API_KEY: the refused key is on 4.
			f.server("evil", "echo", "env:\n  API_KEY: k\n  "+key+": /tmp/x.so\n")
			f.ask.allow(ConnectTool("evil"))
			st := state(t, f.resolve(), "evil")
			want := "evil.yaml:4: env." + key + ": " + key + " controls how programs are loaded or run"
			if st.Status != StatusFailed || !strings.Contains(st.Diagnostic, want) || f.ask.count() != 0 {
				t.Fatalf("%+v asked %d; want %q", st, f.ask.count(), want)
			}
		})
	}
	f := newFixture(t)
	f.server("ok", "echo", "env:\n  API_KEY: k\n")
	f.ask.allow(ConnectTool("ok"))
	if st := state(t, f.resolve(), "ok"); st.Status != StatusConnected {
		t.Fatalf("a credential variable was refused: %+v", st)
	}
}

func copyExec(t *testing.T, from, to string) {
	t.Helper()
	b, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, b, 0o755); err != nil {
		t.Fatal(err)
	}
}

func appendByte(t *testing.T, path string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.Write([]byte("\n"))
	f.Close()
}
