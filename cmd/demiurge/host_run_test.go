package main

import (
	"bufio"
	"encoding/json"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	"demiurge.dev/host/providers/providertest"
)

// TestHostRunFrontEnds: `demiurge run` through a host that was started
// without the model key (by a one-shot call): the key comes from each
// run's own environment. A run whose turn hangs does not hold up another
// front end's run; SIGINT to it cancels its turn through the host (exit
// 130, a cancelled result event); kill -9 of a front end mid-turn ends
// its foreground turn in the host, which records it as cancelled.
func TestHostRunFrontEnds(t *testing.T) {
	e := newHostEnv(t)
	srv := providertest.NewServer("anthropic", []providertest.Step{
		{Text: []string{"Let me ", "think", " for a long time"}, ChunkDelayMS: 60_000},
		{Text: []string{"Back again."}},
		{Text: []string{"Thinking ", "again", " for a long time"}, ChunkDelayMS: 60_000},
	})
	defer srv.Close()
	if out, stderr, err := e.runHost(t, "tools", "call", "read_file", `{"path":"a.txt"}`); err != nil {
		t.Fatalf("%v\n%s%s", err, out, stderr)
	}
	hostPID := e.hostPID(t)
	runCmd := func(prompt string) (cmdOut func() string, wait func() (int, string), sig func(syscall.Signal), session func() string) {
		c := e.cmd("--model", "anthropic:claude-test", "--base-url", srv.URL, "run", "--json", prompt)
		c.Env = append(c.Env, "ANTHROPIC_API_KEY=sk-ant-test-key-0123456789")
		var stderr strings.Builder
		c.Stderr = &stderr
		out, err := c.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := c.Start(); err != nil {
			t.Fatal(err)
		}
		var lines []string
		first := make(chan string, 1)
		done := make(chan struct{})
		go func() {
			defer close(done)
			sc := bufio.NewScanner(out)
			for sc.Scan() {
				if len(lines) == 0 {
					var ev struct{ Session string }
					json.Unmarshal(sc.Bytes(), &ev)
					first <- ev.Session
				}
				lines = append(lines, sc.Text())
			}
		}()
		return func() string { <-done; return strings.Join(lines, "\n") },
			func() (int, string) { <-done; err := c.Wait(); return exitCode(err), stderr.String() },
			func(s syscall.Signal) { c.Process.Signal(s) },
			func() string {
				select {
				case s := <-first:
					return s
				case <-time.After(60 * time.Second):
					t.Fatal("no init event")
					return ""
				}
			}
	}
	waitRequests := func(n int) {
		for deadline := time.Now().Add(60 * time.Second); len(srv.Requests()) < n; time.Sleep(10 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("the model has %d requests, want %d", len(srv.Requests()), n)
			}
		}
	}

	// A hangs in its model step.
	aOut, aWait, aSig, aSession := runCmd("think hard")
	sesA := aSession()
	waitRequests(1)
	// B runs to its end beside it, and sees only its own session's events.
	bOut, bWait, _, _ := runCmd("hello")
	if code, stderr := bWait(); code != 0 {
		t.Fatalf("B: exit %d\n%s", code, stderr)
	}
	out := bOut()
	if !strings.Contains(out, "Back again.") || strings.Contains(out, sesA) || !strings.Contains(out, `"type":"result"`) {
		t.Fatalf("B's events:\n%s", out)
	}
	// SIGINT to A: its turn is cancelled in the host; the result still comes.
	aSig(syscall.SIGINT)
	if code, stderr := aWait(); code != exitInterrupted || strings.Contains(stderr, "context canceled") {
		t.Fatalf("A after SIGINT: exit %d\n%s", code, stderr)
	}
	if out := aOut(); !strings.Contains(out, `"type":"result"`) || !strings.Contains(out, `"status":"cancelled"`) || !strings.Contains(out, "turn cancelled") {
		t.Fatalf("A's events:\n%s", out)
	}

	// C hangs, and its front end is killed: the host ends the turn.
	_, cWait, cSig, cSession := runCmd("think again")
	sesC := cSession()
	waitRequests(3)
	cSig(syscall.SIGKILL)
	cWait()
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		out, _, _ := e.runHost(t, "host", "status", "--json")
		var st struct {
			Sessions int `json:"sessions"`
		}
		json.Unmarshal([]byte(out), &st)
		if st.Sessions == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the killed front end's session is still open: %s", out)
		}
	}
	shown, stderr, err := e.runHost(t, "sessions", "show", sesC)
	if err != nil || !strings.Contains(shown, "cancelled this turn") {
		t.Fatalf("C's session after its front end died: %v\n%s%s", err, shown, stderr)
	}
	if e.hostPID(t) != hostPID {
		t.Fatal("the runs did not go through the one host")
	}
	if _, err := os.Stat(e.state); err != nil {
		t.Fatal(err)
	}
}

// TestHostHandsOverToOtherOptions: a front end of another workspace is
// not refused by an idle host: the idle host hands the state over to a
// host of the new front end's options. A busy host (a front end
// attached) is not stopped under its front end: the other workspace's
// command is refused with why.
func TestHostHandsOverToOtherOptions(t *testing.T) {
	e := newHostEnv(t)
	other := t.TempDir()
	if err := os.WriteFile(other+"/b.txt", []byte("from the other workspace\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, stderr, err := e.runHost(t, "tools", "call", "read_file", `{"path":"a.txt"}`); err != nil {
		t.Fatalf("%v\n%s%s", err, out, stderr)
	}
	first := e.hostPID(t)
	out, stderr, err := e.runHost(t, "--workspace", other, "tools", "call", "read_file", `{"path":"b.txt"}`)
	if err != nil || !strings.Contains(out, "from the other workspace") {
		t.Fatalf("another workspace beside an idle host: %v\n%s%s", err, out, stderr)
	}
	second := e.hostPID(t)
	if second == first {
		t.Fatal("the idle host of the first workspace answered for the other")
	}
	// A front end stays attached to the second host.
	serve := e.cmd("--workspace", other, "mcp", "serve")
	stdin, _ := serve.StdinPipe()
	if err := serve.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { stdin.Close(); serve.Wait() }()
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		out, _, _ := e.runHost(t, "host", "status", "--json")
		if strings.Contains(out, `"front_ends": 1`) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the mcp serve front end did not attach: %s", out)
		}
	}
	_, stderr, err = e.runHost(t, "tools", "call", "read_file", `{"path":"a.txt"}`)
	if err == nil || !strings.Contains(stderr, "other options (--workspace") || !strings.Contains(stderr, "1 front end(s)") {
		t.Fatalf("the first workspace beside a busy host: %v\n%s", err, stderr)
	}
	if e.hostPID(t) != second {
		t.Fatal("the busy host was stopped")
	}
}
