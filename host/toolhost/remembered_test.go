package toolhost

import (
	"context"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"demiurge.dev/host/dispatch"
	"demiurge.dev/host/mcp/mcptest"
	"demiurge.dev/host/runtime"
)

// rememberedValue is shaped like nothing the token table knows: only the
// session's memory of the bound value can hide it.
const rememberedValue = "quiet-lantern-words-4711"

// TestBoundSecretRedactedInLaterReadsAndMCP: an approved command with a
// bound secret dumps its environment to build.log (the build script of
// the issue). Later calls of the same session that bind nothing show that
// file through read_file, search_files, the terminal (whose plugin writes
// the output to an artifact) and a real MCP stdio server's file tool:
// every view (model, card, event, record), every live output event, the
// audit events in the store and every artifact file are redacted.
func TestBoundSecretRedactedInLaterReadsAndMCP(t *testing.T) {
	t.Setenv("GH_TOKEN", rememberedValue)
	bins := mcptest.Servers(t)
	dir := mcpCore(t, `fs.read, terminal.exec, "secret.bind:GH_TOKEN", "mcp.connect:*", "mcp.call:*"`, map[string]string{
		"files": "command: " + filepath.Join(bins, "echo") + "\nenv: {READ_TOOL: \"1\"}\n",
	})
	ws, state := t.TempDir(), t.TempDir()
	h, err := Open(Options{CoreDir: dir, Workspace: ws, StateDir: state, BuiltinPluginDir: builtinDir,
		Rules: []string{"allow:mcp_connect__files", "allow:files__read", "allow:terminal"}})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	ctx := context.Background()
	turn, live := dumpBoundEnvironment(t, h)
	if b, _ := os.ReadFile(filepath.Join(ws, "build.log")); !strings.Contains(string(b), "GH_TOKEN="+rememberedValue) {
		t.Fatalf("the premise: build.log does not hold the value:\n%s", b)
	}
	*live = nil
	log := filepath.Join(ws, "build.log")
	for _, c := range []dispatch.ToolCall{
		{ID: "r1", Name: "read_file", Args: []byte(`{"path":"build.log"}`)},
		{ID: "r2", Name: "search_files", Args: []byte(`{"pattern":"GH_TOKEN","path":"."}`)},
		{ID: "r3", Name: "terminal", Args: []byte(`{"command":"cat build.log; seq 1 200000"}`)},
		{ID: "r4", Name: "files__read", Args: []byte(`{"path":` + jsonString(log) + `}`)},
	} {
		out := turn.Call(ctx, c)
		views, _ := json.Marshal(out.Views)
		// The terminal's views show the output's tail; its head, with the
		// log, is in the artifact, checked below.
		if !out.OK() || c.Name != "terminal" && !strings.Contains(string(views), `redacted:GH_TOKEN`) {
			t.Errorf("%s: %s, no redaction mark: %s (warnings %q)", c.Name, out.Status, views, h.Warnings())
		}
		if strings.Contains(string(views), rememberedValue) {
			t.Errorf("%s: a view holds the value bound earlier: %s", c.Name, views)
		}
	}
	noRememberedValue(t, h, *live)
	artifacts, marked := 0, 0
	_ = filepath.WalkDir(filepath.Join(state, "runtime", "artifacts"), func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return nil
		}
		artifacts++
		b, _ := os.ReadFile(p)
		if strings.Contains(string(b), rememberedValue) {
			t.Errorf("artifact %s holds the value", p)
		}
		if strings.Contains(string(b), "GH_TOKEN=<redacted:GH_TOKEN>") {
			marked++
		}
		return nil
	})
	if artifacts == 0 || marked == 0 {
		t.Fatalf("%d artifacts, %d with the log's redacted line (the terminal's output was meant to spill into one)", artifacts, marked)
	}
}

func jsonString(s string) string { b, _ := json.Marshal(s); return string(b) }

const readLogTool = `description: Return build.log.
input_schema:
  type: object
  properties: {}
risk: low
capability: tool.call:read_log
approval_policy: auto
capabilities: [fs.read]
`

const readLogModule = `import os

def execute(ctx, args):
    with open(os.path.join(ctx.workspace, "build.log")) as f:
        return {"content": f.read()}
`

// TestBoundSecretRedactedInALaterAuthoredResult: an authored tool (Python
// in the authored runtime) that returns the log a bound command dumped its
// environment into reaches no view, event or record with the value.
func TestBoundSecretRedactedInALaterAuthoredResult(t *testing.T) {
	withAuthored(t)
	t.Setenv("GH_TOKEN", rememberedValue)
	dir := authoredCore(t, "toolsets: [coding]\nslots: {tools: agent/tools}\ncapabilities: [fs.read, terminal.exec, \"secret.bind:GH_TOKEN\", \"tool.call:read_log\"]\n",
		map[string][2]string{"read_log": {readLogTool, readLogModule}})
	ws := t.TempDir()
	h, err := Open(Options{CoreDir: dir, Workspace: ws, StateDir: t.TempDir(), BuiltinPluginDir: builtinDir, Rules: []string{"allow:terminal"}})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	ctx := context.Background()
	turn, live := dumpBoundEnvironment(t, h)
	out := turn.Call(ctx, dispatch.ToolCall{ID: "a1", Name: "read_log", Args: []byte(`{}`)})
	views, _ := json.Marshal(out.Views)
	if !out.OK() || !strings.Contains(string(views), `redacted:GH_TOKEN`) {
		t.Fatalf("read_log: %s, no redaction mark: %s (warnings %q)", out.Status, views, h.Warnings())
	}
	if strings.Contains(string(views), rememberedValue) {
		t.Errorf("a view of the authored result holds the value bound earlier: %s", views)
	}
	noRememberedValue(t, h, *live)
}

// dumpBoundEnvironment runs, in a new turn of h, an approved terminal
// call that binds GH_TOKEN and writes its environment to build.log (the
// build script of the issue); live collects the turn's output events.
func dumpBoundEnvironment(t *testing.T, h *Host) (turn *dispatch.Turn, live *[]string) {
	t.Helper()
	ctx := context.Background()
	turn, err := h.NewTurn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	live = new([]string)
	turn.OnEvent = func(_ string, ev dispatch.Event) { *live = append(*live, string(ev.Data)) }
	bind := `{"command":"env > build.log; echo dumped","secret_bindings":[{"source":"env:GH_TOKEN"}]}`
	if out := turn.Call(ctx, dispatch.ToolCall{ID: "b1", Name: "terminal", Args: []byte(bind)}); !out.OK() {
		t.Fatalf("binding call: %s %s (warnings %q)", out.Status, out.Views.Model.String(), h.Warnings())
	}
	return turn, live
}

// noRememberedValue fails t when a live output event of the later calls
// or any audit event in the store holds the bound value.
func noRememberedValue(t *testing.T, h *Host, live []string) {
	t.Helper()
	for _, ev := range live {
		if strings.Contains(ev, rememberedValue) {
			t.Errorf("a later call's live output holds the value: %q", ev)
		}
	}
	store, err := h.Store()
	if err != nil {
		t.Fatal(err)
	}
	evs, err := store.Events(runtime.EventQuery{})
	if err != nil {
		t.Fatal(err)
	}
	for _, ev := range evs {
		if strings.Contains(string(ev.Data), rememberedValue) {
			t.Errorf("audit event %s holds the value: %s", ev.Kind, ev.Data)
		}
	}
}
