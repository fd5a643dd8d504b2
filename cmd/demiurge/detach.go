package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"strconv"
	"strings"
	"syscall"

	"github.com/urfave/cli/v2"
)

// A one-shot `tools call` that asks for background runs in a detached
// host: the command re-executes itself in a new session, the child makes
// the call (asking approvals on the same terminal), prints the card with
// the task id, reports its exit status on a pipe and lets go of the
// terminal; the command returns that status at once. The child stays up,
// serving STATE/runtime/tasks.sock, until its tasks end, so `demiurge
// tasks show|wait|logs|cancel` from any shell reach them.

// detachedReportEnv names the descriptor the detached host reports on.
const detachedReportEnv = "DEMIURGE_DETACHED_REPORT_FD"

// wantsBackground reports whether a call's arguments ask for background.
func wantsBackground(args string) bool {
	var m map[string]any
	if json.Unmarshal([]byte(args), &m) != nil {
		return false
	}
	b, _ := m["background"].(bool)
	return b
}

// detachedChild is the report pipe when this process is the detached host.
func detachedChild() *os.File {
	fd, err := strconv.Atoi(os.Getenv(detachedReportEnv))
	if err != nil || fd < 3 {
		return nil
	}
	os.Unsetenv(detachedReportEnv) // never passed on to plugins or commands
	return os.NewFile(uintptr(fd), "detached-report")
}

// runDetached starts the detached host for this command line and returns
// the exit status it reports once its call has started.
func runDetached() error {
	exe, err := os.Executable()
	if err != nil {
		return fmt.Errorf("background call: find the demiurge binary: %w", err)
	}
	r, w, err := os.Pipe()
	if err != nil {
		return err
	}
	defer r.Close()
	cmd := exec.Command(exe)
	cmd.Args = os.Args // argv[0] as given: a test binary dispatches on it
	cmd.Env = append(os.Environ(), detachedReportEnv+"=3")
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	cmd.ExtraFiles = []*os.File{w}
	// Its own session: the terminal's Ctrl-C and hangup no longer reach
	// it once this command has returned.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		w.Close()
		return fmt.Errorf("background call: start the detached host: %w", err)
	}
	w.Close()
	// Until the call has started, Ctrl-C here cancels it there.
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt)
	defer signal.Stop(sig)
	go func() {
		for s := range sig {
			cmd.Process.Signal(s)
		}
	}()
	line, _ := bufio.NewReader(r).ReadString('\n')
	if code, ok := strings.CutPrefix(strings.TrimSpace(line), "exit "); ok {
		n, err := strconv.Atoi(code)
		if err == nil {
			go cmd.Wait() // reaped if it ends while we still run
			return exitStatus(n)
		}
	}
	// No report: the host ended before the call started.
	err = cmd.Wait()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return exitStatus(ee.ExitCode())
	}
	if err != nil {
		return err
	}
	return nil
}

func exitStatus(n int) error {
	if n == 0 {
		return nil
	}
	return cli.Exit("", n)
}

// letGo reports the call's status to the command that started this
// detached host and points the standard descriptors at /dev/null, so the
// terminal and any pipe reading it are released.
func letGo(report *os.File, status int) {
	fmt.Fprintf(report, "exit %d\n", status)
	report.Close()
	null, err := os.OpenFile(os.DevNull, os.O_RDWR, 0)
	if err != nil {
		return
	}
	for fd := 0; fd <= 2; fd++ {
		syscall.Dup2(int(null.Fd()), fd)
	}
	null.Close()
}
