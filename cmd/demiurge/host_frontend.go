package main

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/urfave/cli/v2"

	"demiurge.dev/cmd/internal/hostopts"
	"demiurge.dev/host/hostd"
	"demiurge.dev/host/hostd/hostclient"
	"demiurge.dev/host/runtime"
)

// A front end reaches the host of its state directory through
// STATE/runtime/host.sock, starting one detached when none runs.
// DEMIURGE_HOST=off keeps the former in-process path: the command is a
// whole host of its own for its run (the test suites of the in-process
// behaviour use it).

// hostEnabled reports whether front ends go through the host. A demiurge
// that a demiurge runs (an MCP server of a core, a command run with the
// sandbox off) is no front end: every host refuses what a demiurge runs
// (runtime.AdmitPeer), so it stays a whole host of its own, as before.
func hostEnabled() bool {
	return os.Getenv("DEMIURGE_HOST") != "off" && !inHostTree()
}

// inHostTree: this process descends from a demiurge host or plugin (a
// command its sandbox runs, an MCP server of its core), which every host
// refuses as a front end.
func inHostTree() bool { return runtime.HostAncestor(os.Getpid()) != "" }

// hostConfig is the front end's canonical host-shaping options, as
// Hello compares them, and the flags a host it starts is given: the
// global flags that make a host what it is (a front end whose values
// differ from the running host's is refused with the difference named).
// --approve is not among them: each front end's own rules judge its calls
// (approval.WithCommandLine). The small front end computes the same with
// the same function (cmd/internal/hostopts).
func hostConfig(c *cli.Context) (config string, flags []string, err error) {
	return hostopts.Config(hostopts.Options{
		Core: c.String("core"), CoreID: c.String("core-id"), Workspace: c.String("workspace"),
		PluginDir: builtinPluginDir(c), CallTimeout: c.Duration("call-timeout"),
		OutputCapMiB: c.Int64("output-cap-mib"), ArtifactBudgetMiB: c.Int64("artifact-budget-mib"),
		Sandbox: c.String("sandbox"), AllowPrivateMCP: c.StringSlice("allow-private-mcp"),
		Timezone: c.String("timezone"), LiveRevision: liveRevision(c),
	})
}

// connectHost is the front end's connection to its state's host,
// started detached when none runs.
func connectHost(c *cli.Context) (*hostd.Client, error) {
	state, err := stateDir(c)
	if err != nil {
		return nil, err
	}
	config, flags, err := hostConfig(c)
	if err != nil {
		return nil, err
	}
	ensure := func() (*hostd.Client, error) {
		return hostd.Ensure(c.Context, state, hostd.DialOptions{Config: config, Principal: c.String("principal")}, func() error {
			return startDetachedHost(state, flags, c.String("log-level"))
		})
	}
	cl, err := ensure()
	var other *hostd.OtherOptionsError
	if !errors.As(err, &other) {
		return cl, err
	}
	// The running host was started with other host-shaping options (e.g.
	// from another directory): when it is idle it hands the state over
	// to a host of this front end's options; a busy one is named.
	_, busy, serr := stopIfIdle(state)
	if serr != nil {
		return nil, serr
	}
	if busy != nil {
		return nil, fmt.Errorf("%v; it has %d front end(s) and %d running task(s). One host serves one workspace, core and sandbox for all its front ends (docs/architecture.md, \"Host-shaping options\")", err, busy.FrontEnds, busy.RunningTasks)
	}
	return ensure()
}

// hostReadyEnv names the descriptor a starting host reports on: "ready"
// once it listens, or why it could not start.
const hostReadyEnv = "DEMIURGE_HOST_READY_FD"

// hostStartTimeout bounds how long a front end waits for a host it
// started to listen.
const hostStartTimeout = 60 * time.Second

// startDetachedHost starts `demiurge host start --foreground` in a
// session of its own, its standard descriptors on /dev/null (it logs to
// STATE/logs/host.log), and waits until it listens.
func startDetachedHost(state string, flags []string, logLevel string) error {
	exe, err := os.Executable()
	if err != nil {
		return fmt.Errorf("start the host: find the demiurge binary: %w", err)
	}
	r, w, err := os.Pipe()
	if err != nil {
		return err
	}
	defer r.Close()
	args := append([]string{os.Args[0], "--state=" + state, "--log-level=" + logLevel}, flags...)
	args = append(args, "host", "start", "--foreground")
	cmd := exec.Command(exe)
	cmd.Args = args // argv[0] as given: a test binary dispatches on it
	cmd.Env = append(os.Environ(), hostReadyEnv+"=3")
	cmd.ExtraFiles = []*os.File{w}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true} // no terminal signal reaches it
	if err := cmd.Start(); err != nil {
		w.Close()
		return fmt.Errorf("start the host: %w", err)
	}
	w.Close()
	go cmd.Wait() // reaped if it ends while this front end runs
	line := make(chan string, 1)
	go func() {
		l, _ := bufio.NewReader(r).ReadString('\n')
		line <- strings.TrimSpace(l)
	}()
	select {
	case l := <-line:
		if l == "ready" {
			return nil
		}
		if l == "" {
			l = "it exited before it listened (see " + filepath.Join(state, "logs", "host.log") + ")"
		}
		return fmt.Errorf("the host could not start: %s", strings.TrimPrefix(l, "error: "))
	case <-time.After(hostStartTimeout):
		cmd.Process.Kill()
		return fmt.Errorf("the host did not listen within %s; it was stopped", hostStartTimeout)
	}
}

// hostGone is the front end's message when its host dies mid-call.
func hostGone(cl *hostd.Client, what string, err error) error {
	fmt.Fprintf(os.Stderr, "demiurge: the host (pid %d) went away during %s: %s\n", cl.PID, what, hostclient.GoneCause(err))
	return failed()
}
