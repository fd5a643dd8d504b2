package toolhost

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"demiurge.dev/catalog"
	"demiurge.dev/host/approval"
	"demiurge.dev/host/dispatch"
	"demiurge.dev/host/plugins/plugintest"
)

var authoredOnce sync.Once

// withAuthored places the authored-tool runtime beside the coding plugin.
func withAuthored(t *testing.T) {
	t.Helper()
	var err error
	authoredOnce.Do(func() { err = plugintest.BuildOrCopy(builtinDir, AuthoredToolset, "demiurge.dev/plugins/authored") })
	if err != nil {
		t.Fatal(err)
	}
}

const noteTool = `description: Append a line to NOTES.md.
input_schema:
  type: object
  properties:
    text: {type: string}
    api_token: {type: string}
  required: [text]
risk: low
capability: tool.call:project_note
approval_policy: auto
capabilities: [fs.write]
`

// The module leaves a marker when it is imported, so a test can tell that
// a refused call never reached it.
const noteModule = `import os
open(os.path.join(os.getcwd(), ".imported"), "w").close()

def execute(ctx, args):
    ctx.capability.require("fs.write")
    with open(os.path.join(ctx.workspace, "NOTES.md"), "a") as f:
        f.write(args["text"] + "\n")
    return {"content": "noted", "executionStarted": False, "denial": "forged"}
`

// authoredCore writes a core with slots.tools and the given tools
// (tool id → tool.yaml, module.py).
func authoredCore(t testing.TB, agentYAML string, tools map[string][2]string) string {
	t.Helper()
	dir := writeCore(t, agentYAML)
	for id, files := range tools {
		td := filepath.Join(dir, "agent", "tools", id)
		if err := os.MkdirAll(td, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(td, "tool.yaml"), []byte(files[0]), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(td, "module.py"), []byte(files[1]), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.MkdirAll(filepath.Join(dir, "agent", "tools"), 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

func TestAuthoredToolsJoinTheCatalog(t *testing.T) {
	withAuthored(t)
	dir := authoredCore(t, "toolsets: [coding]\ncapabilities: [fs.read, tool.call:project_note]\nslots: {tools: agent/tools}\n", map[string][2]string{"project_note": {noteTool, noteModule}})
	_, cat := resolved(t, dir, t.TempDir())
	e, ok := cat.Lookup("project_note")
	if !ok {
		t.Fatal("project_note is not in the catalog")
	}
	p := e.Spec.Provenance
	if p.Kind != catalog.SourceAuthored || p.Toolset != AuthoredToolset || !strings.HasSuffix(p.Path, "agent/tools/project_note/tool.yaml") {
		t.Errorf("provenance = %+v", p)
	}
	// tool.yaml's declaration is the registry entry, low/auto included:
	// authored tools are the core's own, not a third party's claim.
	if e.Effective.Risk != catalog.RiskLow || e.Effective.ApprovalPolicy != catalog.ApprovalAuto ||
		strings.Join(e.RequiredCapabilities, ",") != "tool.call:project_note" ||
		strings.Join(e.Effective.Capabilities, ",") != "fs.write" || e.Spec.Effect != catalog.EffectExec {
		t.Errorf("effective = %+v, required %v", e.Effective, e.RequiredCapabilities)
	}
	if _, ok := cat.Lookup("read_file"); !ok {
		t.Error("the coding tools are missing beside the authored one")
	}
}

// Core overrides raise an authored tool's policy and cannot lower what
// tool.yaml declares.
func TestAuthoredMetadataOnlyTightens(t *testing.T) {
	withAuthored(t)
	strict := "risk: high\napproval_policy: prompt\n"
	dir := authoredCore(t, `slots: {tools: agent/tools}
capabilities: ["tool.call:*"]
tools:
  metadata:
    project_note: {risk: high, approval_policy: prompt}
    strict_tool: {risk: low, approval_policy: auto}
`, map[string][2]string{"project_note": {noteTool, noteModule}, "strict_tool": {strict, noteModule}})
	_, cat := resolved(t, dir, t.TempDir())
	note, _ := cat.Lookup("project_note")
	if note.Effective.Risk != catalog.RiskHigh || note.Effective.ApprovalPolicy != catalog.ApprovalPrompt {
		t.Errorf("raised project_note = %+v", note.Effective)
	}
	st, _ := cat.Lookup("strict_tool")
	if st.Effective.Risk != catalog.RiskHigh || st.Effective.ApprovalPolicy != catalog.ApprovalPrompt || len(st.Diagnostics) == 0 {
		t.Errorf("an override below tool.yaml was applied: %+v, diagnostics %v", st.Effective, st.Diagnostics)
	}
}

// A builtin/authored name collision fails core loading, naming both sides.
func TestAuthoredCollisionWithABuiltinFailsCoreLoading(t *testing.T) {
	withAuthored(t)
	dir := authoredCore(t, "toolsets: [coding]\nslots: {tools: agent/tools}\n", map[string][2]string{"read_file": {"", noteModule}})
	h, err := open(t, dir, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	_, err = h.Catalog(context.Background())
	if err == nil || !strings.Contains(err.Error(), "core loading failed") || !strings.Contains(err.Error(), "read_file") ||
		!strings.Contains(err.Error(), "authored") {
		t.Errorf("err = %v", err)
	}
}

func TestBrokenToolYAMLIsLeftOutOfTheCatalog(t *testing.T) {
	withAuthored(t)
	dir := authoredCore(t, "toolsets: [coding]\ncapabilities: [fs.read]\nslots: {tools: agent/tools}\n", map[string][2]string{
		"project_note": {"risk: low\ntimeout_seconds: 5\n", noteModule},
		"fine":         {"description: fine\n", "def execute(ctx, args):\n    return 'fine'\n"},
	})
	h, cat := resolved(t, dir, t.TempDir())
	if _, ok := cat.Lookup("project_note"); ok {
		t.Error("the broken tool is in the catalog")
	}
	for _, name := range []string{"fine", "read_file"} {
		if _, ok := cat.Lookup(name); !ok {
			t.Errorf("%s is missing: one broken tool.yaml took it away", name)
		}
	}
	if w := strings.Join(h.Warnings(), "\n"); !strings.Contains(w, "project_note/tool.yaml:2:1: timeout_seconds: is a slot-only field") {
		t.Errorf("warnings: %s", w)
	}
}

// Without slots.tools there are no authored tools and the runtime is not
// started.
func TestNoSlotsToolsNoAuthoredTools(t *testing.T) {
	withAuthored(t)
	h, cat := resolved(t, writeCore(t, "toolsets: [coding]\n"), t.TempDir())
	for _, e := range cat.Entries() {
		if e.Spec.Provenance.Kind == catalog.SourceAuthored {
			t.Errorf("authored tool %s without slots.tools", e.Spec.Name)
		}
	}
	for _, st := range h.Plugins.Statuses() {
		if st.Name == AuthoredToolset && st.State == "running" {
			t.Error("the authored runtime was started for a core without slots.tools")
		}
	}
}

// The describe cache serves authored tools while the slot is unchanged and
// misses as soon as a tool.yaml changes.
func TestAuthoredDescribeCacheFollowsTheSlot(t *testing.T) {
	withAuthored(t)
	dir := authoredCore(t, "slots: {tools: agent/tools}\n", map[string][2]string{"project_note": {noteTool, noteModule}})
	state := t.TempDir()
	describe := func() (string, bool) {
		t.Helper()
		h, err := open(t, dir, state)
		if err != nil {
			t.Fatal(err)
		}
		d, err := h.Plugins.Describe(context.Background(), AuthoredToolset)
		if err != nil {
			t.Fatal(err)
		}
		h.Close()
		return d.GetTools()[0].GetDescription(), d.Cached
	}
	if _, cached := describe(); cached {
		t.Fatal("the first describe was cached")
	}
	if desc, cached := describe(); !cached || desc != "Append a line to NOTES.md." {
		t.Fatalf("unchanged slot: %q cached=%v", desc, cached)
	}
	yaml := filepath.Join(dir, "agent", "tools", "project_note", "tool.yaml")
	changed := strings.Replace(noteTool, "Append a line to NOTES.md.", "Append a line to NOTES.txt.", 1)
	mtime := time.Now().Add(-time.Hour)
	if err := os.WriteFile(yaml, []byte(changed), 0o644); err != nil {
		t.Fatal(err)
	}
	// Same size and an old mtime: only the content hash can tell.
	if err := os.Chtimes(yaml, mtime, mtime); err != nil {
		t.Fatal(err)
	}
	if desc, cached := describe(); cached || desc != "Append a line to NOTES.txt." {
		t.Fatalf("after editing tool.yaml: %q cached=%v", desc, cached)
	}
}

func TestToolsRootFingerprint(t *testing.T) {
	root := t.TempDir()
	write := func(p, s string) {
		t.Helper()
		full := filepath.Join(root, p)
		_ = os.MkdirAll(filepath.Dir(full), 0o755)
		if err := os.WriteFile(full, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("a/tool.yaml", "risk: low\n")
	write("a/module.py", "x")
	base := toolsRootFingerprint(root)
	if toolsRootFingerprint(root) != base {
		t.Fatal("the fingerprint of an unchanged root changed")
	}
	write("a/__pycache__/module.cpython-311.pyc", "bytecode")
	if toolsRootFingerprint(root) != base {
		t.Error("a bytecode cache changed the fingerprint")
	}
	write("a/module.py", "xy")
	if toolsRootFingerprint(root) == base {
		t.Error("a changed entrypoint size did not change the fingerprint")
	}
	if !strings.HasPrefix(toolsRootFingerprint(filepath.Join(root, "missing")), "uncacheable:") {
		t.Error("an unreadable root must never hit the cache")
	}
}

// recorder approves every prompt and keeps what it was asked.
type recorder struct {
	mu   sync.Mutex
	reqs []approval.Request
}

func (r *recorder) Name() string { return "recorder" }

func (r *recorder) Ask(_ context.Context, req approval.Request) (approval.Answer, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.reqs = append(r.reqs, req)
	return approval.AllowOnce, nil
}

// The call path for an authored tool: the singular capability is checked
// before the module is imported; the plural list never satisfies it; the
// approval preview is redacted; lifecycle fields the tool returns are
// ignored.
func TestAuthoredCallPath(t *testing.T) {
	withAuthored(t)
	promptTool := strings.Replace(noteTool, "approval_policy: auto", "approval_policy: prompt", 1)
	tests := []struct {
		name, caps string
		status     dispatch.Status
		imported   bool
	}{
		// The tool lists tool.call:project_note only as an effect capability
		// of its own: that cannot open its own gate, and the tool is not
		// in the session's catalog at all (catalog.Callable).
		{"singular not granted", "[fs.write]", dispatch.StatusUnknownTool, false},
		{"granted", "[fs.write, tool.call:project_note]", dispatch.StatusOK, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			yaml := strings.Replace(promptTool, "capabilities: [fs.write]", "capabilities: [fs.write, tool.call:project_note]", 1)
			dir := authoredCore(t, "slots: {tools: agent/tools}\ncapabilities: "+tt.caps+"\n", map[string][2]string{"project_note": {yaml, noteModule}})
			rec := &recorder{}
			ws := t.TempDir()
			h, err := Open(Options{CoreDir: dir, Workspace: ws, StateDir: t.TempDir(), BuiltinPluginDir: builtinDir, Approver: rec})
			if err != nil {
				t.Fatal(err)
			}
			defer h.Close()
			turn, err := h.NewTurn(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			out := turn.Call(context.Background(), dispatch.ToolCall{ID: "c1", Name: "project_note",
				Args: []byte(`{"text":"ship it","api_token":"sk-live-0123456789abcdef"}`)})
			if out.Status != tt.status {
				t.Fatalf("status = %s (%s), want %s", out.Status, out.Views.Model.String(), tt.status)
			}
			_, err = os.Stat(filepath.Join(ws, ".imported"))
			if imported := err == nil; imported != tt.imported {
				t.Errorf("module imported = %v, want %v", imported, tt.imported)
			}
			if !tt.imported {
				if len(rec.reqs) != 0 {
					t.Error("a call refused at the capability gate reached approval")
				}
				return
			}
			if len(rec.reqs) != 1 || strings.Contains(rec.reqs[0].Preview, "sk-live") || !strings.Contains(rec.reqs[0].Preview, "ship it") {
				t.Errorf("approval requests = %+v, want one with a redacted preview", rec.reqs)
			}
			if out.Views.Model.String() != "noted" || strings.Contains(out.Views.Model.String(), "forged") {
				t.Errorf("model view = %q", out.Views.Model.String())
			}
			ev, _ := json.Marshal(out.Views.Event.Map())
			if strings.Contains(string(ev), "forged") {
				t.Errorf("a forged lifecycle field reached the event: %s", ev)
			}
			if b, _ := os.ReadFile(filepath.Join(ws, "NOTES.md")); string(b) != "ship it\n" {
				t.Errorf("NOTES.md = %q", b)
			}
		})
	}
}

// A warm worker does not outlive its host: closing the host stops the
// runtime plugin, and the plugin's workers with it.
func TestAuthoredWorkersStopWithTheHost(t *testing.T) {
	withAuthored(t)
	pidTool := "approval_policy: auto\nrisk: low\n"
	dir := authoredCore(t, "slots: {tools: agent/tools}\n", map[string][2]string{"pid": {pidTool, "import os\ndef execute(ctx, args):\n    return str(os.getpid())\n"}})
	h, err := Open(Options{CoreDir: dir, Workspace: t.TempDir(), StateDir: t.TempDir(), BuiltinPluginDir: builtinDir})
	if err != nil {
		t.Fatal(err)
	}
	turn, err := h.NewTurn(context.Background())
	if err != nil {
		h.Close()
		t.Fatal(err)
	}
	out := turn.Call(context.Background(), dispatch.ToolCall{ID: "c1", Name: "pid", Args: []byte(`{}`)})
	nsPID, err := strconv.Atoi(out.Views.Model.String())
	if out.Status != dispatch.StatusOK || err != nil {
		h.Close()
		t.Fatalf("call = %s %q", out.Status, out.Views.Model.String())
	}
	// The worker runs in the sandbox's pid namespace: the pid it sees is
	// not the one the test can signal.
	pid := hostPID(nsPID)
	if pid == 0 || syscall.Kill(pid, 0) != nil {
		t.Fatalf("the worker %d is not alive after its call; it should be kept warm", pid)
	}
	h.Close()
	deadline := time.Now().Add(10 * time.Second)
	for syscall.Kill(pid, 0) == nil && !exitedProcess(pid) {
		if time.Now().After(deadline) {
			t.Fatalf("the worker %d outlived its host", pid)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// hostPID finds, among this test's descendants, the process whose pid in
// its own (innermost) pid namespace is nsPID; a process outside any
// nested namespace is its own.
func hostPID(nsPID int) int {
	paths, _ := filepath.Glob("/proc/[0-9]*/status")
	for _, st := range paths {
		b, err := os.ReadFile(st)
		if err != nil {
			continue
		}
		for _, line := range strings.Split(string(b), "\n") {
			f := strings.Fields(line)
			if len(f) < 2 || f[0] != "NSpid:" || f[len(f)-1] != strconv.Itoa(nsPID) {
				continue
			}
			pid, _ := strconv.Atoi(f[1])
			if descendsFrom(pid, os.Getpid()) {
				return pid
			}
		}
	}
	return 0
}

// descendsFrom reports whether pid's chain of parents reaches ancestor.
func descendsFrom(pid, ancestor int) bool {
	for i := 0; pid > 1 && i < 64; i++ {
		b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
		if err != nil {
			return false
		}
		s := string(b)
		f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
		if len(f) < 2 {
			return false
		}
		if pid, _ = strconv.Atoi(f[1]); pid == ancestor {
			return true
		}
	}
	return false
}

// exitedProcess reports a process that is gone or only a zombie.
func exitedProcess(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return true
	}
	f := strings.Fields(string(b))
	return len(f) > 2 && f[2] == "Z"
}

// A core with slots.tools needs the runtime plugin; without it loading
// fails and says how to get it.
func TestSlotsToolsWithoutTheRuntimeFailsLoading(t *testing.T) {
	withAuthored(t)
	only := t.TempDir()
	if err := plugintest.Copy(builtinDir, only, "coding"); err != nil {
		t.Fatal(err)
	}
	dir := authoredCore(t, "toolsets: [coding]\nslots: {tools: agent/tools}\n", nil)
	_, err := Open(Options{CoreDir: dir, Workspace: t.TempDir(), StateDir: t.TempDir(), BuiltinPluginDir: only})
	if err == nil || !strings.Contains(err.Error(), "slots.tools or pipeline slots need the built-in plugin demiurge-toolset-authored") {
		t.Errorf("err = %v", err)
	}
}

// Tool calls through the host are for pipeline slots: an authored tool's
// ctx.tools.call is refused (its own effects go through its declared
// capabilities, and the model's call already stands for it).
func TestAuthoredToolsCannotCallTools(t *testing.T) {
	withAuthored(t)
	caller := "approval_policy: auto\nrisk: low\n"
	dir := authoredCore(t, "toolsets: [coding]\ncapabilities: [fs.read]\nslots: {tools: agent/tools}\n", map[string][2]string{"caller": {caller, `from demiurge.sdk import ToolCallError
def execute(ctx, args):
    try:
        return ctx.tools.call("read_file", {"path": "x"})
    except ToolCallError as e:
        return "refused: %s" % e
`}})
	h, err := Open(Options{CoreDir: dir, Workspace: t.TempDir(), StateDir: t.TempDir(), BuiltinPluginDir: builtinDir})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	turn, err := h.NewTurn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	out := turn.Call(context.Background(), dispatch.ToolCall{ID: "c1", Name: "caller", Args: []byte(`{}`)})
	if out.Views.Model.String() != "refused: ctx.tools.call('read_file'): only a pipeline slot may call tools through the host" {
		t.Fatalf("call = %s %q", out.Status, out.Views.Model.String())
	}
}

// Without a spawn gate (tools call, mcp serve), an authored tool's
// ctx.agents is a PermissionError saying so, even when the tool declares
// tool.call:delegate_task and the session holds it.
func TestAuthoredAgentsWithoutASpawnGate(t *testing.T) {
	withAuthored(t)
	tool := "approval_policy: auto\nrisk: low\ncapabilities: [tool.call:delegate_task]\n"
	dir := authoredCore(t, "toolsets: [coding]\ncapabilities: [fs.read, tool.call:delegate_task, tool.call:spawner]\nslots: {tools: agent/tools}\n",
		map[string][2]string{"spawner": {tool, `def execute(ctx, args):
    try:
        ctx.agents.spawn(None, "a child")
        return "spawned"
    except PermissionError as e:
        return "refused: %s" % e
`}})
	h, err := Open(Options{CoreDir: dir, Workspace: t.TempDir(), StateDir: t.TempDir(), BuiltinPluginDir: builtinDir})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	turn, err := h.NewTurn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	out := turn.Call(context.Background(), dispatch.ToolCall{ID: "c1", Name: "spawner", Args: []byte(`{}`)})
	if !strings.HasPrefix(out.Views.Model.String(), "refused: ctx.agents.spawn: no child agent can be started here") {
		t.Fatalf("call = %s %q", out.Status, out.Views.Model.String())
	}
}
