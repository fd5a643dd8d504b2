package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"

	"demiurge.dev/plugins/authored/manifest"
	"demiurge.dev/plugins/authored/worker"
	"demiurge.dev/shared/toolsetv1"
)

// envKeys are the only variables a worker gets: the plugin's own
// environment is already the host's allowlist, and the worker gets no
// more than that (host credentials never reach authored code).
var envKeys = []string{"PATH", "HOME", "LANG", "LC_ALL", "LC_CTYPE", "LC_MESSAGES", "TZ", "TMPDIR"}

// runner starts and reuses the workers of authored tools.
type runner struct {
	pool *worker.Pool
	env  []string
	// python is the interpreter for module entrypoints, found on PATH at
	// first use.
	pyOnce sync.Once
	python string
	pyErr  error
	// pyPrefix is the interpreter's installation, which a sandboxed worker
	// is given to read.
	pyPrefix string
}

func newRunner() *runner {
	return &runner{pool: worker.NewPool(), env: workerEnv()}
}

func workerEnv() []string {
	env := make([]string, 0, len(envKeys))
	for _, k := range envKeys {
		if v, ok := os.LookupEnv(k); ok && !strings.ContainsRune(v, 0) {
			env = append(env, k+"="+v)
		}
	}
	return env
}

// command is how tool t's worker starts: python3 in isolated mode (-I: no
// PYTHON* variables, no user site, no script directory on sys.path; -B: no
// bytecode written into the core) running the bridge, or the executable.
func (r *runner) command(t *manifest.Tool, dir string) (worker.Command, error) {
	if t.Entrypoint.Kind == manifest.KindExec {
		return worker.Command{Argv: []string{t.Program}, Dir: dir, Env: r.env}, nil
	}
	r.pyOnce.Do(func() {
		r.python, r.pyErr = worker.Python(context.Background(), os.Getenv("PATH"))
		if r.pyErr == nil {
			r.pyPrefix, r.pyErr = worker.PythonPrefix(context.Background(), r.python)
		}
	})
	if r.pyErr != nil {
		return worker.Command{}, fmt.Errorf("%s is a Python tool: %w", t.ID, r.pyErr)
	}
	return worker.Command{
		Argv: []string{r.python, "-I", "-B", "-c", worker.Bridge, t.Program, t.Entrypoint.Function},
		Dir:  dir, Env: r.env,
	}, nil
}

// call runs one call of t and turns every way it can end into a result.
func (r *runner) call(ctx context.Context, t *manifest.Tool, req *toolsetv1.EffectRequest, host worker.Host) *toolsetv1.ToolResult {
	dir := req.GetWorkspace()
	if dir == "" {
		dir = t.Dir
	}
	cmd, err := r.command(t, dir)
	if err != nil {
		return &toolsetv1.ToolResult{IsError: true, ErrorCode: "tool_start_failed", Content: err.Error()}
	}
	if cmd.Wrap, err = workerSandbox(req.GetSandboxPolicy(), r.readable(t)); err != nil {
		return &toolsetv1.ToolResult{IsError: true, ErrorCode: "sandbox_unavailable", Content: fmt.Sprintf("%s was not started: %v", t.ID, err)}
	}
	cc := worker.CallContext{
		TurnID: req.GetTurnId(), SessionID: req.GetSessionId(),
		SlotID: t.ID, SlotPath: t.SlotPath, Workspace: req.GetWorkspace(),
	}
	out, started, err := r.pool.Call(ctx, t.ID+"\x00"+dir+"\x00"+req.GetSandboxPolicy(), cmd, req.GetInvocationId(), req.GetArguments(), cc, host)
	switch {
	case err != nil && ctx.Err() != nil:
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return &toolsetv1.ToolResult{IsError: true, ErrorCode: "timeout", Content: context.Cause(ctx).Error()}
		}
		return &toolsetv1.ToolResult{IsError: true, ErrorCode: "cancelled", Content: fmt.Sprintf("%s was cancelled before it finished; its worker was stopped", t.ID)}
	case err != nil && !started:
		return &toolsetv1.ToolResult{IsError: true, ErrorCode: "tool_start_failed", Content: fmt.Sprintf("%s could not start: %v", t.ID, err)}
	case err != nil:
		return &toolsetv1.ToolResult{IsError: true, ErrorCode: "tool_failed", Content: fmt.Sprintf("%s failed: %v", t.ID, err)}
	}
	return toResult(t.ID, out)
}

// readable is what t's worker must read beyond the host's policy: the
// Python interpreter's installation for a module entrypoint.
func (r *runner) readable(t *manifest.Tool) []string {
	if t.Entrypoint.Kind == manifest.KindExec || r.pyPrefix == "" {
		return nil
	}
	return []string{r.pyPrefix}
}

func (r *runner) close() { r.pool.Close() }
