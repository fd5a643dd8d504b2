package main

import (
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// TestSandboxLimitsReachCommands: the operator's limits bound what a
// terminal command does through the real host, plugin and helper: an
// unasked `yes | sort` spilling into TMPDIR runs out of its tmpfs instead
// of filling the state's file system, and an approved loop of background
// processes stops at the process limit.
func TestSandboxLimitsReachCommands(t *testing.T) {
	builtin, _ := testPlugins(t)
	bin := demiurgeBinary(t)
	call := func(args ...string) string {
		t.Helper()
		cmd := exec.Command(bin, append([]string{"--state", t.TempDir(), "--plugin-dir", builtin, "--workspace", t.TempDir(), "--sandbox", "workspace-write"}, args...)...)
		cmd.Env = append(os.Environ(), "HOME="+t.TempDir(), "DEMIURGE_SANDBOX_TMP_MIB=4", "DEMIURGE_SANDBOX_MAX_PROCS=450")
		out, _ := cmd.CombinedOutput()
		return string(out)
	}
	out := call("tools", "call", "terminal", `{"command":"yes | head -c 30000000 | sort -S 1M | tail -c 2"}`)
	if !strings.Contains(out, "sandbox: read-only") || !strings.Contains(out, "No space left on device") {
		t.Errorf("an unasked sort spilling 30 MB into a 4 MiB TMPDIR:\n%s", out)
	}
	out = call("--approve", "allow:terminal", "tools", "call", "terminal",
		`{"command":"(for i in $(seq 700); do sleep 20 & done) 2>/dev/null; set -- /proc/[0-9]*; echo \"procs=$#\""}`)
	i := strings.LastIndex(out, "procs=")
	if i < 0 {
		t.Fatalf("no count:\n%s", out)
	}
	var n int
	if _, err := fmt.Sscan(out[i+len("procs="):], &n); err != nil || n > 450 || n < 300 {
		t.Errorf("with DEMIURGE_SANDBOX_MAX_PROCS=450 the command had %d processes at once:\n%s", n, out)
	}
}
