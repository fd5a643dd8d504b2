package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// openPTY opens a pseudo-terminal pair, so the session sees a real
// terminal on its standard input and asks its approvals there.
func openPTY(t *testing.T) (master, slave *os.File) {
	t.Helper()
	m, err := os.OpenFile("/dev/ptmx", os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("no pseudo-terminals here: %v", err)
	}
	fd := int(m.Fd())
	if err := unix.IoctlSetPointerInt(fd, unix.TIOCSPTLCK, 0); err != nil {
		t.Fatal(err)
	}
	n, err := unix.IoctlGetInt(fd, unix.TIOCGPTN)
	if err != nil {
		t.Fatal(err)
	}
	s, err := os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Fatal(err)
	}
	return m, s
}

// screen collects what the session writes to its terminal.
type screen struct {
	buf  bytes.Buffer
	done chan struct{}
	mu   chan struct{}
}

func watch(f *os.File) *screen {
	s := &screen{done: make(chan struct{}), mu: make(chan struct{}, 1)}
	go func() {
		defer close(s.done)
		b := make([]byte, 4096)
		for {
			n, err := f.Read(b)
			s.mu <- struct{}{}
			s.buf.Write(b[:n])
			<-s.mu
			if err != nil {
				return
			}
		}
	}()
	return s
}

func (s *screen) waitFor(t *testing.T, want string, from int) int {
	t.Helper()
	at, ok := s.find(want, from, 20*time.Second)
	if !ok {
		t.Fatalf("terminal never showed %q; it shows:\n%s", want, s.text()[from:])
	}
	return at
}

// find waits up to within for want to show after from, and returns
// where it ends.
func (s *screen) find(want string, from int, within time.Duration) (int, bool) {
	deadline := time.Now().Add(within)
	for time.Now().Before(deadline) {
		if i := strings.Index(s.text()[from:], want); i >= 0 {
			return from + i + len(want), true
		}
		time.Sleep(20 * time.Millisecond)
	}
	return 0, false
}

// text is everything the terminal showed so far.
func (s *screen) text() string {
	s.mu <- struct{}{}
	defer func() { <-s.mu }()
	return s.buf.String()
}

// TestTerminalApprovalForTheSession answers a real approval prompt on a
// terminal with "session": the same write is then allowed without a
// prompt, /approvals lists it, and a different path asks again.
func TestTerminalApprovalForTheSession(t *testing.T) {
	builtin, _ := testPlugins(t)
	ws := t.TempDir()
	master, slave := openPTY(t)
	defer master.Close()
	cmd := exec.Command(demiurgeBinary(t), "--state", t.TempDir(), "--plugin-dir", builtin, "--workspace", ws)
	cmd.Env = append(os.Environ(), "HOME="+t.TempDir())
	cmd.Stdin, cmd.Stdout, cmd.Stderr = slave, slave, slave
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	slave.Close()
	defer cmd.Process.Kill()
	scr := watch(master)
	type_ := func(s string) { master.Write([]byte(s + "\n")) }

	at := scr.waitFor(t, "Type /help", 0)
	type_(`/call write_file {"path":"a.txt","content":"one"}`)
	at = scr.waitFor(t, "[s]ession", at)
	type_("s")
	at = scr.waitFor(t, "created a.txt", at)

	type_(`/call write_file {"path":"a.txt","content":"two"}`)
	at = scr.waitFor(t, "replaced a.txt", at)

	type_("/approvals")
	at = scr.waitFor(t, "write_file", at)

	type_(`/call write_file {"path":"b.txt","content":"x"}`)
	at = scr.waitFor(t, "[s]ession", at)
	type_("d")
	at = scr.waitFor(t, "denied", at)
	type_("/quit")
	cmd.Wait()

	if b, _ := os.ReadFile(filepath.Join(ws, "a.txt")); string(b) != "two" {
		t.Fatalf("a.txt = %q", b)
	}
	if _, err := os.Stat(filepath.Join(ws, "b.txt")); err == nil {
		t.Fatal("a denied write happened")
	}
}
