package mcp

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"demiurge.dev/host/dispatch"
	"demiurge.dev/host/mcp/mcptest"
	"demiurge.dev/shared/netpolicy"
)

// TestEverythingStdio: the npm reference server over stdio: its tools
// under everything__, a call through dispatch, and its view of its
// environment (the allowlisted one).
func TestEverythingStdio(t *testing.T) {
	nm := mcptest.NodeModules(t)
	t.Setenv("DEMIURGE_TEST_HOST_SECRET", "host-secret-value")
	f := newFixture(t)
	mcptest.Manifest(t, f.mcpDir, "everything", fmt.Sprintf("command: node\nargs: [%q, stdio]\nconnect_timeout_seconds: 60\nenv: {EVERYTHING_KEY: ev-secret-4242}\n", mcptest.EverythingScript(nm)))
	f.ask.allow(ConnectTool("everything"))
	r := f.resolve()
	st := state(t, r, "everything")
	if st.Status != StatusConnected {
		t.Fatalf("%+v", st)
	}
	for _, want := range []string{"everything__echo", "everything__get-sum", "everything__get-env"} {
		if !slices.Contains(st.Tools, want) {
			t.Errorf("no %s in %v", want, st.Tools)
		}
	}
	turn := f.dispatchTurn(r, "everything__echo", "everything__get-sum", "everything__get-env")
	out := turn.Call(context.Background(), dispatch.ToolCall{Name: "everything__echo", Args: []byte(`{"message":"hi there"}`)})
	if !out.OK() || unwrapped(out.Views.Model.String()) != "Echo: hi there" {
		t.Fatalf("%s %q", out.Status, unwrapped(out.Views.Model.String()))
	}
	out = turn.Call(context.Background(), dispatch.ToolCall{Name: "everything__get-sum", Args: []byte(`{"a":2,"b":"3"}`)})
	if !out.OK() || !strings.Contains(unwrapped(out.Views.Model.String()), "5") {
		t.Fatalf("%s %q", out.Status, unwrapped(out.Views.Model.String()))
	}
	out = turn.Call(context.Background(), dispatch.ToolCall{Name: "everything__get-env", Args: []byte(`{}`)})
	if !out.OK() || strings.Contains(unwrapped(out.Views.Model.String()), "host-secret-value") || strings.Contains(unwrapped(out.Views.Model.String()), "ev-secret-4242") ||
		!strings.Contains(unwrapped(out.Views.Model.String()), "EVERYTHING_KEY") {
		t.Fatalf("%s %q", out.Status, unwrapped(out.Views.Model.String()))
	}
}

// TestFilesystemStdio: the npm filesystem server, confined by its own
// argument to the workspace, lists it through dispatch.
func TestFilesystemStdio(t *testing.T) {
	nm := mcptest.NodeModules(t)
	f := newFixture(t)
	if err := os.WriteFile(filepath.Join(f.ws.Root, "notes.md"), []byte("hello\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	mcptest.Manifest(t, f.mcpDir, "fs", fmt.Sprintf("command: node\nargs: [%q, %q]\nconnect_timeout_seconds: 60\ntools: {include: [list_directory, read_text_file, write_file], exclude: [write_file]}\n", mcptest.FilesystemScript(nm), f.ws.Root))
	f.ask.allow(ConnectTool("fs"))
	r := f.resolve()
	st := state(t, r, "fs")
	if st.Status != StatusConnected || !slices.Equal(st.Tools, []string{"fs__read_text_file", "fs__list_directory"}) && !slices.Equal(st.Tools, []string{"fs__list_directory", "fs__read_text_file"}) {
		t.Fatalf("%+v", st)
	}
	turn := f.dispatchTurn(r, "fs__list_directory", "fs__read_text_file")
	out := turn.Call(context.Background(), dispatch.ToolCall{Name: "fs__list_directory", Args: []byte(fmt.Sprintf(`{"path":%q}`, f.ws.Root))})
	if !out.OK() || !strings.Contains(unwrapped(out.Views.Model.String()), "notes.md") {
		t.Fatalf("%s %q", out.Status, unwrapped(out.Views.Model.String()))
	}
	out = turn.Call(context.Background(), dispatch.ToolCall{Name: "fs__read_text_file", Args: []byte(`{"path":"/etc/passwd"}`)})
	if out.Status != dispatch.StatusToolError {
		t.Fatalf("the server read outside its root: %s %q", out.Status, unwrapped(out.Views.Model.String()))
	}
}

// TestEverythingHTTP: the npm reference server over streamable HTTP on a
// loopback port, through the URL policy's test-only loopback hook.
func TestEverythingHTTP(t *testing.T) {
	nm := mcptest.NodeModules(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	cmd := exec.Command("node", mcptest.EverythingScript(nm), "streamableHttp")
	cmd.Env = append(os.Environ(), fmt.Sprintf("PORT=%d", port))
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	ready := make(chan bool, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			if strings.Contains(sc.Text(), "listening on port") {
				ready <- true
			}
		}
	}()
	select {
	case <-ready:
	case <-time.After(60 * time.Second):
		t.Fatal("server-everything did not start")
	}
	var dec decisions
	f := newFixture(t, func(c *Config) {
		c.Net = netpolicy.Options{AllowLoopbackForTests: true}
		c.OnURLDecision = dec.add
	})
	mcptest.Manifest(t, f.mcpDir, "ev", fmt.Sprintf("url: http://127.0.0.1:%d/mcp\nconnect_timeout_seconds: 30\n", port))
	f.ask.allow(ConnectTool("ev"))
	r := f.resolve()
	st := state(t, r, "ev")
	if st.Status != StatusConnected || !slices.Contains(st.Tools, "ev__echo") {
		t.Fatalf("%+v", st)
	}
	turn := f.dispatchTurn(r, "ev__echo")
	out := turn.Call(context.Background(), dispatch.ToolCall{Name: "ev__echo", Args: []byte(`{"message":"over http"}`)})
	if !out.OK() || unwrapped(out.Views.Model.String()) != "Echo: over http" {
		t.Fatalf("%s %q", out.Status, unwrapped(out.Views.Model.String()))
	}
	if len(dec.all()) == 0 {
		t.Fatal("no URL decisions")
	}
}
