package dispatch

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"demiurge.dev/catalog"
	"demiurge.dev/host/approval"
	"demiurge.dev/host/sandboxing"
	"demiurge.dev/shared/sandbox"
)

// buildSandboxHelper builds the real re-exec helper for this test.
func buildSandboxHelper(t *testing.T) string {
	t.Helper()
	if d := os.Getenv("DEMIURGE_TEST_PLUGIN_DIR"); d != "" {
		if p := sandboxing.HelperPath(d); p != "" {
			return p
		}
	}
	p := filepath.Join(t.TempDir(), sandboxing.HelperName)
	if out, err := exec.Command("go", "build", "-o", p, "demiurge.dev/cmd/sandbox").CombinedOutput(); err != nil {
		t.Fatalf("build the sandbox helper: %v\n%s", err, out)
	}
	return p
}

// TestApprovedCommandRunsInTheSessionSandbox: through the whole call path
// and the real coding plugin, an approved command runs under
// workspace-write: it writes the workspace, cannot write the protected
// core file, and its result names the mode.
func TestApprovedCommandRunsInTheSessionSandbox(t *testing.T) {
	h := newHarness(t)
	turn, _ := h.terminalTurn(t, &answer{a: approval.AllowOnce})
	core := filepath.Join(h.ws, "agent.yaml")
	if err := os.WriteFile(core, []byte("name: t\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	turn.Sandbox = sandboxing.Config{Mode: sandbox.WorkspaceWrite, Helper: buildSandboxHelper(t), Protected: []string{core}}
	out := turn.Call(context.Background(), ToolCall{ID: "sb", Name: "terminal",
		Args: []byte(`{"command":"echo made > made.txt; echo pwn >> agent.yaml; cat made.txt"}`)})
	if !strings.Contains(out.Views.Model.String(), "made") {
		t.Fatalf("%s %s", out.Status, out.Views.Model.String())
	}
	if b, _ := os.ReadFile(core); strings.Contains(string(b), "pwn") {
		t.Fatal("a sandboxed command wrote the protected agent.yaml")
	}
	if _, err := os.Stat(filepath.Join(h.ws, "made.txt")); err != nil {
		t.Fatalf("workspace-write did not write the workspace: %v", err)
	}
	rec, _ := json.Marshal(out.Views.Record())
	if !strings.Contains(string(rec), `"sandbox":"workspace-write"`) {
		t.Errorf("the record does not carry the enforced mode:\n%s", rec)
	}
}

// TestRequiredSandboxFailsTheCommand: a core that requires the sandbox,
// on a host that cannot enforce it (no helper), fails the call with a
// message naming what is missing, and the command never runs.
func TestRequiredSandboxFailsTheCommand(t *testing.T) {
	h := newHarness(t)
	turn, _ := h.terminalTurn(t, &answer{a: approval.AllowOnce})
	turn.Sandbox = sandboxing.Config{Mode: sandbox.WorkspaceWrite, Require: true}
	out := turn.Call(context.Background(), ToolCall{ID: "req", Name: "terminal", Args: []byte(`{"command":"echo x > ran.txt"}`)})
	if out.OK() || !strings.Contains(out.Views.Model.String(), "requires the OS sandbox") || !strings.Contains(out.Views.Model.String(), "helper") {
		t.Fatalf("%s %s", out.Status, out.Views.Model.String())
	}
	if _, err := os.Stat(filepath.Join(h.ws, "ran.txt")); err == nil {
		t.Fatal("the command ran without the required sandbox")
	}
}

// autoTerminalTurn is terminalTurn with the terminal declared as the
// coding plugin declares it for the guard to decide: a literal read-only
// command runs unasked.
func (h *harness) autoTerminalTurn(t *testing.T, p approval.Provider) *Turn {
	t.Helper()
	base, _ := h.terminalTurn(t, p)
	src := h.terminalSource(t)
	for i := range src.Tools {
		if src.Tools[i].Name == "terminal" {
			src.Tools[i].Metadata.Risk, src.Tools[i].Metadata.ApprovalPolicy = catalog.RiskLow, catalog.ApprovalAuto
		}
	}
	turn := h.turn(t, []string{"terminal.exec", "fs.read"}, p, src)
	turn.ArtifactRoot, turn.Commands = base.ArtifactRoot, base.Commands
	return turn
}

// TestUnaskedCommandAsksWithoutSandbox: a command the guard would let run
// unasked is asked about when its read-only sandbox cannot be enforced
// (here: no helper); approved, it runs and its card says "off".
func TestUnaskedCommandAsksWithoutSandbox(t *testing.T) {
	h := newHarness(t)
	p := &answer{a: approval.AllowOnce}
	turn := h.autoTerminalTurn(t, p)
	turn.Sandbox = sandboxing.Config{Mode: sandbox.WorkspaceWrite}
	out := turn.Call(context.Background(), ToolCall{ID: "ask", Name: "terminal", Args: []byte(`{"command":"echo hi"}`)})
	if p.asked != 1 {
		t.Fatalf("asked %d times, want once: an unenforceable sandbox must make the unasked command ask", p.asked)
	}
	if !out.OK() || !strings.Contains(out.Views.Card.Body, "sandbox: off") {
		t.Fatalf("%s card %q", out.Status, out.Views.Card.Body)
	}

	// The same with the helper: nobody is asked and it runs read-only.
	p2 := &answer{a: approval.AllowOnce}
	turn2 := h.autoTerminalTurn(t, p2)
	turn2.Sandbox = sandboxing.Config{Mode: sandbox.WorkspaceWrite, Helper: buildSandboxHelper(t)}
	out = turn2.Call(context.Background(), ToolCall{ID: "auto", Name: "terminal", Args: []byte(`{"command":"echo hi"}`)})
	if p2.asked != 0 || !out.OK() || !strings.Contains(out.Views.Card.Body, "sandbox: read-only") {
		t.Fatalf("asked %d, %s card %q", p2.asked, out.Status, out.Views.Card.Body)
	}
}
