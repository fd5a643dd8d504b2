package main

import (
	"strings"
	"testing"
	"time"

	"demiurge.dev/host/providers/providertest"
)

// TestTTYChatFullDisplayShowsOutputOnce: with --tool-display full, a
// command the model runs streams its output once; the full result that
// follows says "(shown above)" instead of printing it again.
func TestTTYChatFullDisplayShowsOutputOnce(t *testing.T) {
	steps, err := providertest.ParseScript([]byte(`[
  {"tool_calls": [{"id": "toolu_1", "name": "terminal", "args": "{\"command\":\"echo marker-$((6*7))\"}"}]},
  {"text": ["Done."]}
]`))
	if err != nil {
		t.Fatal(err)
	}
	srv := providertest.NewServer("anthropic", steps)
	t.Cleanup(srv.Close)
	t.Setenv("ANTHROPIC_API_KEY", "sk-ant-test-key-0123456789")
	s := startTTY(t, t.TempDir(), t.TempDir(), "--model", "anthropic:claude-test", "--base-url", srv.URL,
		"--approve", "allow:terminal", "--tool-display", "full")
	s.see("chatting with anthropic:claude-test")
	from := s.at
	s.line("run it")
	s.see("(shown above)")
	s.see("Done.")
	if n := strings.Count(s.since(from), "marker-42"); n != 1 {
		t.Fatalf("the output was shown %d times, want once:\n%s", n, s.since(from))
	}
	s.line("/quit")
	s.waitExit(20 * time.Second)
}
