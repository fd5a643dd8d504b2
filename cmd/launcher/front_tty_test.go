package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// ptyRun runs binary with stdin and stderr on a new pseudo-terminal
// (stdout a pipe, as a script reading the result has it), answers each
// approval question with the next of answers, and returns what the
// terminal showed, stdout and the exit status.
func (r *rig) ptyRun(binary string, answers []string, args ...string) (screen string, res result) {
	r.t.Helper()
	asked := 0
	return r.ptyDrive(binary, false, func(shown string) (string, bool) {
		if strings.Count(shown, "allow? [o]nce") > asked && asked < len(answers) {
			asked++
			return answers[asked-1] + "\n", true
		}
		return "", false
	}, args...)
}

// ptyDrive runs binary with stdin and stderr on a new pseudo-terminal
// (stdout a pipe, or the terminal too when stdoutToo), typing what next says to type on seeing the screen so
// far, and returns what the terminal showed, stdout and the exit status.
func (r *rig) ptyDrive(binary string, stdoutToo bool, next func(shown string) (string, bool), args ...string) (screen string, res result) {
	r.t.Helper()
	return r.ptyDriveEnv(binary, nil, stdoutToo, next, args...)
}

// ptyDriveEnv is ptyDrive with env added to the child's environment.
func (r *rig) ptyDriveEnv(binary string, env []string, stdoutToo bool, next func(shown string) (string, bool), args ...string) (screen string, res result) {
	r.t.Helper()
	m, err := os.OpenFile("/dev/ptmx", os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		r.t.Skipf("no pseudo-terminals here: %v", err)
	}
	defer m.Close()
	if err := unix.IoctlSetPointerInt(int(m.Fd()), unix.TIOCSPTLCK, 0); err != nil {
		r.t.Fatal(err)
	}
	n, err := unix.IoctlGetInt(int(m.Fd()), unix.TIOCGPTN)
	if err != nil {
		r.t.Fatal(err)
	}
	s, err := os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		r.t.Fatal(err)
	}
	cmd := &exec.Cmd{Path: filepath.Join(r.bin, binary), Args: append([]string{"demiurge", "--state", r.state}, args...), Dir: r.ws,
		Env: append([]string{"PATH=" + os.Getenv("PATH"), "HOME=" + r.home, "TERM=dumb"}, env...), Stdin: s, Stderr: s}
	var stdout bytes.Buffer
	cmd.Stdout = &stdout
	if stdoutToo {
		cmd.Stdout = s
	}
	if err := cmd.Start(); err != nil {
		r.t.Fatal(err)
	}
	s.Close()
	var mu sync.Mutex
	var shown bytes.Buffer
	read := make(chan struct{})
	go func() {
		defer close(read)
		b := make([]byte, 4096)
		for {
			n, err := m.Read(b)
			mu.Lock()
			shown.Write(b[:n])
			mu.Unlock()
			if err != nil {
				return
			}
		}
	}()
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	var werr error
	for deadline := time.Now().Add(60 * time.Second); werr == nil; time.Sleep(20 * time.Millisecond) {
		select {
		case werr = <-exited:
			if werr == nil {
				werr = errDone
			}
			continue
		default:
		}
		mu.Lock()
		text, ok := next(shown.String())
		mu.Unlock()
		if ok {
			m.Write([]byte(text))
		}
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			r.t.Fatalf("%s %q did not end; the terminal shows:\n%s", binary, args, shown.String())
		}
	}
	code := 0
	if ee, ok := werr.(*exec.ExitError); ok {
		code = ee.ExitCode()
	}
	// The terminal's last bytes: read until the child's side is gone.
	select {
	case <-read:
	case <-time.After(2 * time.Second):
	}
	mu.Lock()
	defer mu.Unlock()
	return shown.String(), result{code: code, stdout: stdout.String()}
}

var errDone = fmt.Errorf("done")

// spinner is the progress line and its wiping, drawn after 700 ms of a
// call (frontview.Live): whether a frame shows depends on the machine's
// speed, not on which binary draws.
var spinner = regexp.MustCompile(`\r\x1b\[K(?:[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏] [0-9.]+m?s [^\r\x1b]*)?`)

func screenOf(s string) string {
	return volatile.ReplaceAllString(spinner.ReplaceAllString(s, ""), "X")
}

// TestToolsCallOnATerminalIsTheFrontEnds: on a terminal, `tools call`
// through the small front end asks its approval with the card the host
// rendered, and shows the call's output as it comes, exactly as the full
// CLI does (the same screen, stdout and exit status), without running
// the full host binary.
func TestToolsCallOnATerminalIsTheFrontEnds(t *testing.T) {
	r := newRig(t)
	if res := r.host("approvals", "add", "allow:terminal"); res.code != 0 {
		t.Fatalf("approvals add: %s", res)
	}
	r.startHost()
	write := []string{"tools", "call", "write_file", `{"path":"a.txt","content":"one\ntwo\n"}`}
	cases := []struct {
		args    []string
		answers []string
	}{
		{write, []string{"o"}},
		{write, []string{"d"}},
		{write, []string{"huh", "o"}},
		{[]string{"tools", "call", "terminal", `{"command":"echo first-$((2*3))"}`}, nil},
		{[]string{"-q", "tools", "call", "terminal", `{"command":"echo quiet-$((2*3))"}`}, nil},
		{[]string{"tools", "call", "read_file", `{"path":"words.txt"}`}, nil},
	}
	type seen struct {
		screen string
		res    result
	}
	var fronts []seen
	for _, tc := range cases {
		var both []seen
		for _, binary := range []string{HostBinary, "demiurge"} {
			os.Remove(filepath.Join(r.ws, "a.txt"))
			screen, res := r.ptyRun(binary, tc.answers, tc.args...)
			both = append(both, seen{screenOf(screen), blank(res)})
		}
		if both[0] != both[1] {
			t.Errorf("%q on a terminal: the full CLI and the launcher differ\nfull: %q\n%s\nlauncher: %q\n%s", tc.args, both[0].screen, both[0].res, both[1].screen, both[1].res)
		}
		fronts = append(fronts, both[1])
	}
	if !strings.Contains(fronts[0].screen, "approval needed: write_file") || fronts[0].res.code != 0 || fronts[1].res.code != 1 ||
		!strings.Contains(fronts[3].screen, "first-6") || strings.Contains(fronts[4].screen, "quiet-6") || !strings.Contains(fronts[4].res.stdout, "quiet-6") {
		t.Fatalf("unexpected answers:\n%q %s\n%q %s\n%q", fronts[0].screen, fronts[0].res, fronts[1].screen, fronts[1].res, fronts[3].screen)
	}
	marker := filepath.Join(t.TempDir(), "ran")
	renameStub(t, filepath.Join(r.bin, HostBinary), marker)
	for i, tc := range cases {
		os.Remove(filepath.Join(r.ws, "a.txt"))
		screen, res := r.ptyRun("demiurge", tc.answers, tc.args...)
		if got := (seen{screenOf(screen), blank(res)}); got != fronts[i] {
			t.Errorf("%q with the full host stubbed: %q %s\nwant %q %s", tc.args, got.screen, got.res, fronts[i].screen, fronts[i].res)
		}
	}
	if b, err := os.ReadFile(marker); err == nil {
		t.Fatalf("tools call on a terminal ran the full host: %s", b)
	}
}
