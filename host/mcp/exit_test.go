package mcp

import (
	"bufio"
	"context"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"demiurge.dev/host/dispatch"
)

// TestHelperHost is not a test: run by TestNoServerOutlivesHost in a child
// process, it is a host that connects an echo server (which starts a child
// of its own), prints both pids, and waits to be killed.
func TestHelperHost(t *testing.T) {
	if os.Getenv("DEMIURGE_MCP_HELPER_HOST") != "1" {
		t.Skip("helper process for TestNoServerOutlivesHost")
	}
	f := newFixture(t)
	f.server("echo", "echo", "env: {SPAWN_CHILD: \"1\"}\n")
	f.ask.allow(ConnectTool("echo"))
	r := f.resolve()
	turn := f.dispatchTurn(r, "echo__pids")
	out := turn.Call(context.Background(), dispatch.ToolCall{Name: "echo__pids", Args: []byte(`{}`)})
	os.Stdout.WriteString("PIDS " + unwrapped(out.Views.Model.String()) + "\n")
	time.Sleep(time.Minute)
}

// TestNoServerOutlivesHost: when the host dies without closing anything
// (SIGKILL), its stdio servers and their children die with it.
func TestNoServerOutlivesHost(t *testing.T) {
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperHost$", "-test.v")
	cmd.Env = append(os.Environ(), "DEMIURGE_MCP_HELPER_HOST=1")
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	pids := make(chan []int, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			if rest, ok := strings.CutPrefix(sc.Text(), "PIDS "); ok {
				var out []int
				for _, f := range strings.Fields(rest) {
					n, _ := strconv.Atoi(f)
					out = append(out, n)
				}
				pids <- out
				return
			}
		}
		close(pids)
	}()
	var got []int
	select {
	case got = <-pids:
	case <-time.After(60 * time.Second):
		t.Fatal("the helper host never connected its server")
	}
	if len(got) != 3 || got[0] == 0 || got[2] == 0 {
		t.Fatalf("pids %v", got)
	}
	server, child := got[0], got[2]
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	if !processGone(server) {
		t.Fatalf("server %d outlived its host", server)
	}
	// The server's own child goes with it: the guard kills the group.
	if !processGone(child) {
		syscall.Kill(child, syscall.SIGKILL)
		t.Fatalf("the server's child %d outlived the host", child)
	}
}

// TestServerExitTakesItsChildren: a server that exits on its own (as one
// does when its stdin ends because the host died) takes the processes it
// started with it, whoever notices first.
func TestServerExitTakesItsChildren(t *testing.T) {
	f := newFixture(t)
	f.server("echo", "echo", "env: {SPAWN_CHILD: \"1\", EXIT_TOOL: \"1\"}\n")
	f.ask.allow(ConnectTool("echo"))
	r := f.resolve()
	turn := f.dispatchTurn(r, "echo__pids", "echo__exit")
	out := turn.Call(context.Background(), dispatch.ToolCall{Name: "echo__pids", Args: []byte(`{}`)})
	fields := strings.Fields(unwrapped(out.Views.Model.String()))
	if len(fields) != 3 {
		t.Fatalf("pids: %q", unwrapped(out.Views.Model.String()))
	}
	child, _ := strconv.Atoi(fields[2])
	turn.Call(context.Background(), dispatch.ToolCall{Name: "echo__exit", Args: []byte(`{}`)})
	if !processGone(child) {
		syscall.Kill(child, syscall.SIGKILL)
		t.Fatalf("the server's child %d outlived the server", child)
	}
}
