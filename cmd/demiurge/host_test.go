package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"

	"demiurge.dev/host/hostd"
)

// The long-lived host with the real binary: real host processes started
// by real front ends, real plugins, real MCP clients.

// hostEnv is a taskEnv whose commands go through the host.
type hostEnv struct{ *taskEnv }

func newHostEnv(t *testing.T) *hostEnv {
	t.Helper()
	e := &hostEnv{newTaskEnv(t)}
	if err := os.WriteFile(filepath.Join(e.ws, "a.txt"), []byte("from the workspace\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.stopHost(t) })
	return e
}

func (e *hostEnv) env() []string {
	return append(os.Environ(), "HOME="+e.home, "DEMIURGE_HOST=on", "DEMIURGE_HOST_IDLE_EXIT=2m")
}

func (e *hostEnv) cmd(args ...string) *exec.Cmd {
	c := e.command(args...)
	c.Env = e.env()
	return c
}

func (e *hostEnv) runHost(t *testing.T, args ...string) (stdout, stderr string, err error) {
	t.Helper()
	var o, s strings.Builder
	c := e.cmd(args...)
	c.Stdout, c.Stderr = &o, &s
	err = c.Run()
	return o.String(), s.String(), err
}

// stopHost ends the state's host, if one runs, and waits for it.
func (e *hostEnv) stopHost(t *testing.T) {
	pid, running := hostd.Running(e.state)
	if !running {
		return
	}
	e.runHost(t, "host", "stop")
	if _, still := hostd.Running(e.state); still && pid > 0 {
		syscall.Kill(pid, syscall.SIGKILL)
	}
}

// interactive runs the interactive session, its lines from input.
func (e *hostEnv) interactive(t *testing.T, input string) (stdout, stderr string, err error) {
	t.Helper()
	var o, s strings.Builder
	c := e.cmd()
	c.Stdin = strings.NewReader(input)
	c.Stdout, c.Stderr = &o, &s
	err = c.Run()
	return o.String(), s.String(), err
}

func (e *hostEnv) hostPID(t *testing.T) int {
	t.Helper()
	pid, running := hostd.Running(e.state)
	if !running || pid == 0 {
		t.Fatal("no host runs")
	}
	return pid
}

// TestHostConcurrentFrontEndsStartOneHost: eight one-shot calls on a
// state with no host, at once: one host is started, every call is
// answered by it.
func TestHostConcurrentFrontEndsStartOneHost(t *testing.T) {
	e := newHostEnv(t)
	var wg sync.WaitGroup
	errs := make(chan string, 8)
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			out, stderr, err := e.runHost(t, "tools", "call", "read_file", `{"path":"a.txt"}`)
			if err != nil || !strings.Contains(out, "from the workspace") {
				errs <- fmt.Sprintf("%v\n%s%s", err, out, stderr)
			}
		}()
	}
	wg.Wait()
	close(errs)
	for msg := range errs {
		t.Error(msg)
	}
	out, stderr, err := e.runHost(t, "host", "status", "--json")
	if err != nil {
		t.Fatalf("%v %s", err, stderr)
	}
	var st struct {
		PID     int      `json:"pid"`
		Calls   int      `json:"calls"`
		Plugins []string `json:"plugins"`
	}
	if err := json.Unmarshal([]byte(out), &st); err != nil {
		t.Fatal(err)
	}
	if st.PID != e.hostPID(t) || st.Calls != 8 || len(st.Plugins) == 0 {
		t.Fatalf("status %+v, lock holder %d", st, e.hostPID(t))
	}
	// The audit, read through the host that holds the store.
	out, stderr, err = e.runHost(t, "audit", "--json", "--tool", "read_file")
	var evs []map[string]any
	if err != nil || json.Unmarshal([]byte(out), &evs) != nil || len(evs) != 8 {
		t.Fatalf("audit through the host: %v %d events\n%s%s", err, len(evs), out, stderr)
	}
	// Stop: the lock is let go, the socket removed.
	if out, _, err := e.runHost(t, "host", "stop"); err != nil || !strings.Contains(out, "stopped") {
		t.Fatalf("%v %s", err, out)
	}
	if _, err := os.Stat(hostd.SocketPath(e.state)); !os.IsNotExist(err) {
		t.Fatalf("socket left after stop: %v", err)
	}
	if _, _, err := e.runHost(t, "host", "status"); exitCode(err) != 3 {
		t.Fatalf("status with no host: %v", err)
	}
}

func exitCode(err error) int {
	if ee, ok := err.(*exec.ExitError); ok {
		return ee.ExitCode()
	}
	if err == nil {
		return 0
	}
	return -1
}

// TestHostTwoMCPServeFrontEnds is the headline: two `mcp serve`
// processes on one state, each under a real MCP client, both list and
// call; a third of another principal works beside them, in sessions of
// its own principal.
func TestHostTwoMCPServeFrontEnds(t *testing.T) {
	e := newHostEnv(t)
	base := []string{"--state", e.state, "--plugin-dir", e.builtin, "--workspace", e.ws, "--approve", "allow:stream"}
	open := func(extra ...string) *client.Client {
		c, err := client.NewStdioMCPClient(e.bin, []string{"HOME=" + e.home, "DEMIURGE_HOST=on", "DEMIURGE_HOST_IDLE_EXIT=2m"},
			append(append(base, "mcp", "serve"), extra...)...)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		defer cancel()
		init := mcp.InitializeRequest{}
		init.Params.ProtocolVersion = mcp.ProtocolVersion20251125
		init.Params.ClientInfo = mcp.Implementation{Name: "host-test", Version: "1"}
		if _, err := c.Initialize(ctx, init); err != nil {
			t.Fatal(err)
		}
		return c
	}
	a, b := open(), open()
	x := open("--principal", "x")
	for round := range 3 {
		for i, c := range []*client.Client{a, b, x} {
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			tools, err := c.ListTools(ctx, mcp.ListToolsRequest{})
			cancel()
			if err != nil || len(tools.Tools) < 5 {
				t.Fatalf("round %d client %d list: %v", round, i, err)
			}
			if out, isErr := callTool(t, c, "read_file", map[string]any{"path": "a.txt"}); isErr || !strings.Contains(out, "from the workspace") {
				t.Fatalf("round %d client %d: %q", round, i, out)
			}
		}
	}
	out, _, err := e.runHost(t, "host", "status", "--json")
	if err != nil {
		t.Fatal(err)
	}
	var st struct {
		FrontEnds  int      `json:"front_ends"`
		Sessions   int      `json:"sessions"`
		Principals []string `json:"principals"`
	}
	json.Unmarshal([]byte(out), &st)
	if st.FrontEnds != 3 || st.Sessions != 3 || len(st.Principals) != 2 || !strings.Contains(strings.Join(st.Principals, ","), "x") {
		t.Fatalf("status: %s", out)
	}
	// One client leaving does not disturb the others.
	a.Close()
	if out, isErr := callTool(t, b, "read_file", map[string]any{"path": "a.txt"}); isErr || !strings.Contains(out, "from the workspace") {
		t.Fatalf("after a left: %q", out)
	}
}

// TestHostDiesMidCall: a front end whose host is killed mid-call says so
// and exits non-zero; the next front end starts a new host, which marks
// the dead host's running task lost and ends its process tree.
func TestHostDiesMidCall(t *testing.T) {
	e := newHostEnv(t)
	// A background task of the first host, its child process running.
	out, stderr, err := e.runHost(t, "tools", "call", "stream", `{"command":"sleep forever","background":true,"child":true,"interval_ms":20}`)
	id := cliTaskID.FindString(out)
	if err != nil || id == "" {
		t.Fatalf("background call: %v\n%s%s", err, out, stderr)
	}
	first := e.hostPID(t)
	sleeper := 0
	for deadline := time.Now().Add(20 * time.Second); sleeper == 0 && time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		sleeper = descendantNamed(first, "sleep")
	}
	if sleeper == 0 {
		t.Fatal("the task's child did not appear under the host")
	}
	// A foreground call in hand when the host dies: its own sleeping
	// child is the second sleep under the host. (Without one the wait
	// below could not end but by its deadline, 20 s a run.)
	fg := e.cmd("tools", "call", "stream", `{"command":"sleep forever","child":true,"interval_ms":20}`)
	var fgErr strings.Builder
	fg.Stderr = &fgErr
	if err := fg.Start(); err != nil {
		t.Fatal(err)
	}
	inHand := false
	for deadline := time.Now().Add(20 * time.Second); !inHand && time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		inHand = countNamed(first, "sleep") >= 2
	}
	if !inHand {
		fg.Process.Kill()
		t.Fatal("the foreground call's child did not appear under the host")
	}
	syscall.Kill(first, syscall.SIGKILL)
	done := make(chan error, 1)
	go func() { done <- fg.Wait() }()
	select {
	case err := <-done:
		if err == nil || !strings.Contains(fgErr.String(), fmt.Sprintf("the host (pid %d) went away during the stream call", first)) {
			t.Fatalf("front end of a dead host: %v\n%s", err, fgErr.String())
		}
	case <-time.After(30 * time.Second):
		fg.Process.Kill()
		t.Fatal("the front end of a dead host hangs")
	}
	// The next front end starts a new host.
	if out, stderr, err := e.runHost(t, "tools", "call", "read_file", `{"path":"a.txt"}`); err != nil || !strings.Contains(out, "from the workspace") {
		t.Fatalf("after the kill: %v\n%s%s", err, out, stderr)
	}
	if second := e.hostPID(t); second == first {
		t.Fatal("the same host?")
	}
	show, stderr, err := e.runHost(t, "tasks", "show", id, "--json")
	if err != nil || !strings.Contains(show, `"state": "lost"`) || !strings.Contains(show, "host_crashed") {
		t.Fatalf("tasks show after the host died: %v\n%s%s", err, show, stderr)
	}
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		if syscall.Kill(sleeper, 0) != nil {
			break
		}
		if stat, _ := os.ReadFile(fmt.Sprintf("/proc/%d/stat", sleeper)); strings.Contains(string(stat), ") Z ") {
			break // ended, not yet reaped by its adoptive parent
		}
		if time.Now().After(deadline) {
			t.Fatalf("the dead host's task process %d still runs", sleeper)
		}
	}
}

// countNamed counts the processes called name below pid.
func countNamed(pid int, name string) int {
	n := 0
	for _, child := range childPIDsOf(pid) {
		if comm, _ := os.ReadFile(fmt.Sprintf("/proc/%d/comm", child)); strings.TrimSpace(string(comm)) == name {
			n++
		}
		n += countNamed(child, name)
	}
	return n
}

// TestHostRefusesCommandsItRuns is the task socket's attack on the host
// socket: a command the host runs (approved, no OS sandbox, so only the
// socket's own check stands) copies the token and asks the host for its
// status and for a call. It is refused as a descendant of the host.
func TestHostRefusesCommandsItRuns(t *testing.T) {
	e := newHostEnv(t)
	token := hostd.SocketPath(e.state) + ".token"
	attack := "cat " + token + " >/dev/null && " + e.bin + " --state " + e.state + " --plugin-dir " + e.builtin + " --workspace " + e.ws +
		" --approve allow:terminal --sandbox off host status; echo \"exit $?\""
	args, _ := json.Marshal(map[string]string{"command": attack})
	out, stderr, err := e.runHost(t, "--approve", "allow:terminal", "--sandbox", "off", "tools", "call", "terminal", string(args))
	if err != nil {
		t.Fatalf("the host's terminal call: %v\n%s%s", err, out, stderr)
	}
	if !strings.Contains(out, "does not answer commands or tools a demiurge runs") || !strings.Contains(out, "exit 1") || strings.Contains(out, "front ends") {
		t.Fatalf("the command the host ran was not refused:\n%s", out)
	}
}

// TestHostApproveRulesPerFrontEnd: one host, two front ends: the --approve
// rules of each judge its own calls only.
func TestHostApproveRulesPerFrontEnd(t *testing.T) {
	e := newHostEnv(t)
	out, stderr, err := e.runHost(t, "--approve", "allow:write_file", "tools", "call", "write_file", `{"path":"b.txt","content":"x"}`)
	if err != nil {
		t.Fatalf("allowed by its own rule: %v\n%s%s", err, out, stderr)
	}
	first := e.hostPID(t)
	out, stderr, err = e.runHost(t, "tools", "call", "write_file", `{"path":"c.txt","content":"x"}`)
	if err == nil || !strings.Contains(stderr, "denied") {
		t.Fatalf("a front end without the rule was not denied: %v\n%s%s", err, out, stderr)
	}
	if _, err := os.Stat(filepath.Join(e.ws, "c.txt")); err == nil {
		t.Fatal("the second front end's write was made under the first one's rule")
	}
	if e.hostPID(t) != first {
		t.Fatal("the two front ends did not share one host")
	}
}

// TestHostSocketUnreachableFromSandbox: a command the host runs in its
// OS sandbox (the default) cannot list STATE/runtime nor connect to the
// host socket, whatever it knows of its path.
func TestHostSocketUnreachableFromSandbox(t *testing.T) {
	if _, err := exec.LookPath("perl"); err != nil {
		t.Skip("perl connects to the Unix socket in this test")
	}
	e := newHostEnv(t)
	sock := hostd.SocketPath(e.state)
	probe := "ls " + filepath.Dir(sock) + " 2>&1; perl -MIO::Socket::UNIX -e 'print IO::Socket::UNIX->new(Peer=>q{" + sock +
		"}) ? qq{connected\\n} : qq{refused: $!\\n}'"
	args, _ := json.Marshal(map[string]string{"command": probe})
	out, stderr, err := e.runHost(t, "--approve", "allow:terminal", "tools", "call", "terminal", string(args))
	if err != nil {
		t.Fatalf("%v\n%s%s", err, out, stderr)
	}
	if !strings.Contains(out, "sandbox: workspace-write") || strings.Contains(out, "\nconnected\n") || !strings.Contains(out, "\nrefused: ") ||
		strings.Contains(out, "host.sock.token") {
		t.Fatalf("the sandboxed command reached the host socket:\n%s", out)
	}
}

// TestHostYieldsToInProcessCommands: a command kept in its own process
// (DEMIURGE_HOST=off; `mcp list`, which opens the store) stops an idle host
// and runs; with a front end attached it is refused naming the busy host,
// which goes on (it does not wait on the store lock, nor connect and lose
// its audit event). Through the host path the same command, and the
// interactive session from a pipe, reach the busy host.
func TestHostYieldsToInProcessCommands(t *testing.T) {
	e := newHostEnv(t)
	inProcess := func(args ...string) (string, string, error) {
		var o, s strings.Builder
		c := e.cmd(args...)
		c.Env = append(c.Env, "DEMIURGE_HOST=off")
		c.Stdout, c.Stderr = &o, &s
		err := c.Run()
		return o.String(), s.String(), err
	}
	if out, stderr, err := e.runHost(t, "tools", "call", "read_file", `{"path":"a.txt"}`); err != nil {
		t.Fatalf("%v\n%s%s", err, out, stderr)
	}
	e.hostPID(t)
	if out, stderr, err := inProcess("mcp", "list"); err != nil || !strings.Contains(out, "no MCP servers are declared") {
		t.Fatalf("an in-process command beside an idle host: %v\n%s%s", err, out, stderr)
	}
	if _, running := hostd.Running(e.state); running {
		t.Fatal("the idle host still runs")
	}
	// A front end attached: an `mcp serve` whose client stays.
	serve := e.cmd("mcp", "serve")
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
	pid := e.hostPID(t)
	refusal := fmt.Sprintf("the state is held by a running host (pid %d) with 1 front end(s) and 0 running task(s), and DEMIURGE_HOST=off keeps this command in its own process", pid)
	if out, stderr, err := inProcess("mcp", "list"); err == nil || !strings.Contains(stderr, refusal) {
		t.Fatalf("an in-process command beside a busy host: want refused with %q, got %v\n%s%s", refusal, err, out, stderr)
	}
	if out, stderr, err := e.runHost(t, "mcp", "list"); err != nil || !strings.Contains(out, "no MCP servers are declared") {
		t.Fatalf("mcp list through the busy host: %v\n%s%s", err, out, stderr)
	}
	if e.hostPID(t) != pid {
		t.Fatal("the busy host was stopped")
	}
	out, stderr, err := e.interactive(t, "/tasks\n/quit\n")
	if err != nil || !strings.Contains(out, "no tasks") || !strings.Contains(out, fmt.Sprintf("in the host (pid %d)", pid)) {
		t.Fatalf("the pipe-fed session beside a busy host: %v\n%s%s", err, out, stderr)
	}
}

// TestSandboxedCommandFindsNoWayToTheHost: the spellings a command the host
// runs in its sandbox might try to reach the host socket, in each mode the
// model can ask for (workspace-write, and network through the egress
// proxy): a symlink in the workspace to the socket and to STATE/runtime,
// the socket through /proc/self/cwd, a descriptor it inherited (it has
// only its three standard ones and its own), and the host's process (its
// pid namespace holds only the sandbox). None reaches the socket or reads
// the token.
func TestSandboxedCommandFindsNoWayToTheHost(t *testing.T) {
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 connects to the Unix socket in this test")
	}
	e := newHostEnv(t)
	sock := hostd.SocketPath(e.state)
	if err := os.Symlink(sock, filepath.Join(e.ws, "hs")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Dir(sock), filepath.Join(e.ws, "rt")); err != nil {
		t.Fatal(err)
	}
	probe := `cat rt/host.sock.token 2>/dev/null | wc -c | sed 's/^/token bytes /'; ` +
		`for p in hs /proc/self/cwd/hs rt/host.sock ` + sock + `; do python3 -c 'import socket,sys
try:
  s=socket.socket(socket.AF_UNIX); s.connect(sys.argv[1]); print("CONNECTED", sys.argv[1])
except OSError as e: print("refused", sys.argv[1], e.errno)' $p; done; ` +
		`python3 -c 'import os,stat
n=0
for f in os.listdir("/proc/self/fd"):
  try: n+=stat.S_ISSOCK(os.fstat(int(f)).st_mode)
  except OSError: pass
print("inherited sockets", n)'; ` +
		`echo "processes $(ls /proc | grep -c '^[0-9]')"; grep -l demiurge-host /proc/[0-9]*/comm 2>/dev/null | wc -l | sed 's/^/hosts seen /'`
	for _, network := range []bool{false, true} {
		args, _ := json.Marshal(map[string]any{"command": probe, "network": network})
		out, stderr, err := e.runHost(t, "--approve", "allow:terminal", "tools", "call", "terminal", string(args))
		if err != nil {
			t.Fatalf("network %v: %v\n%s%s", network, err, out, stderr)
		}
		mode := map[bool]string{false: "workspace-write", true: "network"}[network]
		for _, want := range []string{"sandbox: " + mode, "\ntoken bytes 0\n", "\nrefused hs ", "\nrefused /proc/self/cwd/hs ", "\nrefused rt/host.sock ",
			"\nrefused " + sock + " ", "\ninherited sockets 0\n", "\nhosts seen 0\n"} {
			if !strings.Contains(out+stderr, want) || strings.Contains(out, "\nCONNECTED") {
				t.Fatalf("%s: the sandboxed command found a way to the host (want %q):\n%s%s", mode, want, out, stderr)
			}
		}
	}
}
