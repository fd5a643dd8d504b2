package worker

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sync"
	"syscall"
	"time"
)

// MaxLine bounds one protocol line from a worker: a result is text for a
// model, and a runaway worker must not grow the plugin without bound.
const MaxLine = 16 << 20

// Command says how to start a worker.
type Command struct {
	Argv []string
	Dir  string
	// Env is the worker's whole environment; never nil, since a nil
	// exec.Cmd.Env would inherit the plugin's.
	Env []string
	// Wrap, when set, rewrites the command just before it starts (the OS
	// sandbox: sandbox.Wrap); its error means the worker must not start.
	Wrap func(*exec.Cmd) error
}

// Host answers a running call's requests.
type Host interface {
	Capability(ctx context.Context, name string, require bool) (granted bool, reason string)
	Deliver(ctx context.Context, text string) error
	// CallTool runs a tool call for the running call (pipeline slots
	// only: the host refuses it to tools).
	CallTool(ctx context.Context, tool string, args json.RawMessage) (ToolCallResult, error)
	// Agents answers ctx.agents (run, spawn and a handle's status, wait,
	// cancel) with the host's JSON; a refusal is an *AgentError.
	Agents(ctx context.Context, req AgentRequest) (json.RawMessage, error)
}

// ToolCallResult is what a tool call a worker made returned: the model's
// view of it.
type ToolCallResult struct {
	Content string
	IsError bool
	Status  string
}

// Worker is one worker process that has announced it is ready.
type Worker struct {
	cmd   *exec.Cmd
	stdin io.WriteCloser
	out   *bufio.Reader
	// outFile is out's pipe; closing it wakes a read a grandchild that
	// holds the pipe open would block.
	outFile *os.File
	stderr  *tail
	exited  chan struct{}
	// waitErr is cmd.Wait's error, readable once exited is closed.
	waitErr  error
	killOnce sync.Once
}

// Start starts a worker in its own process group and waits until it says
// it is ready; ctx bounds the wait (a module's import runs in it).
func Start(ctx context.Context, c Command) (*Worker, error) {
	if len(c.Argv) == 0 {
		return nil, errors.New("worker: no command")
	}
	cmd := exec.Command(c.Argv[0], c.Argv[1:]...)
	cmd.Dir = c.Dir
	cmd.Env = c.Env
	if cmd.Env == nil {
		cmd.Env = []string{}
	}
	// Its own group, so a kill reaches whatever the tool started; and it
	// dies with the plugin even if the plugin is killed outright.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if c.Wrap != nil {
		if err := c.Wrap(cmd); err != nil {
			return nil, err
		}
	}
	w := &Worker{cmd: cmd, stderr: newTail(4096), exited: make(chan struct{})}
	cmd.Stderr = w.stderr
	// A grandchild that left the group may hold stderr open; Wait must
	// still return.
	cmd.WaitDelay = time.Second
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	// Our own pipe, not StdoutPipe: Wait (in the goroutine below) closes a
	// StdoutPipe as soon as the worker exits, which would fail a read of
	// what it wrote just before ("file already closed"). The read end is
	// ours to close (Kill).
	stdout, childOut, err := os.Pipe()
	if err != nil {
		stdin.Close()
		return nil, err
	}
	cmd.Stdout = childOut
	err = cmd.Start()
	childOut.Close()
	if err != nil {
		stdout.Close()
		stdin.Close()
		return nil, fmt.Errorf("start %s: %w", c.Argv[0], err)
	}
	w.stdin, w.out, w.outFile = stdin, bufio.NewReaderSize(stdout, 64<<10), stdout
	go func() {
		w.waitErr = cmd.Wait()
		close(w.exited)
	}()
	stop := w.killOn(ctx)
	msg, err := w.read()
	stop()
	var pe protocolError
	switch {
	case errors.As(err, &pe):
		w.Kill()
		return nil, err
	case err != nil:
		w.Kill()
		return nil, w.failure(ctx, "did not start", err)
	case msg.Type == "fatal":
		w.Kill()
		return nil, fmt.Errorf("%s", msg.Error)
	case msg.Type != "ready":
		w.Kill()
		return nil, fmt.Errorf("worker protocol: the first message must be {\"type\":\"ready\"}, got %q", msg.Type)
	case msg.Protocol != Protocol:
		w.Kill()
		return nil, fmt.Errorf("worker speaks protocol %d; this runtime speaks %d", msg.Protocol, Protocol)
	}
	return w, nil
}

// Call runs one call to its end. An error other than a tool's own error
// result leaves the worker killed; the caller must not reuse it then.
func (w *Worker) Call(ctx context.Context, id string, args json.RawMessage, cc CallContext, host Host) (Outcome, error) {
	stop := w.killOn(ctx)
	defer stop()
	if len(args) == 0 {
		args = json.RawMessage(`{}`)
	}
	if err := w.send(message{Type: "call", ID: id, Args: args, Context: &cc}); err != nil {
		w.Kill()
		return Outcome{}, w.failure(ctx, "could not take the call", err)
	}
	for {
		msg, err := w.read()
		var pe protocolError
		if errors.As(err, &pe) {
			w.Kill()
			return Outcome{}, err
		}
		if err != nil {
			w.Kill()
			return Outcome{}, w.failure(ctx, "ended the call without a result", err)
		}
		switch msg.Type {
		case "capability":
			granted, reason := host.Capability(ctx, msg.Capability, msg.Require)
			err = w.send(replyMessage{Type: "capability_result", Granted: granted, Reason: reason})
		case "deliver":
			r := replyMessage{Type: "deliver_result"}
			if derr := host.Deliver(ctx, msg.Text); derr != nil {
				r.Error = derr.Error()
			}
			err = w.send(r)
		case "tool_call":
			r := replyMessage{Type: "tool_call_result"}
			if res, cerr := host.CallTool(ctx, msg.Tool, msg.Args); cerr != nil {
				r.Error = cerr.Error()
			} else {
				r.Content, r.IsError, r.Status = res.Content, res.IsError, res.Status
			}
			err = w.send(r)
		case "agents":
			err = w.send(agentsReply(ctx, host, msg))
		case "result":
			return Outcome{Value: msg.Value}, nil
		case "error":
			return Outcome{Failed: true, Code: msg.Code, Error: msg.Error}, nil
		default:
			w.Kill()
			return Outcome{}, fmt.Errorf("worker protocol: unexpected message %q during a call", msg.Type)
		}
		if err != nil {
			w.Kill()
			return Outcome{}, w.failure(ctx, "stopped answering", err)
		}
	}
}

// Outcome is how a call ended: a value, or the tool's own error.
type Outcome struct {
	Value  json.RawMessage
	Failed bool
	Code   string // capability_denied, exception, or the worker's own code
	Error  string
}

// killOn kills the worker when ctx ends before stop is called.
func (w *Worker) killOn(ctx context.Context) (stop func()) {
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		select {
		case <-ctx.Done():
			w.Kill()
		case <-done:
		}
	})
	return func() { close(done); wg.Wait() }
}

// failure explains why a worker failed: the context's end, or its exit
// with the end of what it wrote on stderr.
func (w *Worker) failure(ctx context.Context, what string, err error) error {
	if ctx.Err() != nil {
		return context.Cause(ctx)
	}
	msg := fmt.Sprintf("the worker %s (%v)", what, err)
	select {
	case <-w.exited: // waitErr is set before exited closes
		if w.waitErr != nil {
			msg = fmt.Sprintf("the worker %s: it exited (%v)", what, w.waitErr)
		}
	case <-time.After(2 * time.Second):
	}
	if t := bytes.TrimSpace(w.stderr.Bytes()); len(t) > 0 {
		msg += "; its last stderr: " + string(t)
	}
	return errors.New(msg)
}

func (w *Worker) send(v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	_, err = w.stdin.Write(append(b, '\n'))
	return err
}

// read reads one protocol line; a line longer than MaxLine or one that is
// not a JSON object is a protocol error.
func (w *Worker) read() (message, error) {
	var line []byte
	for {
		chunk, err := w.out.ReadSlice('\n')
		line = append(line, chunk...)
		if len(line) > MaxLine {
			return message{}, protocolError(fmt.Sprintf("worker protocol: a line longer than %d bytes", MaxLine))
		}
		if err == nil {
			break
		}
		if !errors.Is(err, bufio.ErrBufferFull) {
			return message{}, err
		}
	}
	var m message
	if err := json.Unmarshal(line, &m); err != nil {
		return message{}, protocolError(fmt.Sprintf("worker protocol: stdout must carry only JSON lines (log to stderr); got %q: %v", clip(line), err))
	}
	return m, nil
}

// protocolError is a worker writing what the protocol does not allow.
type protocolError string

func (e protocolError) Error() string { return string(e) }

// Alive reports whether the worker process is still running.
func (w *Worker) Alive() bool {
	select {
	case <-w.exited:
		return false
	default:
		return true
	}
}

// Kill kills the worker's whole process group and waits for the worker.
func (w *Worker) Kill() {
	w.killOnce.Do(func() {
		if p := w.cmd.Process; p != nil {
			_ = syscall.Kill(-p.Pid, syscall.SIGKILL)
			_ = p.Kill()
		}
		_ = w.stdin.Close()
	})
	<-w.exited
	_ = w.outFile.Close()
}

// Close ends an idle worker: closing stdin lets it exit by itself, and
// whatever is left of its group is killed.
func (w *Worker) Close() {
	_ = w.stdin.Close()
	select {
	case <-w.exited:
	case <-time.After(500 * time.Millisecond):
	}
	w.Kill()
}

// PID is the worker's process id (and process group id).
func (w *Worker) PID() int { return w.cmd.Process.Pid }

func clip(b []byte) string {
	if len(b) > 200 {
		return string(b[:200]) + "…"
	}
	return string(b)
}

// tail keeps the last n bytes written to it: the end of a worker's stderr
// says why it failed, and the rest must not grow the plugin.
type tail struct {
	mu  sync.Mutex
	n   int
	buf []byte
}

func newTail(n int) *tail { return &tail{n: n} }

func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if len(t.buf) > t.n {
		t.buf = append(t.buf[:0], t.buf[len(t.buf)-t.n:]...)
	}
	return len(p), nil
}

func (t *tail) Bytes() []byte {
	t.mu.Lock()
	defer t.mu.Unlock()
	return append([]byte(nil), t.buf...)
}

// agentsReply answers one ctx.agents request.
func agentsReply(ctx context.Context, host Host, msg message) replyMessage {
	r := replyMessage{Type: "agents_result"}
	v, err := host.Agents(ctx, AgentRequest{Op: msg.Op, Args: msg.Args, TaskID: msg.TaskID, TimeoutMS: msg.TimeoutMS})
	var ae *AgentError
	switch {
	case errors.As(err, &ae):
		r.Code, r.Error = ae.Code, ae.Message
	case err != nil:
		r.Code, r.Error = AgentErrFailed, err.Error()
	default:
		r.Value = v
	}
	return r
}
