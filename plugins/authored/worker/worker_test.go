package worker

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// pythonTool writes module.py with src into a fresh directory and returns
// the command that runs it through the bridge, as the runtime does.
func pythonTool(t *testing.T, src string) Command {
	t.Helper()
	py := interpreter(t)
	dir := t.TempDir()
	mod := filepath.Join(dir, "module.py")
	if err := os.WriteFile(mod, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	env := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + dir}
	return Command{Argv: []string{py, "-I", "-B", "-c", Bridge, mod, "execute"}, Dir: dir, Env: env}
}

var (
	pythonOnce sync.Once
	pythonPath string
	pythonErr  error
)

// interpreter is python3 as the runtime resolves it.
func interpreter(t *testing.T) string {
	t.Helper()
	pythonOnce.Do(func() { pythonPath, pythonErr = Python(context.Background(), os.Getenv("PATH")) })
	if pythonErr != nil {
		t.Fatalf("python3: %v", pythonErr)
	}
	return pythonPath
}

// recordingHost grants what it was told to and records every request.
type recordingHost struct {
	granted map[string]bool
	noTurn  bool // Deliver fails, as when no turn takes output
	mu      sync.Mutex
	asked   []string
	out     []string
}

func (h *recordingHost) Capability(_ context.Context, name string, require bool) (bool, string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.asked = append(h.asked, name+" require="+strconv.FormatBool(require))
	if h.granted[name] {
		return true, ""
	}
	return false, "not declared in tool.yaml capabilities"
}

func (h *recordingHost) CallTool(_ context.Context, tool string, args json.RawMessage) (ToolCallResult, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.asked = append(h.asked, "call "+tool+" "+string(args))
	if tool == "forbidden" {
		return ToolCallResult{}, errors.New("only a pipeline slot may call tools through the host")
	}
	if tool == "denied" {
		return ToolCallResult{Content: "denied is not allowed", IsError: true, Status: "denied"}, nil
	}
	return ToolCallResult{Content: "ran " + tool, Status: "ok"}, nil
}

func (h *recordingHost) Agents(_ context.Context, req AgentRequest) (json.RawMessage, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.asked = append(h.asked, "agents "+req.Op+" "+string(req.Args)+req.TaskID)
	return nil, &AgentError{Code: AgentErrPermission, Message: "no child agents in this test"}
}

func (h *recordingHost) Deliver(_ context.Context, text string) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.noTurn {
		return errors.New("this turn takes no delivered output")
	}
	h.out = append(h.out, text)
	return nil
}

func call(t *testing.T, p *Pool, c Command, args string, host Host, timeout time.Duration) (Outcome, bool, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	return p.Call(ctx, "tool", c, "inv_1", json.RawMessage(args), CallContext{SlotID: "tool", SlotPath: "agent/tools/tool", Workspace: c.Dir, TurnID: "turn_1"}, host)
}

func TestCallAndWarmReuse(t *testing.T) {
	c := pythonTool(t, `import os
from demiurge.sdk import ToolResult

def execute(ctx, args):
    return ToolResult(content="%s %s %s %d" % (ctx.slot_id, ctx.slot_path, args["name"], os.getpid()),
                      display_output="card")
`)
	p := NewPool()
	defer p.Close()
	host := &recordingHost{}
	out1, started, err := call(t, p, c, `{"name":"a"}`, host, 10*time.Second)
	if err != nil || !started || out1.Failed {
		t.Fatalf("first call: %+v, %v, %v", out1, started, err)
	}
	var v1 map[string]any
	if err := json.Unmarshal(out1.Value, &v1); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(v1["content"].(string), "tool agent/tools/tool a ") || v1["display_output"] != "card" {
		t.Errorf("value = %s", out1.Value)
	}
	if p.Idle("tool") != 1 {
		t.Fatalf("idle workers after a clean call = %d, want 1", p.Idle("tool"))
	}
	out2, _, err := call(t, p, c, `{"name":"b"}`, host, 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	var v2 map[string]any
	_ = json.Unmarshal(out2.Value, &v2)
	pid1 := strings.Fields(v1["content"].(string))[3]
	pid2 := strings.Fields(v2["content"].(string))[3]
	if pid1 != pid2 {
		t.Errorf("the second call ran in process %s, the first in %s: the worker was not reused", pid2, pid1)
	}
}

// Whatever a module prints, in Python, through fd 1 or from a child
// process, goes to stderr and never into the protocol.
func TestStdoutDoesNotCorruptTheProtocol(t *testing.T) {
	c := pythonTool(t, `import os, subprocess, sys
print("printed at import")

def execute(ctx, args):
    print("printed by print", flush=True)
    sys.stdout.write("written to sys.stdout\n")
    os.write(1, b"written to fd 1\n")
    subprocess.run(["echo", "echoed by a child"], check=True)
    sys.__stdout__.write("written to sys.__stdout__\n")
    sys.__stdout__.flush()
    return {"content": "clean"}
`)
	p := NewPool()
	defer p.Close()
	for i := range 2 {
		out, _, err := call(t, p, c, `{}`, &recordingHost{}, 10*time.Second)
		if err != nil || out.Failed || !strings.Contains(string(out.Value), `"clean"`) {
			t.Fatalf("call %d: %+v, %v", i, out, err)
		}
	}
}

// A module that raises fails its call with the exception, and the worker
// stays usable.
func TestRaiseIsAToolError(t *testing.T) {
	c := pythonTool(t, `import os
def execute(ctx, args):
    if args.get("fail"):
        raise ValueError("the note is empty")
    return os.getpid()
`)
	p := NewPool()
	defer p.Close()
	out, started, err := call(t, p, c, `{"fail":true}`, &recordingHost{}, 10*time.Second)
	if err != nil || !started || !out.Failed || out.Code != "exception" || out.Error != "ValueError: the note is empty" {
		t.Fatalf("raise: %+v, %v, %v", out, started, err)
	}
	if p.Idle("tool") != 1 {
		t.Errorf("a raising call did not keep the worker")
	}
	out, _, err = call(t, p, c, `{}`, &recordingHost{}, 10*time.Second)
	if err != nil || out.Failed {
		t.Errorf("call after a raise: %+v, %v", out, err)
	}
}

// A call that outlives its time kills the worker's whole process group,
// the child the module started included.
func TestTimeoutKillsTheProcessGroup(t *testing.T) {
	c := pythonTool(t, `import subprocess, time
def execute(ctx, args):
    if not args:
        return "warm"
    child = subprocess.Popen(["sleep", "300"])
    with open(args["pidfile"], "w") as f:
        f.write(str(child.pid))
    time.sleep(300)
`)
	pidfile := filepath.Join(c.Dir, "child.pid")
	p := NewPool()
	defer p.Close()
	// Warm first: a slow machine must not spend the short deadline on
	// starting python.
	if _, _, err := call(t, p, c, `{}`, &recordingHost{}, 30*time.Second); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	_, started, err := call(t, p, c, `{"pidfile":"`+pidfile+`"}`, &recordingHost{}, 1500*time.Millisecond)
	if err == nil || !errors.Is(err, context.DeadlineExceeded) || !started {
		t.Fatalf("a hung call ended with %v (started %v), want the deadline", err, started)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("the hung call took %v to end", d)
	}
	if p.Idle("tool") != 0 {
		t.Error("a killed worker was kept")
	}
	b, err := os.ReadFile(pidfile)
	if err != nil {
		t.Fatalf("the module never started its child: %v", err)
	}
	child, _ := strconv.Atoi(string(b))
	deadline := time.Now().Add(5 * time.Second)
	for syscall.Kill(child, 0) == nil && !zombie(child) {
		if time.Now().After(deadline) {
			t.Fatalf("the module's child %d survived the timeout", child)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// zombie reports a killed process that only waits for its reaper (init,
// once its parent is gone).
func zombie(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return true
	}
	f := strings.Fields(string(b))
	return len(f) > 2 && f[2] == "Z"
}

func TestCapabilityAndDeliver(t *testing.T) {
	c := pythonTool(t, `from demiurge.sdk import CapabilityDenied
def execute(ctx, args):
    ctx.output.deliver("halfway")
    seen = [ctx.capability.can("fs.read"), ctx.capability.can("network.fetch")]
    ctx.capability.require("fs.read")
    if args.get("caught"):
        try:
            ctx.capability.require("network.fetch")
        except CapabilityDenied as e:
            return {"content": "caught: %s" % e}
    ctx.capability.require("network.fetch")
    return seen
`)
	p := NewPool()
	defer p.Close()
	host := &recordingHost{granted: map[string]bool{"fs.read": true}}
	out, _, err := call(t, p, c, `{}`, host, 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if !out.Failed || out.Code != "capability_denied" || out.Error != "capability network.fetch is not granted: not declared in tool.yaml capabilities" {
		t.Errorf("an ungranted require: %+v", out)
	}
	want := []string{"fs.read require=false", "network.fetch require=false", "fs.read require=true", "network.fetch require=true"}
	if strings.Join(host.asked, ",") != strings.Join(want, ",") || strings.Join(host.out, ",") != "halfway" {
		t.Errorf("host saw %v and %v", host.asked, host.out)
	}
	out, _, err = call(t, p, c, `{"caught":true}`, host, 10*time.Second)
	if err != nil || out.Failed || !strings.Contains(string(out.Value), "caught: capability network.fetch is not granted") {
		t.Errorf("a caught denial: %+v, %v", out, err)
	}
}

func TestStartFailures(t *testing.T) {
	tests := []struct{ name, src, want string }{
		{"import raises", "raise ImportError('no such helper')\n", "importing module.py failed: ImportError: no such helper"},
		{"syntax error", "def execute(ctx, args)\n", "importing module.py failed: SyntaxError"},
		{"no function", "def run(ctx, args):\n    pass\n", "module.py has no callable execute(ctx, args)"},
		{"exits at import", "import os\nos._exit(3)\n", "did not start: it exited (exit status 3)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := pythonTool(t, tt.src)
			p := NewPool()
			defer p.Close()
			_, started, err := call(t, p, c, `{}`, &recordingHost{}, 10*time.Second)
			if err == nil || started || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error = %v (started %v), want %q", err, started, tt.want)
			}
		})
	}
}

// A worker that writes something other than protocol lines on stdout is
// refused, and one that speaks another protocol version too.
func TestProtocolViolations(t *testing.T) {
	dir := t.TempDir()
	tests := []struct{ name, script, want string }{
		{"not JSON", "echo hello", "stdout must carry only JSON lines"},
		{"wrong first message", `echo '{"type":"result"}'`, "the first message must be"},
		{"other protocol", `echo '{"type":"ready","protocol":2}'`, "speaks protocol 2"},
		{"dies mid-call", `echo '{"type":"ready","protocol":1}'; read line; echo oops >&2; exit 4`, "ended the call without a result: it exited (exit status 4); its last stderr: oops"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := Command{Argv: []string{"/bin/sh", "-c", tt.script}, Dir: dir, Env: []string{}}
			p := NewPool()
			defer p.Close()
			_, _, err := call(t, p, c, `{}`, &recordingHost{}, 10*time.Second)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error = %v, want %q", err, tt.want)
			}
		})
	}
}

// Concurrent calls of one tool run in workers of their own, and the pool
// keeps at most MaxIdle of them afterwards.
func TestConcurrentCalls(t *testing.T) {
	c := pythonTool(t, "import time\ndef execute(ctx, args):\n    time.sleep(0.2)\n    return 'ok'\n")
	p := NewPool()
	defer p.Close()
	var wg sync.WaitGroup
	errs := make(chan error, 4)
	for range 4 {
		wg.Go(func() {
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			out, _, err := p.Call(ctx, "tool", c, "inv", nil, CallContext{}, &recordingHost{})
			if err == nil && string(out.Value) != `"ok"` {
				err = errors.New("value " + string(out.Value))
			}
			errs <- err
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
	if n := p.Idle("tool"); n != MaxIdle {
		t.Errorf("idle workers = %d, want %d", n, MaxIdle)
	}
}

// An idle worker is stopped after the pool's idle TTL.
func TestIdleWorkersExpire(t *testing.T) {
	c := pythonTool(t, "import os\ndef execute(ctx, args):\n    return os.getpid()\n")
	p := NewPool()
	p.IdleTTL = 300 * time.Millisecond
	defer p.Close()
	out, _, err := call(t, p, c, `{}`, &recordingHost{}, 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	pid, _ := strconv.Atoi(string(out.Value))
	deadline := time.Now().Add(10 * time.Second)
	for p.Idle("tool") > 0 || (syscall.Kill(pid, 0) == nil && !zombie(pid)) {
		if time.Now().After(deadline) {
			t.Fatalf("the idle worker %d is still there after its TTL", pid)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// The protocol reader takes any bytes a worker writes: it returns
// messages or errors, never panics or grows past MaxLine.
func FuzzRead(f *testing.F) {
	for _, s := range []string{`{"type":"ready","protocol":1}` + "\n", "garbage\n", `{"type":"result","value":` + "\n", "", "{}\n{}\n", `{"type":"capability","capability":"fs.read","require":true}` + "\n"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		w := &Worker{out: bufio.NewReaderSize(bytes.NewReader(data), 16)}
		for range 8 {
			if _, err := w.read(); err != nil {
				return
			}
		}
	})
}

// Delivering output when no turn takes it is not the tool's failure.
func TestDeliverWithoutATurn(t *testing.T) {
	c := pythonTool(t, "def execute(ctx, args):\n    return [ctx.output.deliver('a'), 'done']\n")
	p := NewPool()
	defer p.Close()
	for _, tt := range []struct {
		noTurn bool
		want   string
	}{{false, `[true, "done"]`}, {true, `[false, "done"]`}} {
		out, _, err := call(t, p, c, `{}`, &recordingHost{noTurn: tt.noTurn}, 10*time.Second)
		if err != nil || out.Failed || string(out.Value) != tt.want {
			t.Errorf("noTurn=%v: %+v, %v; want %s", tt.noTurn, out, err, tt.want)
		}
	}
}

// Values JSON cannot carry as they are still make a result.
func TestOddValues(t *testing.T) {
	c := pythonTool(t, `import math
def execute(ctx, args):
    return {"surrogate": "\udcff", "nan": [math.nan], "set": {1}}[args["k"]]
`)
	p := NewPool()
	defer p.Close()
	for k, want := range map[string]string{"surrogate": `"?"`, "nan": `"[nan]"`, "set": `"{1}"`} {
		out, _, err := call(t, p, c, `{"k":"`+k+`"}`, &recordingHost{}, 10*time.Second)
		if err != nil || out.Failed || string(out.Value) != want {
			t.Errorf("%s: %+v, %v; want %s", k, out, err, want)
		}
	}
}

// ctx.tools.call goes to the host and back as the model's view; a denied
// call is a result, not an exception; a call the host will not run at all
// raises ToolCallError; a non-dict args raises before anything is sent.
func TestToolCallsGoThroughTheHost(t *testing.T) {
	c := pythonTool(t, `from demiurge.sdk import ToolCallError
def execute(ctx, args):
    out = [ctx.tools.call("read_file", {"path": "a.txt"}), ctx.tools.call("denied")]
    try:
        ctx.tools.call("forbidden", {})
    except ToolCallError as e:
        out.append(str(e))
    try:
        ctx.tools.call("read_file", ["not", "a", "dict"])
    except TypeError as e:
        out.append(str(e))
    return out
`)
	p := NewPool()
	defer p.Close()
	host := &recordingHost{}
	out, _, err := call(t, p, c, `{}`, host, 10*time.Second)
	if err != nil || out.Failed {
		t.Fatalf("%+v %v", out, err)
	}
	var got []any
	if err := json.Unmarshal(out.Value, &got); err != nil {
		t.Fatal(err)
	}
	want := `[{"content":"ran read_file","is_error":false,"status":"ok"},{"content":"denied is not allowed","is_error":true,"status":"denied"},` +
		`"ctx.tools.call('forbidden'): only a pipeline slot may call tools through the host","ctx.tools.call(name, args): args must be a dict, got list"]`
	if b, _ := json.Marshal(got); string(b) != want {
		t.Errorf("slot saw %s\nwant %s", b, want)
	}
	if strings.Join(host.asked, "|") != `call read_file {"path": "a.txt"}|call denied {}|call forbidden {}` {
		t.Errorf("host saw %q", host.asked)
	}
}
