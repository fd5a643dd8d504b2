package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"demiurge.dev/host/mcp/mcptest"
)

// TestTTYCallAndToolsThroughHost: in the interactive session through the
// long-lived host, /call shows the tool's output as it comes (before its
// card, which leaves out what already streamed), as the in-process /call
// does; and /tools shows the session's own catalog, resolved with this
// front end's --approve (its MCP server connected), not a fresh session's
// under the host's own rules, where that server is not approved.
func TestTTYCallAndToolsThroughHost(t *testing.T) {
	bins, err := mcptest.BuildServers()
	if err != nil {
		t.Fatal(err)
	}
	ws, state := t.TempDir(), t.TempDir()
	t.Cleanup(func() { stopTestHost(state) })
	core := filepath.Join(ws, "core")
	files := map[string]string{
		"agent.yaml":          "toolsets: [coding]\nslots:\n  mcp: agent/mcp\ncapabilities: [fs.read, terminal.exec, \"mcp.connect:*\", \"mcp.call:*\"]\n",
		"agent/mcp/docs.yaml": "command: " + filepath.Join(bins, "echo") + "\n",
	}
	for name, body := range files {
		p := filepath.Join(core, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	env := []string{"DEMIURGE_HOST=on", "DEMIURGE_HOST_IDLE_EXIT=2m"}
	s := startTTYEnv(t, env, state, ws, "--core", core, "--approve", "allow:terminal", "--approve", "allow:mcp_connect__docs", "--approve", "allow:docs__echo")
	s.scr.waitFor(t, "in the host (pid ", 0)

	start := s.at
	s.line(`/call terminal {"command":"echo first-$((2*3)); sleep 4; echo second-$((3*3))"}`)
	s.see("first-6")
	time.Sleep(300 * time.Millisecond)
	if seen := s.since(start); strings.Contains(seen, "second-9") || strings.Contains(seen, "── terminal") {
		t.Fatalf("the output was not shown while the call ran:\n%s", seen)
	}
	s.see("second-9")
	s.see("── terminal")
	s.see("> ")
	if n := strings.Count(s.since(start), "first-6"); n != 1 {
		t.Fatalf("the streamed output shows %d times (the card repeats it?):\n%s", n, s.since(start))
	}

	s.line("/tools quiet")
	s.see("docs__echo")
	s.line(`/call docs__echo {"text":"through the session"}`)
	s.see("── docs__echo")
	s.see("through the session")
	s.line("/quit")
	if err := s.waitErr(20 * time.Second); err != nil {
		t.Fatalf("/quit: %v\n%s", err, s.since(start))
	}
}
