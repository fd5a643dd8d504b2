package main

import (
	"context"
	"encoding/json"
	"io"
	"slices"
	"strings"
	"testing"
	"time"

	"demiurge.dev/shared/toolsetv1"
)

// A worker gets the allowlisted environment only: a credential in the
// plugin's environment does not reach authored code, and PYTHON*
// variables cannot steer the interpreter (isolated mode).
func TestWorkerEnvironmentIsAllowlisted(t *testing.T) {
	t.Setenv("DEMIURGE_TEST_API_KEY", "sk-should-not-leak")
	t.Setenv("PYTHONPATH", "/nonexistent/hijack")
	t.Setenv("PYTHONSTARTUP", "/nonexistent/startup.py")
	coreDir, root := writeCore(t, map[string]string{
		"env/tool.yaml": "", "env/module.py": `import os, sys
def execute(ctx, args):
    return {"content": "ok", "display_output": " ".join(sorted(os.environ)) + "|" + ":".join(sys.path)}
`,
	})
	c := serve(t, root, coreDir, &hostServices{})
	res := c.invoke(t, "env", `{}`, 0)
	keys, path, _ := strings.Cut(res.GetDisplayOutput(), "|")
	for _, k := range strings.Fields(keys) {
		// LC_CTYPE may be set by Python itself (PEP 538 locale coercion).
		if !slices.Contains(envKeys, k) {
			t.Errorf("the worker sees %s, which is not on the allowlist %v", k, envKeys)
		}
	}
	if strings.Contains(path, "hijack") {
		t.Errorf("PYTHONPATH reached the worker: %s", path)
	}
}

// Cancel stops a running call and its worker.
func TestCancelStopsTheCall(t *testing.T) {
	coreDir, root := writeCore(t, map[string]string{
		"wait/tool.yaml": "", "wait/module.py": "import time\ndef execute(ctx, args):\n    ctx.output.deliver('started')\n    time.sleep(600)\n",
	})
	host := &hostServices{}
	c := serve(t, root, coreDir, host)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	stream, err := c.client.Invoke(ctx, &toolsetv1.EffectRequest{InvocationId: "inv_wait", Tool: "wait", Arguments: []byte(`{}`), Workspace: c.workspace, SandboxPolicy: c.sandbox})
	if err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(20 * time.Second)
	for {
		host.mu.Lock()
		started := len(host.delivered) > 0
		host.mu.Unlock()
		if started {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the call never started")
		}
		time.Sleep(20 * time.Millisecond)
	}
	r, err := c.client.Cancel(context.Background(), &toolsetv1.CancelRequest{InvocationId: "inv_wait"})
	if err != nil || !r.GetFound() {
		t.Fatalf("Cancel = %v, %v", r, err)
	}
	var res *toolsetv1.ToolResult
	for {
		ev, err := stream.Recv()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		res = ev.GetResult()
	}
	if !res.GetIsError() || res.GetErrorCode() != "cancelled" || res.GetContent() != "wait was cancelled before it finished; its worker was stopped" {
		b, _ := json.Marshal(res)
		t.Errorf("result = %s, want a cancelled error", b)
	}
}
