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

// startOneShot runs one demiurge command line on a pseudo-terminal.
func startOneShot(t *testing.T, env []string, args ...string) *ttySession {
	t.Helper()
	master, slave := openPTY(t)
	if err := unix.IoctlSetWinsize(int(master.Fd()), unix.TIOCSWINSZ, &unix.Winsize{Row: 40, Col: 200}); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(demiurgeBinary(t), args...)
	cmd.Env = append(append(os.Environ(), "HOME="+t.TempDir(), "TERM=xterm"), env...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = slave, slave, slave
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	slave.Close()
	s := &ttySession{t: t, master: master, scr: watch(master), cmd: cmd, exited: make(chan error, 1)}
	go func() { s.exited <- cmd.Wait() }()
	t.Cleanup(func() { cmd.Process.Kill(); master.Close() })
	return s
}

// since is what the terminal received after position at.
func (s *ttySession) since(at int) string {
	s.scr.mu <- struct{}{}
	defer func() { <-s.scr.mu }()
	return s.scr.buf.String()[at:]
}

// TestOneShotApprovalQuestionStaysVisible: a one-shot `tools call` on a
// terminal asks its approval question and leaves it on the screen until
// it is answered; the progress spinner (drawn after 700 ms, every 100 ms,
// with a line erase) never draws over it. In process, in the foreground
// and on the background path (the detached host asks on the same
// terminal), and through the long-lived host.
func TestOneShotApprovalQuestionStaysVisible(t *testing.T) {
	builtin, _ := testPlugins(t)
	hostOn := []string{"DEMIURGE_HOST=on", "DEMIURGE_HOST_IDLE_EXIT=1m"}
	cases := []struct {
		name, tool, args, done string
		env                    []string
	}{
		{"in process", "write_file", `{"path":"a.txt","content":"one"}`, "created a.txt", []string{"DEMIURGE_HOST=off"}},
		{"background", "terminal", `{"command":"echo from-the-task","background":true}`, "task", []string{"DEMIURGE_HOST=off"}},
		{"through the host", "write_file", `{"path":"a.txt","content":"one"}`, "created a.txt", hostOn},
		{"background through the host", "terminal", `{"command":"echo from-the-task","background":true}`, "task", hostOn},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			// The detached host may still be writing its state as the test
			// ends: that directory is removed best effort.
			state, err := os.MkdirTemp("", "demiurge-oneshot-tty-")
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { os.RemoveAll(state) })
			ws := t.TempDir()
			s := startOneShot(t, tc.env, "--state", state, "--plugin-dir", builtin, "--workspace", ws,
				"tools", "call", tc.tool, tc.args)
			if tc.env[0] == hostOn[0] {
				t.Cleanup(func() { exec.Command(demiurgeBinary(t), "--state", state, "host", "stop").Run() })
			}
			s.see("[s]ession")
			asked := s.at
			time.Sleep(1500 * time.Millisecond) // well past the spinner's 700 ms
			if after := s.since(asked); strings.Contains(after, "\r") || strings.Contains(after, "\033[K") {
				t.Fatalf("the question was drawn over while it waited: %q", after)
			}
			s.line("o")
			s.see(tc.done)
			s.waitExit(20 * time.Second)
			if tc.tool == "write_file" {
				if b, _ := os.ReadFile(filepath.Join(ws, "a.txt")); string(b) != "one" {
					t.Fatalf("a.txt = %q", b)
				}
			}
		})
	}
}
