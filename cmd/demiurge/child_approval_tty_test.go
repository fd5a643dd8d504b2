package main

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"demiurge.dev/host/providers/providertest"
)

// TestTTYChildApprovalAnsweredOnTheTerminal: a child agent's write asks
// the root session's front end, a real terminal, naming the child; the
// operator's "o" there lets the child's write run, and the parent gets
// the child's answer.
func TestTTYChildApprovalAnsweredOnTheTerminal(t *testing.T) {
	steps, err := providertest.ParseScript([]byte(`[
  {"tool_calls": [{"id": "p1", "name": "delegate_task", "args": "{\"goal\":\"write x.txt\",\"tools\":[\"write_file\"],\"notify_policy\":\"wait\"}"}]},
  {"for": "\"text\":\"write x.txt", "tool_calls": [{"id": "c1", "name": "write_file", "args": "{\"path\":\"x.txt\",\"content\":\"hi\"}"}]},
  {"for": "\"text\":\"write x.txt", "text": ["I wrote it."]},
  {"text": ["The child wrote x.txt."]}
]`))
	if err != nil {
		t.Fatal(err)
	}
	ws := t.TempDir()
	s, srv := chatOnTTY(t, steps, ws)

	s.line("delegate the write")
	s.see("approval needed")
	s.see("asked by child agent ses_")
	s.see("(depth 1), goal: write x.txt")
	s.see("+hi")
	s.see("[s]ession")
	if _, err := os.Stat(filepath.Join(ws, "x.txt")); err == nil {
		t.Fatal("the child wrote before the operator answered")
	}
	s.line("o")
	s.see("The child wrote x.txt.")
	s.line("/quit")
	s.waitExit(20 * time.Second)
	if b, err := os.ReadFile(filepath.Join(ws, "x.txt")); err != nil || string(b) != "hi" {
		t.Fatalf("x.txt = %q, %v", b, err)
	}
	if n := srv.Remaining(); n != 0 {
		t.Fatalf("%d scripted steps left", n)
	}
}
