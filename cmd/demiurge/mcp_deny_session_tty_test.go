package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"demiurge.dev/host/mcp/mcptest"
)

// TestTTYConnectDeniedForSession: on a terminal, a /call of an MCP
// server's tool asks to connect only that server; the answer "n" (never
// in this session) refuses it, and the next /call of it in the session is
// refused without a question, saying why. The unrelated server is never
// asked about or started.
func TestTTYConnectDeniedForSession(t *testing.T) {
	bins, err := mcptest.BuildServers()
	if err != nil {
		t.Fatal(err)
	}
	ws, coreDir := t.TempDir(), t.TempDir()
	files := map[string]string{
		"agent.yaml":           "toolsets: [coding]\nslots:\n  mcp: agent/mcp\ncapabilities: [fs.read, \"mcp.connect:*\", \"mcp.call:*\"]\n",
		"agent/mcp/docs.yaml":  "command: " + filepath.Join(bins, "echo") + "\n",
		"agent/mcp/other.yaml": "command: /bin/sh\nargs: [-c, \"touch " + filepath.Join(ws, "other-started") + "; exec " + filepath.Join(bins, "echo") + "\"]\n",
	}
	for name, body := range files {
		p := filepath.Join(coreDir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	s := startTTY(t, t.TempDir(), ws, "--core", coreDir)

	s.line(`/call docs__echo {"text":"hi"}`)
	s.see("approval needed: mcp_connect__docs")
	// The launch metadata prints as lines, not as one long line.
	s.see("  preview\r\n    server: docs (")
	s.see("\r\n    transport: stdio\r\n    command: ")
	s.see("[n]ever in this session")
	s.line("n")
	s.see("MCP server docs is not connected: connect was denied for this session by the operator at the terminal")
	s.see("unknown tool")

	s.line(`/call docs__echo {"text":"again"}`)
	s.see("connect was denied for this session")
	s.see("unknown tool")
	s.line("/quit")
	s.waitExit(10 * time.Second)

	// Asked once in all: the second /call did not ask again.
	s.scr.mu <- struct{}{}
	text := s.scr.buf.String()
	<-s.scr.mu
	if n := strings.Count(text, "approval needed: mcp_connect__docs"); n != 1 {
		t.Fatalf("the connect of docs was asked %d times, want once:\n%s", n, text)
	}
	if strings.Contains(text, "mcp_connect__other") || strings.Contains(text, "MCP server other") {
		t.Fatalf("an unrelated server was asked about:\n%s", text)
	}
	if _, err := os.Stat(filepath.Join(ws, "other-started")); err == nil {
		t.Fatal("an unrelated server was started")
	}
}
