package toolhost

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"demiurge.dev/host/dispatch"
)

// TestAuthoredCallTimeout: an authored tool that never finishes is
// cancelled at the operator's call timeout (not the core's: tool.yaml has
// no say), the call fails with a message, and its worker is stopped.
func TestAuthoredCallTimeout(t *testing.T) {
	withAuthored(t)
	dir := authoredCore(t, "toolsets: [coding]\nslots: {tools: agent/tools}\ncapabilities: [fs.read, tool.call:slow]\n", map[string][2]string{
		"slow": {"description: sleeps\nrisk: low\ncapability: tool.call:slow\n", "import time\n\ndef execute(ctx, args):\n    time.sleep(120)\n    return 'late'\n"},
	})
	h, err := Open(Options{CoreDir: dir, Workspace: t.TempDir(), StateDir: t.TempDir(), BuiltinPluginDir: builtinDir,
		Rules: []string{"allow:slow"}, CallTimeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	turn, err := h.NewTurn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	out := turn.Call(ctx, dispatch.ToolCall{ID: "c1", Name: "slow", Args: []byte(`{}`)})
	if out.Status != dispatch.StatusFailed || !strings.Contains(out.Views.Model.String(), "within the host's call timeout of 1s") {
		t.Fatalf("%s %q", out.Status, out.Views.Model.String())
	}
	if took := time.Since(start); took > 30*time.Second {
		t.Fatalf("the call took %s", took)
	}
	// The worker running the module is gone.
	module := filepath.Join(dir, "agent", "tools", "slow")
	deadline := time.Now().Add(10 * time.Second)
	for {
		pid := processWithArg(module)
		if pid == "" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the worker (pid %s) still runs after the timeout", pid)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// processWithArg is the pid of a process whose command line mentions s.
func processWithArg(s string) string {
	dirs, _ := filepath.Glob("/proc/[0-9]*")
	for _, d := range dirs {
		b, err := os.ReadFile(filepath.Join(d, "cmdline"))
		if err == nil && strings.Contains(string(b), s) {
			return filepath.Base(d)
		}
	}
	return ""
}
