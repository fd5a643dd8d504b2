package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// ttySession is the real binary's interactive session on a pseudo-terminal.
type ttySession struct {
	t      *testing.T
	master *os.File
	scr    *screen
	cmd    *exec.Cmd
	at     int
	exited chan error
}

func startTTY(t *testing.T, state, ws string, extra ...string) *ttySession {
	t.Helper()
	return startTTYEnv(t, nil, state, ws, extra...)
}

// startTTYEnv is startTTY with env added to the session's environment.
func startTTYEnv(t *testing.T, env []string, state, ws string, extra ...string) *ttySession {
	t.Helper()
	builtin, _ := testPlugins(t)
	master, slave := openPTY(t)
	if err := unix.IoctlSetWinsize(int(master.Fd()), unix.TIOCSWINSZ, &unix.Winsize{Row: 40, Col: 200}); err != nil {
		t.Fatal(err)
	}
	args := append([]string{"--state", state, "--plugin-dir", builtin, "--workspace", ws}, extra...)
	cmd := exec.Command(demiurgeBinary(t), args...)
	cmd.Env = append(append(os.Environ(), "HOME="+t.TempDir(), "TERM=xterm", "GOTRACEBACK=all"), env...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = slave, slave, slave
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	slave.Close()
	s := &ttySession{t: t, master: master, scr: watch(master), cmd: cmd, exited: make(chan error, 1)}
	go func() { s.exited <- cmd.Wait() }()
	t.Cleanup(func() { cmd.Process.Kill(); master.Close() })
	s.see("Type /help")
	return s
}

// keys types raw bytes (no newline); line types a line.
func (s *ttySession) keys(k string) { s.master.Write([]byte(k)) }
func (s *ttySession) line(l string) { s.keys(l + "\r") }

// see waits for want; when it never shows, the failure carries the
// session's goroutines (hangReport), so a stall says where it stalled.
func (s *ttySession) see(want string) {
	s.t.Helper()
	at, ok := s.scr.find(want, s.at, 20*time.Second)
	if !ok {
		shown := s.scr.text()[s.at:]
		s.t.Fatalf("terminal never showed %q; it shows:\n%s\nthe session's end:\n%s", want, shown, s.hangReport())
	}
	s.at = at
}

// waitErr waits for the session to end and returns how it ended.
func (s *ttySession) waitErr(within time.Duration) error {
	s.t.Helper()
	select {
	case err := <-s.exited:
		return err
	case <-time.After(within):
		s.t.Fatalf("the session did not end within %v; screen's end:\n%s", within, s.hangReport())
		return nil
	}
}

func (s *ttySession) waitExit(within time.Duration) {
	s.t.Helper()
	select {
	case <-s.exited:
	case <-time.After(within):
		s.t.Fatalf("the session did not end within %v; screen's end:\n%s", within, s.hangReport())
	}
}

// hangReport is the screen's end of a session that did not end, with its
// goroutines: SIGQUIT makes the Go runtime print every goroutine's stack
// to the session's stderr, the terminal, and exit.
func (s *ttySession) hangReport() string {
	before := len(s.since(0))
	s.cmd.Process.Signal(syscall.SIGQUIT)
	select {
	case <-s.exited:
	case <-time.After(5 * time.Second):
	}
	time.Sleep(200 * time.Millisecond) // the last of the dump through the pty
	out := s.since(0)
	return out[max(0, before-2000):]
}

// TestTTYLineEditingHistoryAndCompletion: on a real terminal the prompt
// edits lines (backspace, Ctrl-A), completes commands and tool names with
// Tab, recalls lines with the up arrow, and keeps them across sessions in
// STATE/history, mode 0600.
func TestTTYLineEditingHistoryAndCompletion(t *testing.T) {
	state, ws := t.TempDir(), t.TempDir()
	os.WriteFile(filepath.Join(ws, "hello.txt"), []byte("hello from the workspace\n"), 0o644)
	s := startTTY(t, state, ws)

	s.keys("/he\t")
	s.keys("\r")
	s.see("/approvals [revoke N|all]")
	s.keys("/helpx\x7f\r") // backspace
	s.see("/approvals [revoke N|all]")
	s.keys("help\x01/\r") // Ctrl-A, then the slash at the start
	s.see("/approvals [revoke N|all]")
	s.keys("/call read_f\t")
	s.keys(`{"path":"hello.txt"}` + "\r")
	s.see("hello from the workspace")
	s.keys("\x1b[A\r") // up arrow: the same call again (read_file says the file is unchanged)
	s.see("[hello.txt: lines 1-1")
	s.line("/quit")
	s.waitExit(20 * time.Second)

	hist := filepath.Join(state, "history")
	fi, err := os.Stat(hist)
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("history file: %v, %v", fi, err)
	}
	b, _ := os.ReadFile(hist)
	if !strings.Contains(string(b), "/call read_file {\"path\":\"hello.txt\"}\n") || strings.Contains(string(b), "/helpx") {
		t.Fatalf("history holds %q", b)
	}

	// A new session recalls the last session's lines.
	s = startTTY(t, state, ws)
	s.keys("\x1b[A\x1b[A\r") // /quit was last; the call before it
	s.see("[hello.txt: lines 1-1")
	s.line("/quit")
	s.waitExit(20 * time.Second)
}

// TestTTYApprovalAsksAgainAndRevoke: an unrecognised answer at an inline
// approval asks again; a session allow is listed with what it covers and
// revoked by number, after which the same call asks again.
func TestTTYApprovalAsksAgainAndRevoke(t *testing.T) {
	ws := t.TempDir()
	s := startTTY(t, t.TempDir(), ws)
	s.line(`/call write_file {"path":"a.txt","content":"one"}`)
	s.see("[s]ession")
	s.line("yes")
	s.see(`unrecognised answer "yes"; answer o (once), s (session) or d (deny)`)
	s.see("[s]ession")
	s.line("s")
	s.see("created a.txt")
	s.line("/approvals")
	s.see("write a.txt")
	s.see("/approvals revoke N|all")
	s.line(`/call write_file {"path":"a.txt","content":"two"}`)
	s.see("replaced a.txt")
	s.line("/approvals revoke 1")
	s.see("revoked 1: write_file write a.txt")
	s.line("/approvals")
	s.see("no session approvals")
	s.line(`/call write_file {"path":"a.txt","content":"three"}`)
	s.see("[s]ession")
	s.line("d")
	s.see("denied")
	s.line("/quit")
	s.waitExit(20 * time.Second)
	if b, _ := os.ReadFile(filepath.Join(ws, "a.txt")); string(b) != "two" {
		t.Fatalf("a.txt = %q", b)
	}
}

// TestTTYStopAndCtrlC: /stop and Ctrl-C each stop a long foreground call
// at once, the session stays usable, and Ctrl-C twice at an empty prompt
// leaves.
func TestTTYStopAndCtrlC(t *testing.T) {
	s := startTTY(t, t.TempDir(), t.TempDir(), "--approve", "allow:terminal")
	for _, stop := range []string{"/stop\r", "\x03"} {
		began := time.Now()
		s.line(`/call terminal {"command":"echo $((6*7))-sleeping; sleep 60"}`)
		s.see("42-sleeping") // streamed before the call ends
		s.keys(stop)
		s.see("stopping the foreground turn")
		s.see("── ")
		if el := time.Since(began); el > 30*time.Second {
			t.Fatalf("%q took %v to stop the call", stop, el)
		}
		s.line("/help")
		s.see("/approvals [revoke N|all]")
	}
	s.keys("\x03")
	s.see("Ctrl-C again to leave")
	s.keys("\x03")
	s.waitExit(20 * time.Second)
}

// TestTTYToolsCallStreams: a one-shot call's output reaches the terminal
// (stderr) while the command still runs; the card follows on stdout.
func TestTTYToolsCallStreams(t *testing.T) {
	builtin, _ := testPlugins(t)
	master, slave := openPTY(t)
	defer master.Close()
	cmd := exec.Command(demiurgeBinary(t), "--state", t.TempDir(), "--plugin-dir", builtin, "--workspace", t.TempDir(),
		"--approve", "allow:terminal", "tools", "call", "terminal",
		`{"command":"echo $((6*7))-first --password=hunter2hunter2; sleep 3; echo second-line"}`)
	cmd.Env = append(os.Environ(), "HOME="+t.TempDir())
	cmd.Stdin, cmd.Stdout, cmd.Stderr = slave, slave, slave
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	slave.Close()
	exited := make(chan struct{})
	go func() { cmd.Wait(); close(exited) }()
	defer cmd.Process.Kill()
	scr := watch(master)
	at := scr.waitFor(t, "42-first --password=<redacted:", 0)
	scr.mu <- struct{}{}
	early := scr.buf.String()
	<-scr.mu
	if strings.Contains(early, "exit code:") {
		t.Fatalf("the first line showed only with the card, after the command ended: output was not streamed\n%s", early)
	}
	scr.waitFor(t, "second-line", at)
	<-exited
	scr.mu <- struct{}{}
	shown := scr.buf.String()
	<-scr.mu
	if strings.Contains(shown, "hunter2hunter2") {
		t.Fatalf("the terminal showed a secret:\n%s", shown)
	}
}
