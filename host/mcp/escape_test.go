package mcp

import (
	"bufio"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"demiurge.dev/host/dispatch"
	"demiurge.dev/host/plugins/plugintest"
	"demiurge.dev/host/sandboxing"
	"demiurge.dev/shared/sandbox"
)

// escapees connects the echo server with ESCAPE_CHILDREN, which starts two
// sleeps in sessions of their own: a child, and a daemon whose parent has
// exited. It returns their marker (the sleeps' argument), once both run.
func escapees(t *testing.T, f *fixture, manifest string) string {
	t.Helper()
	marker := fmt.Sprintf("%d.%04d", 400+rand.IntN(500), rand.IntN(10000))
	f.server("echo", "echo", "env: {ESCAPE_CHILDREN: \""+marker+"\"}\n"+manifest)
	f.ask.allow(ConnectTool("echo"))
	r := f.resolve()
	turn := f.dispatchTurn(r, "echo__escapees")
	out := turn.Call(context.Background(), dispatch.ToolCall{Name: "echo__escapees", Args: []byte(`{}`)})
	if n := len(strings.Fields(unwrapped(out.Views.Model.String()))); n != 2 {
		t.Fatalf("escapees: %q", out.Views.Model.String())
	}
	// The daemon's pid is printed by the shell that forked it, maybe before
	// it has exec'd: a process's command line reads as empty while it execs
	// (seen once under load in CI, stop 57), so it is waited for.
	plugintest.WaitFor(t, 15*time.Second, "the two escapees with marker "+marker, func() bool {
		return len(plugintest.ProcessesWith(marker)) == 2
	})
	return marker
}

// killAll ends the processes left with marker, for a failed test.
func killAll(marker string) {
	for _, p := range plugintest.ProcessesWith(marker) {
		if pid, err := strconv.Atoi(p); err == nil {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
	}
}

// TestClosingAServerEndsWhatLeftItsGroup: a stdio server's processes that
// called setsid(2), and so left the process group the host kills, end
// when the host closes the server: a child of the server, and a daemon
// (an orphan of a parent that exited). Unsandboxed the helper's guard
// ends them; sandboxed, the end of the pid namespace does.
func TestClosingAServerEndsWhatLeftItsGroup(t *testing.T) {
	helper := sandboxHelper(t)
	cases := []struct {
		name     string
		manifest string
		mode     sandbox.Mode
	}{
		{"no sandbox configured", "", ""},
		{"operator off", "sandbox: workspace-write\n", sandbox.Off},
		{"sandboxed", "sandbox: workspace-write\n", sandbox.WorkspaceWrite},
	}
	for _, tt := range cases {
		t.Run(tt.name, func(t *testing.T) {
			cfg := sandboxing.Config{Mode: tt.mode, Helper: helper}
			if tt.mode == sandbox.WorkspaceWrite {
				if miss := cfg.Unenforceable(tt.mode); miss != "" {
					t.Skip("the kernel lacks " + miss)
				}
			}
			f := newFixture(t, func(c *Config) { c.Sandbox = cfg })
			marker := escapees(t, f, tt.manifest)
			defer killAll(marker)
			f.pool.Close()
			plugintest.WaitFor(t, 15*time.Second, "the escapees to end with their closed server", func() bool {
				return len(plugintest.ProcessesWith(marker)) == 0
			})
		})
	}
}

// TestHelperHostOfEscapees is not a test: run by TestNoEscapeeOutlivesHost
// in a child process, it is a host that connects the echo server with
// escapees, prints their marker, and waits to be killed.
func TestHelperHostOfEscapees(t *testing.T) {
	if os.Getenv("DEMIURGE_MCP_HELPER_HOST") != "escapees" {
		t.Skip("helper process for TestNoEscapeeOutlivesHost")
	}
	f := newFixture(t, func(c *Config) { c.Sandbox = sandboxing.Config{Helper: sandboxHelper(t)} })
	os.Stdout.WriteString("MARKER " + escapees(t, f, "") + "\n")
	time.Sleep(time.Minute)
}

// TestNoEscapeeOutlivesHost: when the host dies without closing anything
// (SIGKILL), the guard's Pdeathsig has it end the server's escapees too.
func TestNoEscapeeOutlivesHost(t *testing.T) {
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperHostOfEscapees$", "-test.v")
	cmd.Env = append(os.Environ(), "DEMIURGE_MCP_HELPER_HOST=escapees")
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	markers := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			if m, ok := strings.CutPrefix(sc.Text(), "MARKER "); ok {
				markers <- m
				return
			}
		}
		close(markers)
	}()
	var marker string
	select {
	case marker = <-markers:
	case <-time.After(60 * time.Second):
		t.Fatal("the helper host never connected its server")
	}
	if marker == "" {
		t.Fatal("the helper host ended without connecting its server")
	}
	defer killAll(marker)
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	plugintest.WaitFor(t, 15*time.Second, "the escapees to end with their host", func() bool {
		return len(plugintest.ProcessesWith(marker)) == 0
	})
}
