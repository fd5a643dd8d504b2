package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"demiurge.dev/host/providers/providertest"
)

// chatOnTTY is a session on a real terminal with workspace ws, chatting
// with a scripted Anthropic model on loopback; terminal calls are allowed.
func chatOnTTY(t *testing.T, steps []providertest.Step, ws string) (*ttySession, *providertest.Server) {
	t.Helper()
	srv := providertest.NewServer("anthropic", steps)
	t.Cleanup(srv.Close)
	t.Setenv("ANTHROPIC_API_KEY", "sk-ant-test-key-0123456789")
	s := startTTY(t, t.TempDir(), ws, "--model", "anthropic:claude-test", "--base-url", srv.URL, "--approve", "allow:terminal")
	s.see("chatting with anthropic:claude-test")
	return s, srv
}

// TestTTYChat is a conversation on a real terminal against a scripted
// model on loopback: the answer streams, the model's write asks inline,
// a typo there is asked again, "o" allows it; a long command is stopped
// with /stop and then with Ctrl-C, and after each the same session
// answers the next message.
func TestTTYChat(t *testing.T) {
	steps, err := providertest.ParseScript([]byte(`[
  {"text": ["Let me write it."], "tool_calls": [{"id": "toolu_1", "name": "write_file", "args": "{\"path\":\"a.txt\",\"content\":\"one\"}"}]},
  {"text": ["Wrote ", "a.txt."]},
  {"tool_calls": [{"id": "toolu_2", "name": "terminal", "args": "{\"command\":\"echo $((6*7))-waiting; sleep 60\"}"}]},
  {"text": ["Still here after stop."]},
  {"tool_calls": [{"id": "toolu_3", "name": "terminal", "args": "{\"command\":\"echo $((7*7))-waiting; sleep 60\"}"}]},
  {"text": ["Still here after Ctrl-C."]}
]`))
	if err != nil {
		t.Fatal(err)
	}
	ws := t.TempDir()
	s, _ := chatOnTTY(t, steps, ws)

	s.line("write a.txt please")
	s.see("Let me write it.")
	s.see("── write_file")
	s.see("[s]ession")
	s.line("sure")
	s.see(`unrecognised answer "sure"`)
	s.see("[s]ession")
	s.line("o")
	s.see("Wrote a.txt.")
	if b, _ := os.ReadFile(filepath.Join(ws, "a.txt")); string(b) != "one" {
		t.Fatalf("a.txt = %q", b)
	}

	for i, stop := range []string{"/stop\r", "\x03"} {
		began := time.Now()
		s.line("run the long thing")
		s.see([]string{"42-waiting", "49-waiting"}[i]) // streamed while it runs
		s.keys(stop)
		s.see("turn stopped; the session goes on")
		if el := time.Since(began); el > 30*time.Second {
			t.Fatalf("%q took %v to stop the turn", stop, el)
		}
		s.line("are you there?")
		s.see([]string{"Still here after stop.", "Still here after Ctrl-C."}[i])
	}
	s.line("/quit")
	s.waitExit(20 * time.Second)
}

// TestTTYQueuedLine: a line typed while a turn runs is queued and sent
// as the next message once the turn ends; stopping the turn drops what
// was queued (the model is never sent it) and says so.
func TestTTYQueuedLine(t *testing.T) {
	steps, err := providertest.ParseScript([]byte(`[
  {"tool_calls": [{"id": "toolu_1", "name": "terminal", "args": "{\"command\":\"echo $((6*7))-waiting; sleep 2\"}"}]},
  {"text": ["Done sleeping."]},
  {"text": ["Queued one answered."]},
  {"tool_calls": [{"id": "toolu_2", "name": "terminal", "args": "{\"command\":\"echo $((7*7))-waiting; sleep 60\"}"}]},
  {"text": ["Still here."]}
]`))
	if err != nil {
		t.Fatal(err)
	}
	s, srv := chatOnTTY(t, steps, t.TempDir())

	s.line("run it")
	s.see("42-waiting")
	s.line("and then this")
	s.see("queued: it runs when the running turn ends")
	s.see("Done sleeping.")
	s.see("Queued one answered.")

	s.line("the long one")
	s.see("49-waiting")
	s.line("never sent")
	s.see("queued:")
	s.keys("/stop\r")
	s.see("1 queued line(s) not run")
	s.see("turn stopped; the session goes on")
	s.line("are you there?")
	s.see("Still here.")
	s.line("/quit")
	s.waitExit(20 * time.Second)
	reqs := srv.Requests()
	if len(reqs) != 5 {
		t.Fatalf("the model was sent %d requests, want 5", len(reqs))
	}
	for _, r := range reqs {
		if strings.Contains(string(r.Body), "never sent") {
			t.Fatalf("a line queued before /stop reached the model: %s", r.Body)
		}
	}
	if !strings.Contains(string(reqs[2].Body), "and then this") {
		t.Fatalf("the queued line was not the third request: %s", reqs[2].Body)
	}
}
