package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"demiurge.dev/host/hostd"
	"demiurge.dev/host/providers/providertest"
)

// TestTTYChatThroughHost is the interactive session on a real terminal
// as a front end of the state's long-lived host, chatting with a
// scripted model on loopback: the answer streams; the model's write is
// asked on this terminal and "s" allows it for the session (/approvals
// lists it, revokes it); its clarify question is
// asked here and the answer reaches the model; a long command's output
// streams and /stop stops the turn, after which the same session goes
// on; a delegated child's cards show marked with it; /usage, /tools,
// /session (new, list, a refused resume), /call, /subagents and /tasks (a background command
// the session started) read the host's state. Beside
// it a one-shot `tools call` on the same state works (in process it
// would find the store held). Then the host is killed with -9 while a
// second session idles: that session says so and exits non-zero.
func TestTTYChatThroughHost(t *testing.T) {
	steps, err := providertest.ParseScript([]byte(`[
  {"text": ["Let me write it."], "tool_calls": [{"id": "toolu_1", "name": "write_file", "args": "{\"path\":\"a.txt\",\"content\":\"one\"}"}]},
  {"text": ["Wrote ", "a.txt."]},
  {"tool_calls": [{"id": "toolu_2", "name": "clarify", "args": "{\"question\":\"Which format?\",\"choices\":[\"json\",\"yaml\"]}"}]},
  {"text": ["Using the chosen format."]},
  {"tool_calls": [{"id": "toolu_3", "name": "terminal", "args": "{\"command\":\"echo $((6*7))-waiting; sleep 60\"}"}]},
  {"text": ["Still here after stop."]},
  {"tool_calls": [{"id": "p1", "name": "delegate_task", "args": "{\"goal\":\"chat child\",\"notify_policy\":\"wait\"}"}]},
  {"for": "\"text\":\"chat child", "tool_calls": [{"id": "c1", "name": "read_file", "args": "{\"path\":\"a.txt\"}"}]},
  {"for": "\"text\":\"chat child", "text": ["child text"]},
  {"text": ["Parent done."]}
]`))
	if err != nil {
		t.Fatal(err)
	}
	srv := providertest.NewServer("anthropic", steps)
	t.Cleanup(srv.Close)
	ws, state := t.TempDir(), t.TempDir()
	t.Cleanup(func() { stopTestHost(state) })
	// One HOME for every front end: the operator's configuration directory
	// under it is a host-shaping option.
	env := []string{"DEMIURGE_HOST=on", "DEMIURGE_HOST_IDLE_EXIT=2m", "ANTHROPIC_API_KEY=sk-ant-test-key-0123456789", "HOME=" + t.TempDir()}
	s := startTTYEnv(t, env, state, ws, "--model", "anthropic:claude-test", "--base-url", srv.URL, "--approve", "allow:terminal")
	s.scr.waitFor(t, "in the host (pid ", 0)
	s.see("chatting with anthropic:claude-test")
	hostPID, running := hostd.Running(state)
	if !running {
		t.Fatal("no host runs for the session's state")
	}

	s.line("write a.txt please")
	s.see("Let me write it.")
	s.see("── write_file")
	s.see("[s]ession")
	s.line("s")
	s.see("Wrote a.txt.")
	if b, _ := os.ReadFile(filepath.Join(ws, "a.txt")); string(b) != "one" {
		t.Fatalf("a.txt = %q", b)
	}

	s.line("ask me something")
	s.see("the agent asks: Which format?")
	s.see("2) yaml")
	s.line("2")
	s.see("Using the chosen format.")
	reqs := srv.Requests()
	if !strings.Contains(string(reqs[len(reqs)-1].Body), "yaml") {
		t.Fatalf("the clarify answer did not reach the model: %s", reqs[len(reqs)-1].Body)
	}

	began := time.Now()
	s.line("run the long thing")
	s.see("42-waiting") // streamed while it runs
	s.keys("/stop\r")
	s.see("turn stopped; the session goes on")
	if el := time.Since(began); el > 30*time.Second {
		t.Fatalf("/stop took %v to stop the turn", el)
	}
	s.line("are you there?")
	s.see("Still here after stop.")

	// A child agent: its tool card shows marked with it, and /subagents
	// (the host's tasks) lists it.
	s.line("delegate something")
	s.see("[child ses_")
	s.see("── read_file")
	s.see("Parent done.")
	s.line("/subagents")
	s.see("chat child")

	s.line("/usage")
	s.see("this session: ")
	s.line("/tools quiet")
	s.see("read_file")
	s.line("/session")
	s.see("session ses_")
	s.line("/approvals")
	s.see("write_file")
	s.see("/approvals revoke N|all")
	s.line("/approvals revoke 1")
	s.see("revoked 1: write_file")
	s.line("/approvals")
	s.see("no session approvals")
	s.line("/session resume ses_nonexistent0000000")
	s.see("no session ses_nonexistent0000000 of yours")
	s.line("/session new")
	s.see("ended")
	s.line("/session list")
	s.see("(current)")
	s.line(`/call read_file {"path":"a.txt"}`)
	s.see("── read_file")
	s.line(`/call terminal {"command":"sleep 30","background":true}`)
	s.see("started in the background")
	s.line("/tasks")
	s.see("running")

	// A second front end on the same state, beside the open session.
	builtin, _ := testPlugins(t)
	one := exec.Command(demiurgeBinary(t), "--state", state, "--plugin-dir", builtin, "--workspace", ws, "tools", "call", "read_file", `{"path":"a.txt"}`)
	one.Env = append(os.Environ(), env...)
	if out, err := one.CombinedOutput(); err != nil || !strings.Contains(string(out), "one") {
		t.Fatalf("a one-shot call beside the session: %v\n%s", err, out)
	}
	if pid, _ := hostd.Running(state); pid != hostPID {
		t.Fatalf("the host changed (%d, was %d)", pid, hostPID)
	}
	s.line("/quit")
	if err := s.waitErr(20 * time.Second); err != nil {
		t.Fatalf("the session ended with %v", err)
	}

	// A host killed with -9 under an idle session: it says so, exits 1.
	s2 := startTTYEnv(t, env, state, ws)
	s2.scr.waitFor(t, "in the host (pid ", 0)
	pid, _ := hostd.Running(state)
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	s2.see(fmt.Sprintf("the host (pid %d) went away", pid))
	if err := s2.waitErr(20 * time.Second); err == nil {
		t.Fatal("the session whose host died exited 0")
	}
}
