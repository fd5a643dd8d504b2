package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"demiurge.dev/host/plugins/plugintest"
	"demiurge.dev/host/runtime"
	"demiurge.dev/host/toolhost"
)

var (
	fixtureOnce sync.Once
	fixtureDir  string
	fixtureErr  error
)

// taskEnv is a state directory with the fixture toolset installed (its
// stream tool behaves like terminal seen from the host) and the real
// binary to run against it.
type taskEnv struct {
	bin, builtin, state, ws, home string
}

func newTaskEnv(t *testing.T) *taskEnv {
	t.Helper()
	builtin, _ := testPlugins(t)
	fixtureOnce.Do(func() {
		fixtureDir, fixtureErr = os.MkdirTemp("", "demiurge-cli-fixture-")
		if fixtureErr == nil {
			fixtureErr = plugintest.Build(fixtureDir, "fixture", "demiurge.dev/sdk/testtoolsets/fixture")
		}
	})
	if fixtureErr != nil {
		t.Fatal(fixtureErr)
	}
	e := &taskEnv{bin: demiurgeBinary(t), builtin: builtin, state: t.TempDir(), ws: t.TempDir(), home: t.TempDir()}
	if err := plugintest.Copy(fixtureDir, toolhost.InstalledPluginDir(e.state), "fixture"); err != nil {
		t.Fatal(err)
	}
	return e
}

func (e *taskEnv) command(args ...string) *exec.Cmd {
	base := []string{"--state", e.state, "--plugin-dir", e.builtin, "--workspace", e.ws, "--approve", "allow:stream"}
	cmd := exec.Command(e.bin, append(base, args...)...)
	cmd.Env = append(os.Environ(), "HOME="+e.home)
	return cmd
}

// run runs one command to its end.
func (e *taskEnv) run(t *testing.T, args ...string) (stdout, stderr string, err error) {
	t.Helper()
	var o, s bytes.Buffer
	cmd := e.command(args...)
	cmd.Stdout, cmd.Stderr = &o, &s
	err = cmd.Run()
	return o.String(), s.String(), err
}

func (e *taskEnv) task(t *testing.T, id string) runtime.Task {
	t.Helper()
	out, stderr, err := e.run(t, "tasks", "show", id, "--json")
	if err != nil {
		t.Fatalf("tasks show %s: %v\n%s", id, err, stderr)
	}
	var task runtime.Task
	if err := json.Unmarshal([]byte(out), &task); err != nil {
		t.Fatalf("tasks show --json: %v\n%s", err, out)
	}
	return task
}

var cliTaskID = regexp.MustCompile(`task_[0-9a-f]{20}`)

// TestOneShotBackgroundCall: the call prints its task id at once, the
// process stays until the task ends, and `demiurge tasks` reads it after.
func TestOneShotBackgroundCall(t *testing.T) {
	e := newTaskEnv(t)
	out, stderr, err := e.run(t, "tools", "call", "--wait", "stream", `{"command":"make bench","background":true,"lines":4,"interval_ms":30}`)
	if err != nil {
		t.Fatalf("tools call: %v\nstdout %s\nstderr %s", err, out, stderr)
	}
	id := cliTaskID.FindString(out)
	if id == "" || !strings.Contains(stderr, "waiting for them to end") || !strings.Contains(stderr, id+" succeeded") {
		t.Fatalf("stdout %q stderr %q", out, stderr)
	}
	task := e.task(t, id)
	if task.State != runtime.TaskSucceeded || task.ReturnCode == nil || *task.ReturnCode != 0 || task.Summary != "make bench" {
		t.Fatalf("task = %+v", task)
	}
	logs, _, err := e.run(t, "tasks", "logs", id)
	if err != nil || !strings.Contains(logs, "line 3 of make bench") {
		t.Fatalf("tasks logs = %q, %v", logs, err)
	}
	waited, _, err := e.run(t, "tasks", "wait", id, "--timeout", "1s", "--json")
	if err != nil || !strings.Contains(waited, `"timed_out": false`) || !strings.Contains(waited, `"state": "succeeded"`) {
		t.Fatalf("tasks wait = %q, %v", waited, err)
	}
}

// startBackground starts a one-shot background call of a task that runs
// until cancelled and has a child process, and returns the running host,
// the task id and the child's pid.
func (e *taskEnv) startBackground(t *testing.T) (*exec.Cmd, string, int) {
	t.Helper()
	return e.startBackgroundCall(t, "tools", "call", "--wait", "stream", `{"command":"sleep forever","background":true,"child":true,"interval_ms":20}`)
}

func (e *taskEnv) startBackgroundCall(t *testing.T, args ...string) (*exec.Cmd, string, int) {
	t.Helper()
	cmd := e.command(args...)
	stdout, _ := cmd.StdoutPipe()
	stderr, _ := cmd.StderrPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	id := ""
	lines := bufio.NewScanner(stdout)
	for lines.Scan() {
		if id = cliTaskID.FindString(lines.Text()); id != "" {
			break
		}
	}
	go io.Copy(io.Discard, stdout)
	waiting := bufio.NewScanner(stderr)
	for waiting.Scan() && !strings.Contains(waiting.Text(), "waiting for them to end") {
	}
	go io.Copy(io.Discard, stderr)
	if id == "" {
		t.Fatal("the background call printed no task id")
	}
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		if pid := descendantNamed(cmd.Process.Pid, "sleep"); pid != 0 {
			return cmd, id, pid
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatal("the task's child process did not appear under the host")
	return nil, "", 0
}

// descendantNamed finds a process called name below pid.
func descendantNamed(pid int, name string) int {
	for _, child := range childPIDsOf(pid) {
		if comm, _ := os.ReadFile(filepath.Join("/proc", strconv.Itoa(child), "comm")); strings.TrimSpace(string(comm)) == name {
			return child
		}
		if found := descendantNamed(child, name); found != 0 {
			return found
		}
	}
	return 0
}

func childPIDsOf(pid int) []int {
	files, _ := filepath.Glob(filepath.Join("/proc", strconv.Itoa(pid), "task", "*", "children"))
	var out []int
	for _, f := range files {
		b, _ := os.ReadFile(f)
		for _, field := range strings.Fields(string(b)) {
			if n, err := strconv.Atoi(field); err == nil {
				out = append(out, n)
			}
		}
	}
	return out
}

func waitProcessGone(t *testing.T, pid int, within time.Duration) {
	t.Helper()
	deadline := time.Now().Add(within)
	for alive(pid) && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if alive(pid) {
		syscall.Kill(pid, syscall.SIGKILL)
		t.Fatalf("process %d is still there %s later", pid, within)
	}
}

// TestSIGTERMCancelsBackgroundTasks: SIGTERM cancels the task through the
// cancel path, which is recorded.
func TestSIGTERMCancelsBackgroundTasks(t *testing.T) {
	e := newTaskEnv(t)
	host, id, child := e.startBackground(t)
	if err := host.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	// 143: 128 + SIGTERM, as every command reports a signal it stopped on.
	if err := host.Wait(); err == nil || !strings.Contains(err.Error(), "exit status 143") {
		t.Errorf("host exit after SIGTERM: %v, want exit status 143", err)
	}
	waitProcessGone(t, child, time.Second)
	task := e.task(t, id)
	if task.State != runtime.TaskCancelled || task.ExitReason != runtime.ExitReasonCancelled || task.Ended.IsZero() {
		t.Fatalf("task after SIGTERM = %s/%s", task.State, task.ExitReason)
	}
}

// TestKilledHostTaskIsLost kills the host with SIGKILL during a background
// task: the task's process tree is gone within a second, and the next
// start marks the task lost.
func TestKilledHostTaskIsLost(t *testing.T) {
	e := newTaskEnv(t)
	host, id, child := e.startBackground(t)
	if err := host.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	host.Wait()
	waitProcessGone(t, child, time.Second)
	task := e.task(t, id)
	if task.State != runtime.TaskLost || task.ExitReason != runtime.ExitReasonLost || task.Ended.IsZero() {
		t.Fatalf("task after the host was killed = %s/%s", task.State, task.ExitReason)
	}
	audit, _, err := e.run(t, "audit", "--kind", runtime.EventKindTaskLost, "--json")
	if err != nil || !strings.Contains(audit, id) {
		t.Errorf("audit has no task.lost event for %s: %v %s", id, err, audit)
	}
}

// descendantsNamed lists every process called name below pid.
func descendantsNamed(pid int, name string) []int {
	var out []int
	for _, child := range childPIDsOf(pid) {
		if comm, _ := os.ReadFile(filepath.Join("/proc", strconv.Itoa(child), "comm")); strings.TrimSpace(string(comm)) == name {
			out = append(out, child)
		}
		out = append(out, descendantsNamed(child, name)...)
	}
	return out
}

// TestKilledHostTerminalTaskIsLostAndReaped runs the real terminal tool in
// the background with a tree of processes, kills the host with SIGKILL, and
// checks that the tree is gone within a second and the next start marks the
// task lost.
func TestKilledHostTerminalTaskIsLostAndReaped(t *testing.T) {
	e := newTaskEnv(t)
	core := t.TempDir()
	if err := os.WriteFile(filepath.Join(core, "agent.yaml"), []byte("toolsets: [coding]\ncapabilities: [fs.read, terminal.exec]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	host, id, _ := e.startBackgroundCall(t, "--core", core, "--approve", "allow:terminal", "tools", "call", "--wait", "terminal",
		`{"command":"sleep 600 & sleep 601 & wait","background":true}`)
	var tree []int
	for deadline := time.Now().Add(5 * time.Second); len(tree) < 2 && time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		tree = descendantsNamed(host.Process.Pid, "sleep")
	}
	if len(tree) < 2 {
		t.Fatalf("the command's tree did not appear under the host: %v", tree)
	}
	t.Cleanup(func() {
		for _, pid := range tree {
			syscall.Kill(pid, syscall.SIGKILL)
		}
	})
	if err := host.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	host.Wait()
	// The host's task reaper sees the host's end and kills the tree.
	for _, pid := range tree {
		waitProcessGone(t, pid, time.Second)
	}
	task := e.task(t, "last")
	if task.ID != id || task.State != runtime.TaskLost || task.ExitReason != runtime.ExitReasonLost {
		t.Fatalf("task after the host was killed = %s %s/%s", task.ID, task.State, task.ExitReason)
	}
}

// TestTasksOfARunningHostFromAnotherProcess: while the owner runs (and
// holds the store), `demiurge tasks` reaches its live tasks through its
// task socket: list, wait with timeout, logs, and a cancel after which the
// owner ends by itself.
func TestTasksOfARunningHostFromAnotherProcess(t *testing.T) {
	e := newTaskEnv(t)
	host, id, child := e.startBackground(t)
	list, stderr, err := e.run(t, "tasks", "list")
	if err != nil || !strings.Contains(list, id) || !strings.Contains(list, "running") {
		t.Fatalf("tasks list while the owner runs = %q, %v %s", list, err, stderr)
	}
	waited, _, err := e.run(t, "tasks", "wait", id, "--timeout", "100ms", "--json")
	if err != nil || !strings.Contains(waited, `"timed_out": true`) || !strings.Contains(waited, `"state": "running"`) {
		t.Fatalf("tasks wait = %q, %v", waited, err)
	}
	logs, _, err := e.run(t, "tasks", "logs", id)
	if err != nil || !strings.Contains(logs, "child "+strconv.Itoa(child)) {
		t.Fatalf("tasks logs = %q, %v", logs, err)
	}
	if _, _, err := e.run(t, "tasks", "show", "task_00000000000000000000"); err == nil {
		t.Fatal("an unknown id was answered")
	}
	cancelled, stderr, err := e.run(t, "tasks", "cancel", id, "--json")
	if err != nil || !strings.Contains(cancelled, `"state": "cancelled"`) {
		t.Fatalf("tasks cancel = %q, %v %s", cancelled, err, stderr)
	}
	waitProcessGone(t, child, time.Second)
	done := make(chan error, 1)
	go func() { done <- host.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("the owner exited with %v after its task was cancelled", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the owner did not end after its only task was cancelled")
	}
	if task := e.task(t, id); task.State != runtime.TaskCancelled {
		t.Fatalf("recorded as %s", task.State)
	}
}

// TestTasksWhileTheStoreIsHeldWithoutASocket: when the owner cannot be
// reached, the refusal says who holds the store and what to do.
func TestTasksWhileTheStoreIsHeldWithoutASocket(t *testing.T) {
	e := newTaskEnv(t)
	// A directory where the socket would go keeps the owner from serving.
	if err := os.MkdirAll(filepath.Join(toolhost.TaskSocketPath(e.state), "blocked"), 0o700); err != nil {
		t.Fatal(err)
	}
	e.startBackground(t)
	_, stderr, err := e.run(t, "tasks", "list")
	if err == nil || !strings.Contains(stderr, "held by a running demiurge") || !strings.Contains(stderr, "/tasks") {
		t.Fatalf("tasks list while the store is held: %v %q", err, stderr)
	}
}
